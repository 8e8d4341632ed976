// SPDX-License-Identifier: GPL-2.0
/*
 * diskdump's crashdump mode: time, timers and tasklets while dumping
 *
 * A dump runs on the panicking CPU with interrupts off and the other CPUs
 * stopped, so neither the timer wheel nor the softirqs run.  Dump drivers
 * still arm timers (a SCSI bus reset's settle time) and schedule tasklets
 * as they always do: kernel/time/timer.c and kernel/softirq.c send those
 * calls here while crashdump_mode() is true, and diskdump_udelay(), the
 * drivers' poll-loop wait, advances jiffies and runs what is due.  Only
 * the dump drivers' timers and tasklets run; any other code's stay
 * pending, never run, as they would after a panic without diskdump.
 *
 * Everything here runs at panic: __diskdump_text, covered by the self check.
 */

#define pr_fmt(fmt) "diskdump: " fmt

#include <linux/delay.h>
#include <linux/diskdump.h>
#include <linux/export.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/timekeeping.h>
#include <linux/timer.h>
#include <asm/sections.h>

#include "diskdump_internal.h"

#define DISKDUMP_MAX_TIMER_RUNS	16	/* timer callbacks per poll, at most */
#define DISKDUMP_WHEEL_TRIES	100	/* a timer wheel's lock: 1 us apart */

int diskdump_mode;
EXPORT_SYMBOL_GPL(diskdump_mode);
int diskdump_cpu = -1;
EXPORT_SYMBOL_GPL(diskdump_cpu);

/* The state of crashdump mode: one dump at a time, on one CPU. */
static struct {
	struct hlist_head timers;	/* dump drivers' timers: run when due */
	struct hlist_head idle_timers;	/* other code's: pending, never run */
	struct tasklet_struct *tasklets;	/* dump drivers': run in order */
	struct tasklet_struct **tasklets_tail;
	struct tasklet_struct *idle_tasklets;	/* other code's: never run */
	u64 clock_base_ns;		/* the clock when jiffies last moved */
	u64 udelay_ns;			/* waited in diskdump_udelay() since */
	struct dd_mode_stats stats;
} dd_mode = {
	.tasklets_tail = &dd_mode.tasklets,
};

/**
 * dd_mode_enter - start crashdump mode on this CPU
 *
 * Called at panic with interrupts off and the other CPUs stopped.  The
 * tasklets this CPU had queued before the panic, which would never run
 * now, are taken off its softirq lists: the dump drivers' to be run, the
 * rest to stay queued, never run.  The softirqs pending here are dropped,
 * so that a local_bh_enable() on the dump's path cannot run them (with
 * interrupts on, and every expired timer of the wheel): they would never
 * run either, had diskdump not taken over the panic.
 */
__diskdump_text void dd_mode_enter(void)
{
	dd_mode.clock_base_ns = ktime_get_mono_fast_ns();
	WRITE_ONCE(diskdump_cpu, smp_processor_id());
	WRITE_ONCE(diskdump_mode, 1);
	crashdump_take_tasklets();
	set_softirq_pending(0);
}

/**
 * dd_mode_leave - end crashdump mode
 *
 * The timers and tasklets still on diskdump's lists stay there: the
 * machine reboots.
 */
__diskdump_text void dd_mode_leave(void)
{
	WRITE_ONCE(diskdump_mode, 0);
}

/**
 * dd_mode_counts - what crashdump mode has counted so far
 *
 * Return: the counts, for the dump's header and the console.
 */
__diskdump_text const struct dd_mode_stats *dd_mode_counts(void)
{
	return &dd_mode.stats;
}

/*
 * Interrupts are off, so nothing advances jiffies.  Drivers still measure
 * their timeouts in jiffies, so advance it from the NMI-safe monotonic fast
 * clock, or from the time spent in diskdump_udelay() if that clock does not
 * move (a clocksource that stopped with the timer interrupt).
 */
static __diskdump_text void dd_advance_jiffies(void)
{
	u64 now = ktime_get_mono_fast_ns();
	u64 clock_delta = now - dd_mode.clock_base_ns;
	u64 delta = max(clock_delta, dd_mode.udelay_ns);
	u64 ticks = div_u64(delta, TICK_NSEC);

	if (!ticks)
		return;
	jiffies_64 += ticks;
	dd_mode.clock_base_ns = now;
	dd_mode.udelay_ns = 0;
}

static __diskdump_text bool dd_timer_on(struct hlist_head *list,
					struct timer_list *timer)
{
	struct timer_list *t;

	hlist_for_each_entry(t, list, entry)
		if (t == timer)
			return true;
	return false;
}

static __diskdump_text bool dd_timer_is_private(struct timer_list *timer)
{
	return dd_timer_on(&dd_mode.timers, timer) ||
	       dd_timer_on(&dd_mode.idle_timers, timer);
}

static __diskdump_text void dd_timer_unlink(struct timer_list *timer)
{
	__hlist_del(&timer->entry);
	timer->entry.pprev = NULL;
	timer->entry.next = NULL;
}

#ifdef CONFIG_DISKDUMP_KUNIT_TEST
/* Set by the KUnit tests: the wheel's lock is held by a stopped CPU. */
static bool dd_test_wheel_busy;
#else
#define dd_test_wheel_busy	false
#endif

/*
 * Take @timer off its timer wheel: 1 if it was on one, 0 if not.  The
 * wheel's lock is tried for a bounded time; a CPU that missed the stop
 * holds it for a moment at most.  If it stays taken, a stopped CPU holds it
 * for good: that wheel will never run again, so neither will the timer from
 * it.  The timer is then forgotten there, its entry left as it is, for its
 * neighbours on that list still point at it.
 */
static __diskdump_text int dd_timer_detach_wheel(struct timer_list *timer)
{
	unsigned int tries;
	int ret = -EBUSY;

	for (tries = 0; tries < DISKDUMP_WHEEL_TRIES; tries++) {
		if (!dd_test_wheel_busy)
			ret = crashdump_detach_wheel_timer(timer);
		if (ret != -EBUSY)
			return ret;
		udelay(1);
	}
	timer->entry.pprev = NULL;
	return 1;
}

/* Take @timer off whatever list it is on; 1 if it was pending. */
static __diskdump_text int dd_timer_detach(struct timer_list *timer)
{
	if (!timer_pending(timer))
		return 0;
	if (dd_timer_is_private(timer)) {
		dd_timer_unlink(timer);
		return 1;
	}
	/*
	 * A CPU stopped half-way through moving the timer to another wheel
	 * (__mod_timer()): it is off the old list, not yet on the new one,
	 * but still looks pending.  Unlinking it again would write through
	 * its stale pointers.
	 */
	if (READ_ONCE(timer->flags) & TIMER_MIGRATING) {
		timer->entry.pprev = NULL;
		return 1;
	}
	return dd_timer_detach_wheel(timer);
}

/*
 * Is @timer one of the dump drivers'?  The timer callbacks that a dump
 * driver built into the kernel needs at panic (sym53c8xx's, which ends the
 * settle time after a bus reset) are __diskdump_text, like the rest of the
 * panic path; a modular dump driver's timers are told by the text of its
 * module, recorded when it was armed.  Any other timer armed while dumping
 * belongs to code that is not dumping: a delayed work's would queue work,
 * the IOMMU flush queue's would take every CPU's flush-queue lock.  Those
 * stay pending and are never run, as without diskdump, for the timer wheel
 * never runs again.
 */
static __diskdump_text bool dd_timer_is_dump_code(struct timer_list *timer)
{
	return dd_is_dump_code((unsigned long)timer->function);
}

/**
 * diskdump_mod_timer - mod_timer() in crashdump mode
 * @timer: the timer
 * @expires: new expiry time in jiffies
 *
 * Moves @timer to diskdump's private list, from which diskdump_udelay()
 * runs it once it expires, if it is a dump driver's; any other timer goes
 * to a list that is never run, where it stays pending.  A timer that was
 * shut down (its function cleared by timer_shutdown()) is not armed again,
 * as with the timer wheel.
 *
 * Return: 1 if the timer was pending, 0 if not.
 */
__diskdump_text int
diskdump_mod_timer(struct timer_list *timer, unsigned long expires)
{
	int was_pending = dd_timer_detach(timer);

	if (!timer->function)
		return was_pending;
	timer->expires = expires;
	if (dd_timer_is_dump_code(timer)) {
		hlist_add_head(&timer->entry, &dd_mode.timers);
		return was_pending;
	}
	if (!dd_mode.stats.timers_ignored++)
		dd_mode.stats.first_ignored = timer->function;
	hlist_add_head(&timer->entry, &dd_mode.idle_timers);
	return was_pending;
}
EXPORT_SYMBOL_GPL(diskdump_mod_timer);

/**
 * diskdump_del_timer - timer_delete() and timer_shutdown() in crashdump mode
 * @timer: the timer
 * @shutdown: also clear its function, so that it cannot be armed again
 *
 * In crashdump mode no timer callback runs but from diskdump_udelay() on
 * this CPU, so the synchronous variants need not wait either.
 *
 * Return: 1 if the timer was pending, 0 if not; never a negative value, on
 * which timer_delete_sync() would retry for ever.
 */
__diskdump_text int diskdump_del_timer(struct timer_list *timer, bool shutdown)
{
	int ret = dd_timer_detach(timer);

	if (shutdown)
		timer->function = NULL;
	return ret;
}
EXPORT_SYMBOL_GPL(diskdump_del_timer);

static __diskdump_text void *dd_tasklet_fn(struct tasklet_struct *t)
{
	return t->use_callback ? (void *)t->callback : (void *)t->func;
}

/*
 * Is @t one of the dump drivers' tasklets?  As for timers: any other code's
 * tasklet may take a lock that the panicking CPU or a stopped one holds,
 * or end in a local_bh_enable() that runs every pending softirq with
 * interrupts on.  None of the dump drivers schedules one today.
 */
static __diskdump_text bool dd_tasklet_is_dump_code(struct tasklet_struct *t)
{
	return dd_is_dump_code((unsigned long)dd_tasklet_fn(t));
}

static __diskdump_text void dd_tasklet_queue(struct tasklet_struct *t)
{
	t->next = NULL;
	*dd_mode.tasklets_tail = t;
	dd_mode.tasklets_tail = &t->next;
}

/**
 * diskdump_tasklet_schedule - tasklet_schedule() in crashdump mode
 * @t: the tasklet, already marked TASKLET_STATE_SCHED by the caller
 *
 * Queues a dump driver's @t on diskdump's private list instead of a
 * per-CPU softirq list; crashdump_take_tasklets() hands over those queued
 * before the panic the same way.  Any other tasklet goes to a list that is
 * never run: it stays scheduled, as its softirq would never come.
 */
__diskdump_text void diskdump_tasklet_schedule(struct tasklet_struct *t)
{
	if (dd_tasklet_is_dump_code(t)) {
		dd_tasklet_queue(t);
		return;
	}
	if (!dd_mode.stats.tasklets_ignored++)
		dd_mode.stats.first_ignored_tasklet = dd_tasklet_fn(t);
	t->next = dd_mode.idle_tasklets;
	dd_mode.idle_tasklets = t;
}
EXPORT_SYMBOL_GPL(diskdump_tasklet_schedule);

static __diskdump_text void dd_run_timers(void)
{
	struct timer_list *t;
	int runs;

	for (runs = 0; runs < DISKDUMP_MAX_TIMER_RUNS; runs++) {
		bool found = false;

		hlist_for_each_entry(t, &dd_mode.timers, entry) {
			if (time_after_eq(jiffies, t->expires)) {
				found = true;
				break;
			}
		}
		if (!found)
			return;
		/* Start over after each callback: it may change the list. */
		dd_timer_unlink(t);
		dd_mode.stats.timers_run++;
		t->function(t);
	}
}

static __diskdump_text void dd_run_tasklets(void)
{
	struct tasklet_struct *list = dd_mode.tasklets, *t;

	dd_mode.tasklets = NULL;
	dd_mode.tasklets_tail = &dd_mode.tasklets;

	while (list) {
		t = list;
		list = list->next;
		if (atomic_read(&t->count) || !tasklet_trylock(t)) {
			/* Disabled or running elsewhere: try again next poll. */
			dd_tasklet_queue(t);
			continue;
		}
		if (test_and_clear_bit(TASKLET_STATE_SCHED, &t->state)) {
			dd_mode.stats.tasklets_run++;
			if (t->use_callback)
				t->callback(t);
			else
				t->func(t->data);
		}
		/*
		 * Not tasklet_unlock(): its wake-up may take a wait queue's
		 * lock that a stopped CPU holds, and nothing can be waiting.
		 */
		clear_bit_unlock(TASKLET_STATE_RUN, &t->state);
	}
}

/**
 * dd_mode_shelve - stop running the timers and tasklets queued so far
 * @timers: set to the number of timers shelved
 * @tasklets: set to the number of tasklets shelved
 *
 * After an oops in a dump driver, whose state (and the locks its timer or
 * tasklet would take) is unknown, the next partition's driver must not run
 * them from its poll loop: they go to the lists that are never run, as
 * other code's do.  A timer armed again later is moved back as usual.
 */
__diskdump_text void dd_mode_shelve(unsigned int *timers,
				    unsigned int *tasklets)
{
	struct timer_list *t;
	struct hlist_node *next;
	struct tasklet_struct *tl;

	*timers = 0;
	*tasklets = 0;
	hlist_for_each_entry_safe(t, next, &dd_mode.timers, entry) {
		dd_timer_unlink(t);
		hlist_add_head(&t->entry, &dd_mode.idle_timers);
		(*timers)++;
	}
	while ((tl = dd_mode.tasklets)) {
		dd_mode.tasklets = tl->next;
		tl->next = dd_mode.idle_tasklets;
		dd_mode.idle_tasklets = tl;
		(*tasklets)++;
	}
	dd_mode.tasklets_tail = &dd_mode.tasklets;
}

/**
 * diskdump_udelay - wait in a dump driver's poll loop
 * @usecs: microseconds to wait
 *
 * Busy-waits, then advances jiffies and runs the timers and tasklets that
 * the dump drivers queued while crashdump_mode() is true.  Outside crashdump
 * mode it is a plain udelay().
 */
__diskdump_text void diskdump_udelay(unsigned int usecs)
{
	udelay(usecs);
	if (!crashdump_mode())
		return;
	if (!irqs_disabled())
		dd_mode.stats.irqs_seen_on = true;
	dd_mode.udelay_ns += (u64)usecs * NSEC_PER_USEC;
	dd_advance_jiffies();
	dd_run_timers();
	dd_run_tasklets();
}
EXPORT_SYMBOL_GPL(diskdump_udelay);

#ifdef CONFIG_DISKDUMP_KUNIT_TEST
#include "diskdump_mode_test.c"
#endif
