/* SPDX-License-Identifier: MIT */
/*
 * lib/rseq/rseq_own.h - cidkit's own rseq area, for lib/percpu: where it
 * is, as an offset from the thread pointer (the same in every thread:
 * initial-exec TLS).  A thread registers it with
 * cidk_rseq_register_current_thread(); until then its cpu_id and mm_cid
 * read all ones.
 */
#ifndef CIDKIT_LIB_RSEQ_OWN_H
#define CIDKIT_LIB_RSEQ_OWN_H

#include <stddef.h>

/* auxv entries of Linux 6.3 (uapi linux/auxvec.h), for older headers */
#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#endif
#ifndef AT_RSEQ_ALIGN
#define AT_RSEQ_ALIGN 28
#endif

ptrdiff_t cidk__rseq_own_offset(void);
/* 1 when the calling thread's own area is registered. */
int cidk__rseq_own_registered(void);
/*
 * 0 when this kernel has rseq(2) (probed without registering anything:
 * an unregistration of nothing, -EINVAL), else its negative errno
 * (-ENOSYS: no rseq, or a tool such as valgrind refuses it).
 */
int cidk__rseq_probe(void);

#endif /* CIDKIT_LIB_RSEQ_OWN_H */
