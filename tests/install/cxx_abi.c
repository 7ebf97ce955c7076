/* SPDX-License-Identifier: MIT */
/*
 * cxx_abi.c - the C side of cxx_call.cc: the layout of every public struct
 * as C sees it, and the checks that need a C compiler.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdatomic.h>

#include "layout.h"

/* CIDK_PATH_MAX stands for PATH_MAX in the headers: they must agree. */
_Static_assert(CIDK_PATH_MAX == PATH_MAX, "CIDK_PATH_MAX is not PATH_MAX");
/* CIDK__ATOMIC(int) is int in C++: same size and alignment. */
_Static_assert(sizeof(_Atomic int) == sizeof(int) &&
		       _Alignof(_Atomic int) == _Alignof(int),
	       "_Atomic int and int differ");

const size_t layout_c[] = { LAYOUT_VALUES };
const size_t layout_c_n = sizeof(layout_c) / sizeof(layout_c[0]);
