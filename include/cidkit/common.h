/* SPDX-License-Identifier: MIT */
/*
 * cidkit/common.h - what every public header shares.
 *
 * CIDK_EXPORT marks the symbols the shared library exports; everything else
 * is compiled with hidden visibility.  Internal symbols shared between files
 * of the library carry the cidk__ prefix and are never exported.
 */
#ifndef CIDKIT_COMMON_H
#define CIDKIT_COMMON_H

#if defined(__GNUC__)
#define CIDK_EXPORT __attribute__((visibility("default")))
#else
#define CIDK_EXPORT
#endif

#endif /* CIDKIT_COMMON_H */
