/* SPDX-License-Identifier: MIT */
/*
 * check/coro.h - the explorer's coroutines: a stack and a saved context,
 * switched symmetrically.  On x86-64 a switch saves the six callee-saved
 * registers on the old stack and loads them from the new one (no system
 * call: glibc's swapcontext saves the signal mask with one, which cost the
 * explorer 80% of its time); elsewhere it is ucontext.
 */
#ifndef CIDKIT_CHECK_CORO_H
#define CIDKIT_CHECK_CORO_H

#include <stddef.h>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

struct coro {
#if defined(__x86_64__)
	void *sp;
#else
	ucontext_t uc;
#endif
	void *stack;
	size_t size;
};

/* Prepare @c (its stack allocated by the caller) to run @entry. */
void coro_init(struct coro *c, void (*entry)(void));

/* Save the running context in @from, resume @to. */
void coro_switch(struct coro *from, struct coro *to);

/*
 * The live part of suspended @c's stack, from its saved stack pointer to
 * the top (its frames and its saved registers: everything of its own that
 * it resumes with), into *@base; returns its size, or 0 where the switch
 * is ucontext's (the registers are then outside the stack).
 */
size_t coro_live(const struct coro *c, const void **base);

#endif /* CIDKIT_CHECK_CORO_H */
