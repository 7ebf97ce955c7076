/* SPDX-License-Identifier: MIT */
/*
 * check/memory.h - the explorer's memory models (`cidkit check --memory`):
 * which store each load of lib/cid's checker build may read, explored as
 * choices of the schedule (issue 26; docs/check.md "Memory models").
 *
 *   sc    sequential consistency: every load reads the newest store (the
 *         explorer's behaviour before the models; this file does nothing);
 *   tso   x86-TSO (Sewell et al., CACM 2010): a store waits in its
 *         thread's FIFO store buffer until it drains -- at any scheduling
 *         point, decided lazily when a load of another thread reads it --
 *         and at the thread's fences, seq_cst stores and read-modify-
 *         writes; a thread reads its own buffered stores;
 *   rc11  the view-based operational RC11 fragment without promises
 *         (Kang et al., POPL 2017; Lahav et al., PLDI 2017): a load reads
 *         any store of its word not older (in coherence order) than what
 *         its thread has seen, a store may be placed before newer stores
 *         of the word that its thread has not seen, release/acquire pairs
 *         and seq_cst fences carry views.
 *
 * The choices: the explorer asks chk_mem_options() how many ways the
 * pending step of a thread may go (1 under sc, and for every step but a
 * load or a store under the weak models); way 0 is the sequentially
 * consistent one (the newest store), way k > 0 a *weak choice* (the k-th
 * older store read, the k-th earlier place in coherence order), counted
 * against chk_opts.weak_bound per schedule.
 *
 * The memory the threads touch always holds each word's newest store (in
 * coherence order): a load that reads an older one finds it there for the
 * time of the load only, a store placed before the newest is taken back
 * once it ran.  The model's properties and dumps see the newest stores.
 *
 * Single-threaded, one execution at a time (the explorer's).
 */
#ifndef CIDKIT_CHECK_MEMORY_H
#define CIDKIT_CHECK_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

enum chk_memory { CHK_MEM_SC, CHK_MEM_TSO, CHK_MEM_RC11, CHK_MEM_NR };

/* "sc", "tso", "rc11". */
const char *chk_memory_name(unsigned int model);
/* The model named @s into *@model: 0, or -1 (unknown name). */
int chk_memory_parse(const char *s, unsigned int *model);

struct chk_opts;
/* For the reports (static buffers): "" under sc, else ", memory rc11,
 * weak-choice bound 2" (the verdict line); "sequential consistency" or
 * "memory rc11, <= 2 weak choice(s)" (what a pass covers); "" or
 * "--memory rc11 " (what a --replay needs besides its directives; or
 * "--plain-points ", which is for sc only). */
const char *chk_memory_verdict(const struct chk_opts *o);
const char *chk_memory_scope(const struct chk_opts *o);
const char *chk_memory_replay(const struct chk_opts *o);

/* A new execution of @nthreads threads under @model. */
void chk_mem_reset(unsigned int model, unsigned int nthreads);

/* The model of the execution under way (enum chk_memory; sc before any). */
unsigned int chk_mem_model(void);
/*
 * The ways @tid's pending step may go (>= 1): @op (enum cidk__chk_op or
 * CHK_OP_*), @addr, @acc its width and order (cid_atomic.h CIDK__ACC).
 */
unsigned int chk_mem_options(unsigned int tid, int op, const void *addr,
			     unsigned int acc);
/* The step of the last chk_mem_options() runs, way @k (< the ways). */
void chk_mem_begin(unsigned int k);
/* Inside the step, after its access: the value found and left. */
void chk_mem_access(uint64_t found, uint64_t left);
/*
 * After the step (until the next chk_mem_options()): the word it loaded
 * when it read a value other than the word's newest store's -- what the
 * thread saw and the properties, which read the newest, did not -- else
 * NULL (always NULL under sc).
 */
const void *chk_mem_stale_load(void);
/* The step has run (the thread is at its next point or finished). */
void chk_mem_end(void);

#endif /* CIDKIT_CHECK_MEMORY_H */
