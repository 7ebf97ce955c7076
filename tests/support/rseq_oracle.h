/* SPDX-License-Identifier: MIT */
/*
 * tests/support/rseq_oracle.h - what the kernel promises about mm_cid, observed
 * from outside libcidkit, for the rseq tests.
 *
 *   oracle_kernel_mm_cid()   1 if the kernel fills mm_cid: its auxiliary
 *                            vector's AT_RSEQ_FEATURE_SIZE >= 28 (the
 *                            rseq(2) ABI; read here, not from the library)
 *   oracle_raw_mm_cid()      the mm_cid word of glibc's area, read through
 *                            the thread pointer (the CPU's own register,
 *                            not __builtin_thread_pointer as the library
 *                            does) and __rseq_offset; -1 without an area
 *   oracle_concurrent()      N threads (the caller and N - 1 more), each
 *                            pinned to its own allowed CPU and kept running
 *                            together by spinning barriers, read their
 *                            mm_cid through a reader round after round.
 *                            The kernel promises that running threads of
 *                            one process hold distinct mm_cids, all below
 *                            min(allowed CPUs, threads) = N: each round's N
 *                            values must be a permutation of 0..N-1.
 *
 * A round counts only if every thread read the same value before and
 * after the round's middle barrier (a thread preempted there may give its
 * ID back and take another one, as the bitmap design of 6.3 does at every
 * switch-out); the caller requires most rounds to count, and none of
 * those to break the promise.  A reader that returns a constant fails it.
 */
#ifndef CIDKIT_TESTS_RSEQ_ORACLE_H
#define CIDKIT_TESTS_RSEQ_ORACLE_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/rseq.h>

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#endif

#define ORACLE_MAX_THREADS 16
#define ORACLE_ROUNDS 200
#define ORACLE_MM_CID_OFFSET 24 /* struct rseq: cpu_id_start, cpu_id, rseq_cs, flags, node_id, mm_cid */

static inline int oracle_kernel_mm_cid(void)
{
	return getauxval(AT_RSEQ_FEATURE_SIZE) >= 28;
}

static inline int oracle_raw_mm_cid(void)
{
	char *tp;

	if (__rseq_size == 0 || !oracle_kernel_mm_cid())
		return -1;
#if defined(__x86_64__)
	__asm__ volatile("mov %%fs:0, %0" : "=r"(tp));
#elif defined(__aarch64__)
	__asm__ volatile("mrs %0, tpidr_el0" : "=r"(tp));
#elif defined(__riscv)
	__asm__ volatile("mv %0, tp" : "=r"(tp));
#elif defined(__powerpc64__)
	__asm__ volatile("mr %0, 13" : "=r"(tp));
#elif defined(__s390x__)
	__asm__ volatile("ear %0, %%a0\n\tsllg %0, %0, 32\n\tear %0, %%a1"
			 : "=&d"(tp));
#else
	return -1;
#endif
	return (int)*(volatile uint32_t *)(tp + __rseq_offset +
					   ORACLE_MM_CID_OFFSET);
}

struct oracle_run {
	int (*read)(void);        /* the reader under test */
	unsigned int n;           /* threads, the caller included */
	int cpu[ORACLE_MAX_THREADS];
	atomic_uint arrived;      /* spinning barrier */
	atomic_uint generation;
	int before[ORACLE_ROUNDS][ORACLE_MAX_THREADS];
	int after[ORACLE_ROUNDS][ORACLE_MAX_THREADS];
	/* raw-area agreement, counted by every thread */
	atomic_uint raw_agree, raw_disagree;
	/* results */
	unsigned int stable, broken;
	char first_broken[160];
};

static inline void oracle_barrier(struct oracle_run *r)
{
	unsigned int gen = atomic_load(&r->generation);

	if (atomic_fetch_add(&r->arrived, 1) + 1 == r->n) {
		atomic_store(&r->arrived, 0);
		atomic_store(&r->generation, gen + 1);
		return;
	}
	while (atomic_load(&r->generation) == gen)
		; /* spin: a thread that sleeps is not running */
}

static inline void oracle_pin(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

struct oracle_arg {
	struct oracle_run *run;
	unsigned int id;
};

static inline void oracle_body(struct oracle_run *r, unsigned int id)
{
	oracle_pin(r->cpu[id]);
	for (int k = 0; k < ORACLE_ROUNDS; k++) {
		int a, raw, b;

		oracle_barrier(r);
		a = r->read();
		raw = oracle_raw_mm_cid();
		b = r->read();
		if (raw >= 0 && a == b)
			atomic_fetch_add(raw == a ? &r->raw_agree : &r->raw_disagree, 1);
		r->before[k][id] = a;
		oracle_barrier(r);
		r->after[k][id] = r->read();
	}
	oracle_barrier(r);
}

static inline void *oracle_thread(void *p)
{
	struct oracle_arg *a = p;

	oracle_body(a->run, a->id);
	return NULL;
}

/*
 * Run the rounds with n = min(allowed CPUs, ORACLE_MAX_THREADS) threads.
 * Returns 0, or -1 if the threads could not be started.  The caller's
 * affinity is restored.
 */
static inline int oracle_concurrent(struct oracle_run *r, int (*read)(void))
{
	cpu_set_t orig;
	pthread_t t[ORACLE_MAX_THREADS];
	struct oracle_arg arg[ORACLE_MAX_THREADS];
	unsigned int started = 1;

	memset(r, 0, sizeof(*r));
	r->read = read;
	if (sched_getaffinity(0, sizeof(orig), &orig))
		return -1;
	for (int c = 0; c < CPU_SETSIZE && r->n < ORACLE_MAX_THREADS; c++)
		if (CPU_ISSET(c, &orig))
			r->cpu[r->n++] = c;
	for (unsigned int i = 1; i < r->n; i++, started++) {
		arg[i].run = r;
		arg[i].id = i;
		if (pthread_create(&t[i], NULL, oracle_thread, &arg[i]))
			break;
	}
	if (started != r->n) { /* cannot run the rounds: release nobody */
		r->n = 0;
		return -1;
	}
	oracle_body(r, 0);
	for (unsigned int i = 1; i < r->n; i++)
		pthread_join(t[i], NULL);
	pthread_setaffinity_np(pthread_self(), sizeof(orig), &orig);

	for (int k = 0; k < ORACLE_ROUNDS; k++) {
		unsigned int seen = 0, ok = 1, stable = 1;

		for (unsigned int i = 0; i < r->n; i++) {
			int c = r->before[k][i];

			stable &= c == r->after[k][i];
			if (c < 0 || c >= (int)r->n || (seen >> c & 1u))
				ok = 0;
			else
				seen |= 1u << c;
		}
		if (!stable)
			continue;
		r->stable++;
		if (!ok && r->broken++ == 0) {
			int len = snprintf(r->first_broken, sizeof(r->first_broken),
					   "round %d:", k);

			for (unsigned int i = 0; i < r->n && len > 0 &&
			     len < (int)sizeof(r->first_broken); i++)
				len += snprintf(r->first_broken + len,
						sizeof(r->first_broken) - (size_t)len,
						" cpu%d=%d", r->cpu[i], r->before[k][i]);
		}
	}
	return 0;
}

#endif /* CIDKIT_TESTS_RSEQ_ORACLE_H */
