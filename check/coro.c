/* SPDX-License-Identifier: MIT */
/*
 * check/coro.c - coroutine switch (coro.h).
 *
 * x86-64 (System V): a suspended coroutine's stack holds, from its saved
 * stack pointer up, r15 r14 r13 r12 rbx rbp and the address to resume
 * at.  A new one is laid out as if suspended just before calling @entry:
 * the resume address is @entry, and the slot above it is a fake return
 * address, so that @entry starts with the stack aligned as after a call
 * (rsp = 8 mod 16).  @entry must never return.
 */
#include <stdint.h>
#include <string.h>

#include "coro.h"

#if defined(__x86_64__)

void cidk__coro_swap(void **save_sp, void *load_sp);

__asm__(".text\n"
	".p2align 4\n"
	".globl cidk__coro_swap\n"
	".hidden cidk__coro_swap\n"
	".type cidk__coro_swap,@function\n"
	"cidk__coro_swap:\n"
	"\tpushq %rbp\n"
	"\tpushq %rbx\n"
	"\tpushq %r12\n"
	"\tpushq %r13\n"
	"\tpushq %r14\n"
	"\tpushq %r15\n"
	"\tmovq %rsp, (%rdi)\n"
	"\tmovq %rsi, %rsp\n"
	"\tpopq %r15\n"
	"\tpopq %r14\n"
	"\tpopq %r13\n"
	"\tpopq %r12\n"
	"\tpopq %rbx\n"
	"\tpopq %rbp\n"
	"\tret\n"
	".size cidk__coro_swap, .-cidk__coro_swap\n");

void coro_init(struct coro *c, void (*entry)(void))
{
	uintptr_t top = ((uintptr_t)c->stack + c->size) & ~(uintptr_t)15;
	void **sp = (void **)top;

	*--sp = NULL;		/* fake return address of entry */
	*--sp = (void *)entry;	/* where the first switch "returns" */
	for (int i = 0; i < 6; i++)
		*--sp = NULL;	/* rbp rbx r12 r13 r14 r15 */
	c->sp = sp;
}

void coro_switch(struct coro *from, struct coro *to)
{
	cidk__coro_swap(&from->sp, to->sp);
}

size_t coro_live(const struct coro *c, const void **base)
{
	uintptr_t top = ((uintptr_t)c->stack + c->size) & ~(uintptr_t)15;

	*base = c->sp;
	return top - (uintptr_t)c->sp;
}

#else

void coro_init(struct coro *c, void (*entry)(void))
{
	getcontext(&c->uc);
	c->uc.uc_stack.ss_sp = c->stack;
	c->uc.uc_stack.ss_size = c->size;
	c->uc.uc_link = NULL;
	makecontext(&c->uc, entry, 0);
}

void coro_switch(struct coro *from, struct coro *to)
{
	swapcontext(&from->uc, &to->uc);
}

size_t coro_live(const struct coro *c, const void **base)
{
	*base = NULL;
	return 0;
}

#endif
