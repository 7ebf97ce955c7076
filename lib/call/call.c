/* SPDX-License-Identifier: MIT */
/*
 * Domain-affine calls: a direct call when the caller is inside the domain,
 * else a hand-off to one lazily created worker thread bound to the domain.
 *
 * Invariants:
 *   - the queue (head/tail), started, stop, sleeping and waiters are
 *     guarded by lock;
 *   - a request is on the queue from start until the worker pops it; its
 *     done flag goes 0 -> 1 exactly once, with release order, after fn
 *     returned, and the request is not touched by the worker afterwards
 *     except under lock (the broadcast), so the caller may free it as soon
 *     as it has seen done == 1 *and* taken the lock once (cidk_call_wait
 *     always does);
 *   - the worker runs calls in queue order and drains the queue before it
 *     exits on stop.
 *
 * Workload: hand-offs come in bursts (one per domain per sampling
 * interval, or a benchmark's loop).  Both sides spin a little before they
 * sleep, except when caller and worker share a CPU, where spinning would
 * only delay the other.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/arch/select.h> /* cidk__cpu_relax() */
#include <cidkit/call.h>

#define SPIN_ITERS 4000 /* a few microseconds of polling */

struct cidk_call_domain {
	struct cidk_mask *cpus;
	pthread_mutex_t lock;
	pthread_cond_t work;   /* worker sleeps here */
	pthread_cond_t done;   /* callers sleep here */
	struct cidk_call_req *head, *tail;
	_Atomic int queued;    /* hint for the spinning worker */
	int started, stop, sleeping, waiters, last_caller_cpu;
	pthread_t thread;
};

static bool on_mask(const struct cidk_mask *m, int cpu)
{
	return cpu >= 0 && (unsigned int)cpu < m->nbits &&
	       cidk_mask_test(m, (unsigned int)cpu);
}

struct cidk_call_domain *cidk_call_domain_create(const struct cidk_mask *cpus)
{
	struct cidk_call_domain *d;

	if (!cpus || cidk_mask_empty(cpus)) {
		errno = EINVAL;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		goto nomem;
	d->cpus = cidk_mask_dup(cpus);
	if (!d->cpus)
		goto nomem;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->work, NULL);
	pthread_cond_init(&d->done, NULL);
	atomic_init(&d->queued, 0);
	d->last_caller_cpu = -1;
	return d;
nomem:
	free(d);
	errno = ENOMEM;
	return NULL;
}

const struct cidk_mask *cidk_call_domain_cpus(const struct cidk_call_domain *d)
{
	return d->cpus;
}

bool cidk_call_domain_local(const struct cidk_call_domain *d)
{
	return on_mask(d->cpus, sched_getcpu());
}

/* Pop the next request, or NULL; lock held. */
static struct cidk_call_req *pop(struct cidk_call_domain *d)
{
	struct cidk_call_req *r = d->head;

	if (r) {
		d->head = r->next;
		if (!d->head)
			d->tail = NULL;
		atomic_fetch_sub_explicit(&d->queued, 1, memory_order_relaxed);
		d->last_caller_cpu = r->caller_cpu;
	}
	return r;
}

static void *worker(void *arg)
{
	struct cidk_call_domain *d = arg;
	struct cidk_call_req *r;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		while ((r = pop(d))) {
			pthread_mutex_unlock(&d->lock);
			r->fn(r->arg);
			pthread_mutex_lock(&d->lock);
			atomic_store_explicit(&r->done, 1, memory_order_release);
			if (d->waiters)
				pthread_cond_broadcast(&d->done);
		}
		if (d->stop)
			break;
		/* Spin a little unless the last caller shares our CPU. */
		if (d->last_caller_cpu < 0 ||
		    d->last_caller_cpu != sched_getcpu()) {
			pthread_mutex_unlock(&d->lock);
			for (int i = 0; i < SPIN_ITERS &&
					!atomic_load_explicit(&d->queued,
							      memory_order_relaxed);
			     i++)
				cidk__cpu_relax();
			pthread_mutex_lock(&d->lock);
			if (d->head || d->stop)
				continue;
		}
		d->sleeping = 1;
		pthread_cond_wait(&d->work, &d->lock);
		d->sleeping = 0;
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* Start the worker, bound to the domain; lock held. */
static int start_worker(struct cidk_call_domain *d)
{
	pthread_attr_t attr;
	cpu_set_t *set;
	size_t size;
	unsigned int cpu;
	int rc;

	set = CPU_ALLOC(d->cpus->nbits);
	if (!set)
		return -ENOMEM;
	size = CPU_ALLOC_SIZE(d->cpus->nbits);
	CPU_ZERO_S(size, set);
	cidk_mask_for_each(cpu, d->cpus)
		CPU_SET_S(cpu, size, set);
	rc = pthread_attr_init(&attr);
	if (rc)
		goto out_set;
	rc = pthread_attr_setaffinity_np(&attr, size, set);
	if (!rc)
		rc = pthread_create(&d->thread, &attr, worker, d);
	pthread_attr_destroy(&attr);
	if (!rc)
		d->started = 1;
out_set:
	CPU_FREE(set);
	return -rc;
}

int cidk_call_start(struct cidk_call_domain *d, struct cidk_call_req *req,
		    cidk_call_fn fn, void *arg, bool force)
{
	int cpu, rc = 0, wake;

	if (!d || !req || !fn)
		return -EINVAL;
	cpu = sched_getcpu();
	req->fn = fn;
	req->arg = arg;
	req->dom = d;
	req->next = NULL;
	req->caller_cpu = cpu;
	if (!force && on_mask(d->cpus, cpu)) {
		fn(arg);
		atomic_store_explicit(&req->done, 1, memory_order_release);
		req->dom = NULL; /* nothing to wait for */
		return 0;
	}
	atomic_store_explicit(&req->done, 0, memory_order_relaxed);
	pthread_mutex_lock(&d->lock);
	if (!d->started)
		rc = start_worker(d);
	if (!rc) {
		if (d->tail)
			d->tail->next = req;
		else
			d->head = req;
		d->tail = req;
		atomic_fetch_add_explicit(&d->queued, 1, memory_order_relaxed);
	}
	wake = !rc && d->sleeping;
	if (wake)
		pthread_cond_signal(&d->work);
	pthread_mutex_unlock(&d->lock);
	return rc;
}

void cidk_call_wait(struct cidk_call_req *req)
{
	struct cidk_call_domain *d = req->dom;

	if (!d)
		return; /* ran directly */
	if (!on_mask(d->cpus, req->caller_cpu))
		for (int i = 0; i < SPIN_ITERS &&
				!atomic_load_explicit(&req->done,
						      memory_order_acquire);
		     i++)
			cidk__cpu_relax();
	/*
	 * Always take the lock once: the worker touches the domain (not the
	 * request) after setting done, and this orders our return after it.
	 */
	pthread_mutex_lock(&d->lock);
	while (!atomic_load_explicit(&req->done, memory_order_acquire)) {
		d->waiters++;
		pthread_cond_wait(&d->done, &d->lock);
		d->waiters--;
	}
	pthread_mutex_unlock(&d->lock);
	req->dom = NULL;
}

int cidk_call_on(struct cidk_call_domain *d, cidk_call_fn fn, void *arg)
{
	struct cidk_call_req req;
	int rc = cidk_call_start(d, &req, fn, arg, false);

	if (!rc)
		cidk_call_wait(&req);
	return rc;
}

int cidk_call_handoff(struct cidk_call_domain *d, cidk_call_fn fn, void *arg)
{
	struct cidk_call_req req;
	int rc = cidk_call_start(d, &req, fn, arg, true);

	if (!rc)
		cidk_call_wait(&req);
	return rc;
}

void cidk_call_domain_destroy(struct cidk_call_domain *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	d->stop = 1;
	if (d->started)
		pthread_cond_signal(&d->work);
	pthread_mutex_unlock(&d->lock);
	if (d->started)
		pthread_join(d->thread, NULL);
	pthread_cond_destroy(&d->work);
	pthread_cond_destroy(&d->done);
	pthread_mutex_destroy(&d->lock);
	cidk_mask_free(d->cpus);
	free(d);
}
