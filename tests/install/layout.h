/* SPDX-License-Identifier: MIT */
/*
 * layout.h - every struct of the public headers whose layout a user's code
 * sees, for cxx_abi.c (compiled as C) and cxx_call.cc (C++) to measure the
 * same way: C++ must see the C layout (CIDK__ATOMIC fields are plain in
 * C++, the flexible array member an extension).
 */
#include <stddef.h>

#include <cidkit/call.h>
#include <cidkit/cid.h>
#include <cidkit/common.h>
#include <cidkit/lease.h>
#include <cidkit/mask.h>
#include <cidkit/percpu.h>
#include <cidkit/pool.h>
#include <cidkit/resctrl.h>
#include <cidkit/rseq.h>
#include <cidkit/sim.h>
#include <cidkit/topo.h>

#define LAYOUT_STRUCTS(X)                                                     \
	X(cidk_call_req) X(cidk_cid_params) X(cidk_cid_stats)                 \
	X(cidk_mask) X(cidk_percpu_node) X(cidk_pool)                         \
	X(cidk_rc_value) X(cidk_rc_rate) X(cidk_resctrl_err)                  \
	X(cidk_resctrl_opts) X(cidk_resctrl_row) X(cidk_resctrl_stats)        \
	X(cidk_rseq_abi) X(cidk_rseq_info) X(cidk_topo_err)                   \
	X(cidk_topo_insane) X(cidk_sim_locality_params)                       \
	X(cidk_sim_locality_result) X(cidk_sim_sched_params)                  \
	X(cidk_sim_scan_result) X(cidk_sim_compaction_result)                 \
	X(cidk_sim_switch_result)

/* size, alignment, and the fields that C and C++ spell differently */
#ifdef __cplusplus
#define LAYOUT_ALIGNOF alignof
#else
#define LAYOUT_ALIGNOF _Alignof
#endif
#define LAYOUT_SIZE(s) sizeof(struct s), LAYOUT_ALIGNOF(struct s),
#define LAYOUT_VALUES                                                         \
	LAYOUT_STRUCTS(LAYOUT_SIZE)                                           \
	offsetof(struct cidk_call_req, done),                                 \
	offsetof(struct cidk_call_req, caller_cpu),                           \
	offsetof(struct cidk_mask, bits)
