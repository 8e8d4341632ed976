// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of diskdump's crashdump mode: timers and tasklets diverted to
 * its private lists and run from its poll loop, and the self check.
 *
 * Included from diskdump.c, to reach its static functions.  Each test enters
 * crashdump mode on its own CPU with interrupts off, as a dump does; the
 * other CPUs keep running normally, since crashdump_mode() is false there.
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
	diskdump_run_timers();		/* not expired: must not run */
	del = timer_delete(&t);
	kt_leave(flags);
	KUNIT_EXPECT_EQ(test, first, 0);
	KUNIT_EXPECT_TRUE(test, priv);
	KUNIT_EXPECT_EQ(test, again, 1);
	KUNIT_EXPECT_EQ(test, del, 1);
	KUNIT_EXPECT_EQ(test, kt_calls, 0);
	KUNIT_EXPECT_FALSE(test, timer_pending(&t));
	KUNIT_EXPECT_TRUE(test, hlist_empty(&dd_timers));
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
	diskdump_run_timers();
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
	u64 ignored = dds.timers_ignored;
	void *first = dds.first_ignored;
	bool run_list, idle_list, pending;
	struct timer_list t;
	unsigned long flags;
	int again, del;

	timer_setup_on_stack(&t, kt_other_timer_fn, 0);
	mod_timer(&t, jiffies + 100 * HZ);	/* armed before the "panic" */
	flags = kt_enter();
	dds.timers_ignored = 0;
	again = mod_timer(&t, jiffies - 1);	/* re-armed while dumping */
	run_list = dd_timer_on(&dd_timers, &t);
	idle_list = dd_timer_on(&dd_idle_timers, &t);
	diskdump_run_timers();
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
	KUNIT_EXPECT_TRUE(test, hlist_empty(&dd_idle_timers));
	KUNIT_EXPECT_EQ(test, dds.timers_ignored, 1);
	KUNIT_EXPECT_PTR_EQ(test, dds.first_ignored, (void *)kt_other_timer_fn);
	dds.timers_ignored = ignored;
	dds.first_ignored = first;
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
	diskdump_run_timers();
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

	tasklet_setup(&t, kt_tasklet_fn);
	flags = kt_enter();
	tasklet_schedule(&t);
	before = kt_calls;		/* queued, not run */
	diskdump_run_tasklets();
	after = kt_calls;
	tasklet_disable_nosync(&t);
	tasklet_hi_schedule(&t);
	diskdump_run_tasklets();	/* disabled: stays queued */
	disabled = kt_calls;
	tasklet_enable(&t);
	diskdump_run_tasklets();
	enabled = kt_calls;
	kt_leave(flags);
	KUNIT_EXPECT_EQ(test, before, 0);
	KUNIT_EXPECT_EQ(test, after, 1);
	KUNIT_EXPECT_EQ(test, disabled, 1);
	KUNIT_EXPECT_EQ(test, enabled, 2);
	KUNIT_EXPECT_PTR_EQ(test, dd_tasklets, NULL);
	KUNIT_EXPECT_FALSE(test, test_bit(TASKLET_STATE_SCHED, &t.state));
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
	diskdump_run_timers();
	kt_leave(flags);
	KUNIT_EXPECT_EQ(test, del_a, 1);
	KUNIT_EXPECT_EQ(test, del_b, 1);
	KUNIT_EXPECT_EQ(test, mod_a, 0);
	KUNIT_EXPECT_EQ(test, mod_b, 0);
	KUNIT_EXPECT_FALSE(test, pending_a);
	KUNIT_EXPECT_FALSE(test, pending_b);
	KUNIT_EXPECT_EQ(test, kt_calls, 0);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&dd_timers));
	destroy_timer_on_stack(&a);
	destroy_timer_on_stack(&b);
}

/*
 * A tasklet queued on this CPU just before the panic (its softirq never
 * comes) runs from the poll loop once diskdump takes over; scheduling it
 * again in between is a no-op, as it is already queued.
 */
static void dd_test_tasklet_queued_before_panic(struct kunit *test)
{
	struct tasklet_struct t, hi;
	unsigned long flags;
	int before, after;

	tasklet_setup(&t, kt_tasklet_fn);
	tasklet_setup(&hi, kt_tasklet_fn);
	local_irq_save(flags);
	tasklet_schedule(&t);		/* queued the normal way */
	tasklet_hi_schedule(&hi);
	WRITE_ONCE(diskdump_cpu, smp_processor_id());
	WRITE_ONCE(diskdump_mode, 1);
	kt_calls = 0;
	tasklet_schedule(&t);
	diskdump_run_tasklets();
	before = kt_calls;
	crashdump_take_tasklets();	/* what start_disk_dump() does */
	diskdump_run_tasklets();
	after = kt_calls;
	kt_leave(flags);
	KUNIT_EXPECT_EQ(test, before, 0);
	KUNIT_EXPECT_EQ(test, after, 2);
	KUNIT_EXPECT_FALSE(test, test_bit(TASKLET_STATE_SCHED, &t.state));
	KUNIT_EXPECT_FALSE(test, test_bit(TASKLET_STATE_SCHED, &hi.state));
}

static void dd_test_checksum_sees_corruption(struct kunit *test)
{
	u8 *victim = (u8 *)&dd.ram[DISKDUMP_MAX_RAM_RANGES - 1];
	u32 good, bad, again;

	mutex_lock(&diskdump_mutex);
	good = diskdump_checksum();
	*victim ^= 0x01;
	bad = diskdump_checksum();
	*victim ^= 0x01;
	again = diskdump_checksum();
	mutex_unlock(&diskdump_mutex);
	KUNIT_EXPECT_NE(test, good, bad);
	KUNIT_EXPECT_EQ(test, good, again);
}

/* A block as diskdumpfmt writes it: block @nr of @nr_blocks. */
static void dd_test_fill_fmt(struct diskdump_fmt_block *fb, unsigned long nr,
			     unsigned long nr_blocks)
{
	u64 *word = (u64 *)fb;
	unsigned int i;

	memset(fb, 0, PAGE_SIZE);
	memcpy(fb->magic, DISKDUMP_FMT_MAGIC, DISKDUMP_MAGIC_LEN);
	fb->endian = DISKDUMP_ENDIAN_MARK;
	fb->block_size = DISKDUMP_BLOCK_SIZE;
	fb->block_nr = nr;
	fb->nr_blocks = nr_blocks;
	fb->version = DISKDUMP_FMT_VERSION;
	for (i = DISKDUMP_FMT_HDR_WORDS; i < DISKDUMP_BLOCK_SIZE / 8; i++)
		word[i] = diskdump_fmt_word(nr, i);
}

static void dd_test_fmt_block(struct kunit *test)
{
	struct diskdump_fmt_block *fb = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fb);
	dd_test_fill_fmt(fb, 5, 100);
	KUNIT_EXPECT_EQ(test, dd_fmt_mismatch(fb, 5, 100), -1);
	KUNIT_EXPECT_GE(test, dd_fmt_mismatch(fb, 6, 100), 0);
	KUNIT_EXPECT_GE(test, dd_fmt_mismatch(fb, 5, 101), 0);
	fb->magic[0] = 'X';
	KUNIT_EXPECT_EQ(test, dd_fmt_mismatch(fb, 5, 100), 0);
	/* format version 1: the struct, version 0, then zeros */
	dd_test_fill_fmt(fb, 5, 100);
	memset((char *)fb + offsetof(struct diskdump_fmt_block, version), 0,
	       PAGE_SIZE - offsetof(struct diskdump_fmt_block, version));
	KUNIT_EXPECT_EQ(test, dd_fmt_mismatch(fb, 5, 100),
			(int)offsetof(struct diskdump_fmt_block, version));
}

/* Zeros or one changed byte in any 512-byte sector of a block show. */
static void dd_test_fmt_every_sector(struct kunit *test)
{
	struct diskdump_fmt_block *fb = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	char *b = (char *)fb;
	unsigned int sect;

	KUNIT_ASSERT_NOT_NULL(test, fb);
	for (sect = 0; sect < PAGE_SIZE / SECTOR_SIZE; sect++) {
		dd_test_fill_fmt(fb, 12345, 1 << 20);
		memset(b + sect * SECTOR_SIZE, 0, SECTOR_SIZE);
		KUNIT_EXPECT_EQ(test, dd_fmt_mismatch(fb, 12345, 1 << 20),
				(int)(sect * SECTOR_SIZE));
		dd_test_fill_fmt(fb, 12345, 1 << 20);
		b[sect * SECTOR_SIZE + SECTOR_SIZE - 1] ^= 0x80;
		KUNIT_EXPECT_EQ(test, dd_fmt_mismatch(fb, 12345, 1 << 20),
				(int)(sect * SECTOR_SIZE + SECTOR_SIZE - 8));
	}
}

/* Adjacent online chunks join into one range; a gap starts a new one. */
static void dd_test_online_ranges(struct kunit *test)
{
	struct dd_ram_walk *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, add_online_range(w, 16, 100), 0);
	KUNIT_EXPECT_EQ(test, add_online_range(w, 100, 300), 0);
	KUNIT_EXPECT_EQ(test, add_online_range(w, 400, 500), 0);
	KUNIT_EXPECT_EQ(test, w->nr_ram, 2U);
	KUNIT_EXPECT_EQ(test, w->ram[0].start_pfn, 16UL);
	KUNIT_EXPECT_EQ(test, w->ram[0].end_pfn, 300UL);
	KUNIT_EXPECT_EQ(test, w->ram[1].start_pfn, 400UL);
	KUNIT_EXPECT_EQ(test, w->nr_ram_pages, 384UL);
	KUNIT_EXPECT_EQ(test, w->max_pfn, 500UL);
	/* past the last slot the walk stops, and says so */
	for (i = w->nr_ram; i < DISKDUMP_MAX_RAM_RANGES; i++)
		KUNIT_EXPECT_EQ(test, add_online_range(w, 1000 + 2 * i, 1001 + 2 * i), 0);
	KUNIT_EXPECT_EQ(test, add_online_range(w, 5000, 5001), 1);
	KUNIT_EXPECT_EQ(test, w->nr_ram, (unsigned int)DISKDUMP_MAX_RAM_RANGES);
}

/* A bitmap that cannot grow: the RAM list keeps to the PFNs it covers. */
static void dd_test_clip_walk(struct kunit *test)
{
	struct dd_ram_walk *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	add_online_range(w, 0, 100);
	add_online_range(w, 200, 300);
	add_online_range(w, 400, 500);
	dd_clip_walk(w, 250);
	KUNIT_EXPECT_EQ(test, w->nr_ram, 2U);
	KUNIT_EXPECT_EQ(test, w->ram[1].start_pfn, 200UL);
	KUNIT_EXPECT_EQ(test, w->ram[1].end_pfn, 250UL);
	KUNIT_EXPECT_EQ(test, w->nr_ram_pages, 150UL);
	KUNIT_EXPECT_EQ(test, w->max_pfn, 250UL);
	dd_clip_walk(w, 200);
	KUNIT_EXPECT_EQ(test, w->nr_ram, 1U);
	KUNIT_EXPECT_EQ(test, w->max_pfn, 100UL);
}

static struct kunit_case diskdump_test_cases[] = {
	KUNIT_CASE(dd_test_mode_is_per_cpu),
	KUNIT_CASE(dd_test_mode_off_uses_wheel),
	KUNIT_CASE(dd_test_mod_timer_diverted),
	KUNIT_CASE(dd_test_wheel_timer_moved_and_run),
	KUNIT_CASE(dd_test_other_timer_left_unrun),
	KUNIT_CASE(dd_test_rearming_timer_is_bounded),
	KUNIT_CASE(dd_test_tasklet_diverted),
	KUNIT_CASE(dd_test_delete_sync_busy_wheel),
	KUNIT_CASE(dd_test_migrating_timer),
	KUNIT_CASE(dd_test_shutdown_timer_stays_down),
	KUNIT_CASE(dd_test_tasklet_queued_before_panic),
	KUNIT_CASE(dd_test_checksum_sees_corruption),
	KUNIT_CASE(dd_test_fmt_block),
	KUNIT_CASE(dd_test_fmt_every_sector),
	KUNIT_CASE(dd_test_online_ranges),
	KUNIT_CASE(dd_test_clip_walk),
	{}
};

static struct kunit_suite diskdump_test_suite = {
	.name = "diskdump",
	.test_cases = diskdump_test_cases,
};

kunit_test_suite(diskdump_test_suite);
