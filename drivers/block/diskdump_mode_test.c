// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of diskdump's crashdump mode: timers and tasklets diverted to
 * its private lists and run from its poll loop.
 *
 * Included from diskdump_mode.c, to reach its static functions.  Each test
 * enters crashdump mode on its own CPU with interrupts off, as a dump does;
 * the other CPUs keep running normally, since crashdump_mode() is false
 * there.
 */
#include <kunit/test.h>

static int kt_calls;
static bool kt_rearm;

/* A dump driver's timer: its callback is panic-path code. */
static __diskdump_text void kt_timer_fn(struct timer_list *t)
{
	kt_calls++;
	if (kt_rearm)
		mod_timer(t, jiffies);	/* always already expired */
}

/* A timer of code that is not dumping (a delayed work, an IOMMU's). */
static void kt_other_timer_fn(struct timer_list *t)
{
	kt_calls++;
}

/* A dump driver's tasklet: panic-path code, as its timers are. */
static __diskdump_text void kt_dump_tasklet_fn(struct tasklet_struct *t)
{
	kt_calls++;
}

/* A tasklet of code that is not dumping (a NIC's, a crypto driver's). */
static void kt_tasklet_fn(struct tasklet_struct *t)
{
	kt_calls++;
}

static unsigned long kt_enter(void)
{
	unsigned long flags;

	local_irq_save(flags);
	kt_calls = 0;
	kt_rearm = false;
	WRITE_ONCE(diskdump_cpu, smp_processor_id());
	WRITE_ONCE(diskdump_mode, 1);
	return flags;
}

static void kt_leave(unsigned long flags)
{
	WRITE_ONCE(diskdump_mode, 0);
	WRITE_ONCE(diskdump_cpu, -1);
	local_irq_restore(flags);
}

/*
 * Hand the tasklets that crashdump mode kept, never run, back to the
 * softirq (the test's machine goes on, and some may be the system's).
 * Return: how many there were.
 */
static int kt_requeue_idle(void)
{
	struct tasklet_struct *t;
	int n = 0;

	while ((t = dd_mode.idle_tasklets)) {
		dd_mode.idle_tasklets = t->next;
		clear_bit(TASKLET_STATE_SCHED, &t->state);
		tasklet_schedule(t);
		n++;
	}
	return n;
}

static void dd_test_mode_is_per_cpu(struct kunit *test)
{
	unsigned long flags = kt_enter();
	bool here = crashdump_mode(), elsewhere;

	WRITE_ONCE(diskdump_cpu, nr_cpu_ids);	/* no such CPU */
	elsewhere = crashdump_mode();
	kt_leave(flags);
	KUNIT_EXPECT_TRUE(test, here);
	KUNIT_EXPECT_FALSE(test, elsewhere);
	KUNIT_EXPECT_FALSE(test, crashdump_mode());
}

static void dd_test_mode_off_uses_wheel(struct kunit *test)
{
	struct timer_list t;

	timer_setup_on_stack(&t, kt_timer_fn, 0);
	mod_timer(&t, jiffies + 100 * HZ);
	KUNIT_EXPECT_TRUE(test, timer_pending(&t));
	KUNIT_EXPECT_FALSE(test, dd_timer_is_private(&t));
	KUNIT_EXPECT_EQ(test, timer_delete_sync(&t), 1);
	destroy_timer_on_stack(&t);
}

static void dd_test_mod_timer_diverted(struct kunit *test)
{
	struct timer_list t;
	unsigned long flags;
	int first, again, del;
	bool priv;

	timer_setup_on_stack(&t, kt_timer_fn, 0);
	flags = kt_enter();
	first = mod_timer(&t, jiffies + 100 * HZ);
	priv = dd_timer_is_private(&t);
	again = mod_timer(&t, jiffies + 200 * HZ);
	dd_run_timers();		/* not expired: must not run */
	del = timer_delete(&t);
	kt_leave(flags);
	KUNIT_EXPECT_EQ(test, first, 0);
	KUNIT_EXPECT_TRUE(test, priv);
	KUNIT_EXPECT_EQ(test, again, 1);
	KUNIT_EXPECT_EQ(test, del, 1);
	KUNIT_EXPECT_EQ(test, kt_calls, 0);
	KUNIT_EXPECT_FALSE(test, timer_pending(&t));
	KUNIT_EXPECT_TRUE(test, hlist_empty(&dd_mode.timers));
	destroy_timer_on_stack(&t);
}

static void dd_test_wheel_timer_moved_and_run(struct kunit *test)
{
	struct timer_list t;
	unsigned long flags;
	bool priv;
	int calls;

	timer_setup_on_stack(&t, kt_timer_fn, 0);
	mod_timer(&t, jiffies + 100 * HZ);	/* armed before the "panic" */
	flags = kt_enter();
	mod_timer(&t, jiffies - 1);	/* a driver re-arms it while dumping */
	priv = dd_timer_is_private(&t);
	dd_run_timers();
	calls = kt_calls;
	kt_leave(flags);
	KUNIT_EXPECT_TRUE(test, priv);
	KUNIT_EXPECT_EQ(test, calls, 1);
	KUNIT_EXPECT_FALSE(test, timer_pending(&t));
	destroy_timer_on_stack(&t);
}

/*
 * A timer of code that is not dumping, re-armed while dumping: never run,
 * but still pending, as on a wheel that does not run (a delayed work whose
 * timer vanished would keep its PENDING bit for good, and
 * mod_delayed_work() would retry for ever).
 */
static void dd_test_other_timer_left_unrun(struct kunit *test)
{
	u64 ignored = dd_mode.stats.timers_ignored;
	void *first = dd_mode.stats.first_ignored;
	bool run_list, idle_list, pending;
	struct timer_list t;
	unsigned long flags;
	int again, del;

	timer_setup_on_stack(&t, kt_other_timer_fn, 0);
	mod_timer(&t, jiffies + 100 * HZ);	/* armed before the "panic" */
	flags = kt_enter();
	dd_mode.stats.timers_ignored = 0;
	again = mod_timer(&t, jiffies - 1);	/* re-armed while dumping */
	run_list = dd_timer_on(&dd_mode.timers, &t);
	idle_list = dd_timer_on(&dd_mode.idle_timers, &t);
	dd_run_timers();
	pending = timer_pending(&t);
	del = timer_delete_sync(&t);
	kt_leave(flags);
	KUNIT_EXPECT_EQ(test, again, 1);
	KUNIT_EXPECT_FALSE(test, run_list);
	KUNIT_EXPECT_TRUE(test, idle_list);
	KUNIT_EXPECT_TRUE(test, pending);
	KUNIT_EXPECT_EQ(test, kt_calls, 0);
	KUNIT_EXPECT_EQ(test, del, 1);
	KUNIT_EXPECT_FALSE(test, timer_pending(&t));
	KUNIT_EXPECT_TRUE(test, hlist_empty(&dd_mode.idle_timers));
	KUNIT_EXPECT_EQ(test, dd_mode.stats.timers_ignored, 1);
	KUNIT_EXPECT_PTR_EQ(test, dd_mode.stats.first_ignored, (void *)kt_other_timer_fn);
	dd_mode.stats.timers_ignored = ignored;
	dd_mode.stats.first_ignored = first;
	destroy_timer_on_stack(&t);
}

static void dd_test_rearming_timer_is_bounded(struct kunit *test)
{
	struct timer_list t;
	unsigned long flags;
	int calls, del;

	timer_setup_on_stack(&t, kt_timer_fn, 0);
	flags = kt_enter();
	kt_rearm = true;
	mod_timer(&t, jiffies);
	dd_run_timers();
	calls = kt_calls;
	kt_rearm = false;
	del = timer_delete_sync(&t);	/* must not wait in crashdump mode */
	kt_leave(flags);
	KUNIT_EXPECT_EQ(test, calls, DISKDUMP_MAX_TIMER_RUNS);
	KUNIT_EXPECT_EQ(test, del, 1);
	destroy_timer_on_stack(&t);
}

static void dd_test_tasklet_diverted(struct kunit *test)
{
	struct tasklet_struct t;
	unsigned long flags;
	int before, after, disabled, enabled;

	tasklet_setup(&t, kt_dump_tasklet_fn);
	flags = kt_enter();
	tasklet_schedule(&t);
	before = kt_calls;		/* queued, not run */
	dd_run_tasklets();
	after = kt_calls;
	tasklet_disable_nosync(&t);
	tasklet_hi_schedule(&t);
	dd_run_tasklets();	/* disabled: stays queued */
	disabled = kt_calls;
	tasklet_enable(&t);
	dd_run_tasklets();
	enabled = kt_calls;
	kt_leave(flags);
	KUNIT_EXPECT_EQ(test, before, 0);
	KUNIT_EXPECT_EQ(test, after, 1);
	KUNIT_EXPECT_EQ(test, disabled, 1);
	KUNIT_EXPECT_EQ(test, enabled, 2);
	KUNIT_EXPECT_PTR_EQ(test, dd_mode.tasklets, NULL);
	KUNIT_EXPECT_FALSE(test, test_bit(TASKLET_STATE_SCHED, &t.state));
}

/*
 * A tasklet of code that is not dumping, scheduled while dumping, is never
 * run: it may take a lock a stopped CPU holds.  It stays scheduled, on a
 * list of its own, and is counted.
 */
static void dd_test_other_tasklet_left_unrun(struct kunit *test)
{
	u64 ignored = dd_mode.stats.tasklets_ignored;
	void *first = dd_mode.stats.first_ignored_tasklet;
	struct tasklet_struct t;
	unsigned long flags;
	bool idle, sched;
	int calls;

	tasklet_setup(&t, kt_tasklet_fn);
	flags = kt_enter();
	dd_mode.stats.tasklets_ignored = 0;
	tasklet_schedule(&t);
	tasklet_hi_schedule(&t);	/* already scheduled: a no-op */
	dd_run_tasklets();
	calls = kt_calls;
	idle = dd_mode.idle_tasklets == &t;
	sched = test_bit(TASKLET_STATE_SCHED, &t.state);
	kt_leave(flags);
	kt_requeue_idle();
	tasklet_kill(&t);
	KUNIT_EXPECT_EQ(test, calls, 0);
	KUNIT_EXPECT_TRUE(test, idle);
	KUNIT_EXPECT_TRUE(test, sched);
	KUNIT_EXPECT_PTR_EQ(test, dd_mode.tasklets, NULL);
	KUNIT_EXPECT_EQ(test, dd_mode.stats.tasklets_ignored, 1);
	KUNIT_EXPECT_PTR_EQ(test, dd_mode.stats.first_ignored_tasklet,
			    (void *)kt_tasklet_fn);
	dd_mode.stats.tasklets_ignored = ignored;
	dd_mode.stats.first_ignored_tasklet = first;
}

/*
 * A timer pending on a wheel whose lock a stopped CPU holds for good: the
 * synchronous delete must come back (it retried -EBUSY for ever), and the
 * timer must be usable on the private list afterwards.  The "wheel" is a
 * list of the test's own, and the lock is held by fault injection.
 */
static void dd_test_delete_sync_busy_wheel(struct kunit *test)
{
	HLIST_HEAD(wheel_bucket);
	struct timer_list t;
	unsigned long flags;
	int del, mod;
	bool pending, priv;

	timer_setup_on_stack(&t, kt_timer_fn, 0);
	hlist_add_head(&t.entry, &wheel_bucket);
	flags = kt_enter();
	dd_test_wheel_busy = true;
	del = timer_delete_sync(&t);
	pending = timer_pending(&t);
	mod = mod_timer(&t, jiffies + HZ);
	priv = dd_timer_is_private(&t);
	timer_delete(&t);
	dd_test_wheel_busy = false;
	kt_leave(flags);
	KUNIT_EXPECT_EQ(test, del, 1);
	KUNIT_EXPECT_FALSE(test, pending);
	KUNIT_EXPECT_EQ(test, mod, 0);
	KUNIT_EXPECT_TRUE(test, priv);
	/* the wheel's list was not written: its owner may be half-way */
	KUNIT_EXPECT_PTR_EQ(test, wheel_bucket.first, &t.entry);
	destroy_timer_on_stack(&t);
}

/*
 * A CPU stopped half-way through migrating a timer between wheels: off
 * both lists, TIMER_MIGRATING set, still pending.  Re-arming it must not
 * unlink it a second time through its stale pprev.  (The migration leaves
 * LIST_POISON2 in entry.next; NULL here, so that the old code fails the
 * test rather than faulting on the poison.)
 */
static void dd_test_migrating_timer(struct kunit *test)
{
	struct hlist_node *stale_next = (struct hlist_node *)&stale_next;
	struct timer_list t;
	unsigned long flags;
	int mod, del;
	bool priv;

	timer_setup_on_stack(&t, kt_timer_fn, 0);
	t.entry.pprev = &stale_next;
	t.entry.next = NULL;
	t.flags |= TIMER_MIGRATING;
	flags = kt_enter();
	mod = mod_timer(&t, jiffies + HZ);
	priv = dd_timer_is_private(&t);
	del = timer_delete(&t);
	kt_leave(flags);
	KUNIT_EXPECT_EQ(test, mod, 1);
	KUNIT_EXPECT_TRUE(test, priv);
	KUNIT_EXPECT_EQ(test, del, 1);
	KUNIT_EXPECT_PTR_EQ(test, stale_next, (struct hlist_node *)&stale_next);
	t.flags &= ~TIMER_MIGRATING;
	destroy_timer_on_stack(&t);
}

/* timer_shutdown() and timer_shutdown_sync(): the timer stays down. */
static void dd_test_shutdown_timer_stays_down(struct kunit *test)
{
	struct timer_list a, b;
	unsigned long flags;
	int del_a, del_b, mod_a, mod_b;
	bool pending_a, pending_b;

	timer_setup_on_stack(&a, kt_timer_fn, 0);
	timer_setup_on_stack(&b, kt_timer_fn, 0);
	flags = kt_enter();
	mod_timer(&a, jiffies + HZ);
	mod_timer(&b, jiffies + HZ);
	del_a = timer_shutdown_sync(&a);
	del_b = timer_shutdown(&b);
	mod_a = mod_timer(&a, jiffies - 1);
	mod_b = mod_timer(&b, jiffies - 1);
	pending_a = timer_pending(&a);
	pending_b = timer_pending(&b);
	dd_run_timers();
	kt_leave(flags);
	KUNIT_EXPECT_EQ(test, del_a, 1);
	KUNIT_EXPECT_EQ(test, del_b, 1);
	KUNIT_EXPECT_EQ(test, mod_a, 0);
	KUNIT_EXPECT_EQ(test, mod_b, 0);
	KUNIT_EXPECT_FALSE(test, pending_a);
	KUNIT_EXPECT_FALSE(test, pending_b);
	KUNIT_EXPECT_EQ(test, kt_calls, 0);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&dd_mode.timers));
	destroy_timer_on_stack(&a);
	destroy_timer_on_stack(&b);
}

/*
 * Tasklets queued on this CPU just before the panic (their softirq never
 * comes): a dump driver's runs from the poll loop once diskdump takes over,
 * and scheduling it again in between is a no-op, as it is already queued.
 * Other code's are taken off the softirq lists too, so that no softirq can
 * run them, and stay queued, never run while dumping; here, where the
 * machine goes on, they run once the test hands them back.
 */
static void dd_test_tasklet_queued_before_panic(struct kunit *test)
{
	u64 ignored = dd_mode.stats.tasklets_ignored, left;
	void *first = dd_mode.stats.first_ignored_tasklet;
	struct tasklet_struct t, hi, dump;
	unsigned long flags;
	int before, after, later, back;

	tasklet_setup(&t, kt_tasklet_fn);
	tasklet_setup(&hi, kt_tasklet_fn);
	tasklet_setup(&dump, kt_dump_tasklet_fn);
	local_irq_save(flags);
	tasklet_schedule(&t);		/* queued the normal way */
	tasklet_hi_schedule(&hi);
	tasklet_schedule(&dump);
	WRITE_ONCE(diskdump_cpu, smp_processor_id());
	WRITE_ONCE(diskdump_mode, 1);
	kt_calls = 0;
	dd_mode.stats.tasklets_ignored = 0;
	tasklet_schedule(&t);
	tasklet_schedule(&dump);
	dd_run_tasklets();
	before = kt_calls;
	crashdump_take_tasklets();	/* what dd_mode_enter() does */
	dd_run_tasklets();
	dd_run_tasklets();
	after = kt_calls;
	left = dd_mode.stats.tasklets_ignored;
	kt_leave(flags);
	dd_mode.stats.tasklets_ignored = ignored;
	dd_mode.stats.first_ignored_tasklet = first;
	back = kt_requeue_idle();
	tasklet_kill(&t);		/* waits for their softirq */
	tasklet_kill(&hi);
	tasklet_kill(&dump);
	later = kt_calls;
	KUNIT_EXPECT_EQ(test, before, 0);
	KUNIT_EXPECT_EQ(test, after, 1);
	KUNIT_EXPECT_EQ(test, later, 3);
	KUNIT_EXPECT_GE(test, left, 2);	/* and any of the system's */
	KUNIT_EXPECT_EQ(test, (u64)back, left);
	KUNIT_EXPECT_FALSE(test, test_bit(TASKLET_STATE_SCHED, &dump.state));
	KUNIT_EXPECT_FALSE(test, test_bit(TASKLET_STATE_SCHED, &t.state));
	KUNIT_EXPECT_FALSE(test, test_bit(TASKLET_STATE_SCHED, &hi.state));
	KUNIT_EXPECT_PTR_EQ(test, dd_mode.idle_tasklets, NULL);
}

static struct kunit_case dd_mode_test_cases[] = {
	KUNIT_CASE(dd_test_mode_is_per_cpu),
	KUNIT_CASE(dd_test_mode_off_uses_wheel),
	KUNIT_CASE(dd_test_mod_timer_diverted),
	KUNIT_CASE(dd_test_wheel_timer_moved_and_run),
	KUNIT_CASE(dd_test_other_timer_left_unrun),
	KUNIT_CASE(dd_test_rearming_timer_is_bounded),
	KUNIT_CASE(dd_test_tasklet_diverted),
	KUNIT_CASE(dd_test_other_tasklet_left_unrun),
	KUNIT_CASE(dd_test_delete_sync_busy_wheel),
	KUNIT_CASE(dd_test_migrating_timer),
	KUNIT_CASE(dd_test_shutdown_timer_stays_down),
	KUNIT_CASE(dd_test_tasklet_queued_before_panic),
	{}
};

static struct kunit_suite dd_mode_test_suite = {
	.name = "diskdump_mode",
	.test_cases = dd_mode_test_cases,
};

kunit_test_suite(dd_mode_test_suite);
