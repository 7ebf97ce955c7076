/* SPDX-License-Identifier: MIT */
/* lib/percpu/percpu_ops.h - internal: the atomic path's locks (ops_atomic.c). */
#ifndef CIDKIT_LIB_PERCPU_OPS_H
#define CIDKIT_LIB_PERCPU_OPS_H

/* Take and drop every lock of the atomic path: holders have finished. */
void cidk__percpu_ops_quiesce(void);

#endif /* CIDKIT_LIB_PERCPU_OPS_H */
