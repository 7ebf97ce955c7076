/* SPDX-License-Identifier: MIT */
/*
 * cidkit/common.h - what every public header shares.
 *
 * CIDK_EXPORT marks the symbols the shared library exports; everything else
 * is compiled with hidden visibility.  Internal symbols shared between files
 * of the library carry the cidk__ prefix and are never exported.
 *
 * Every public header compiles on its own as ISO C11 (-std=c11 -pedantic,
 * no feature-test macros needed), as GNU C, and as C++ (g++, clang++):
 * declarations sit inside extern "C", and the few C-only constructs have a
 * C++ spelling of the same layout below (tests/install/headers.sh).
 */
#ifndef CIDKIT_COMMON_H
#define CIDKIT_COMMON_H

#if defined(__GNUC__)
#define CIDK_EXPORT __attribute__((visibility("default")))
#else
#define CIDK_EXPORT
#endif

/*
 * The longest path a struct of the API holds (the error reports of
 * topo.h and resctrl.h), NUL included: Linux's PATH_MAX, which <limits.h>
 * declares only under POSIX feature macros (tests/install/cxx_abi.c checks
 * that the two agree).
 */
#define CIDK_PATH_MAX 4096

/*
 * CIDK__ATOMIC(T) - a field of a public struct that only the library
 * touches, atomically: _Atomic T in C; plain T in C++, which has no _Atomic
 * (the same size and alignment for the int-sized fields used, checked by
 * tests/install/cxx_call.cc against the C layout).
 */
#ifdef __cplusplus
#define CIDK__ATOMIC(T) T
#else
#define CIDK__ATOMIC(T) _Atomic T
#endif

/*
 * A flexible array member is ISO C; C++ compilers accept it as an
 * extension but warn under -pedantic.  Wrap such a struct in these.
 */
#ifdef __cplusplus
#define CIDK__CXX_FLEX_BEGIN                                                  \
	_Pragma("GCC diagnostic push")                                        \
	_Pragma("GCC diagnostic ignored \"-Wpedantic\"")
#define CIDK__CXX_FLEX_END _Pragma("GCC diagnostic pop")
#else
#define CIDK__CXX_FLEX_BEGIN
#define CIDK__CXX_FLEX_END
#endif

#endif /* CIDKIT_COMMON_H */
