// SPDX-License-Identifier: GPL-2.0
/*
 * timerbench - cost of add_timer(), mod_timer() and tasklet_schedule()
 *
 * Loaded into the same QEMU guest once on the kernel with the diskdump
 * series and once on the same kernel without it, to measure what the
 * crashdump-mode branch in kernel/time/timer.c and kernel/softirq.c costs
 * when diskdump is not dumping.  Prints, per round, the nanoseconds per
 * call of each operation; the bench script takes the median.
 */

#define pr_fmt(fmt) "timerbench: " fmt

#include <linux/init.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/timer.h>

#define NR_TASKLETS	256

static unsigned int rounds = 7;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "measurement rounds");

static unsigned int loops = 200000;
module_param(loops, uint, 0444);
MODULE_PARM_DESC(loops, "calls per operation and round");

static struct timer_list bench_timer;
static struct tasklet_struct bench_tasklets[NR_TASKLETS];
static atomic_t tasklets_ran;

static void bench_timer_fn(struct timer_list *t)
{
}

static void bench_tasklet_fn(struct tasklet_struct *t)
{
	atomic_inc(&tasklets_ran);
}

/* mod_timer() on a pending timer, to a new expiry each time. */
static u64 bench_mod_timer(void)
{
	unsigned long base = jiffies + 100 * HZ;
	u64 start = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < loops; i++)
		mod_timer(&bench_timer, base + (i & 63));
	start = ktime_get_ns() - start;
	del_timer_sync(&bench_timer);
	return start;
}

/* add_timer() of an idle timer, then del_timer(): the pair. */
static u64 bench_add_del_timer(void)
{
	u64 start = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < loops; i++) {
		bench_timer.expires = jiffies + 100 * HZ;
		add_timer(&bench_timer);
		del_timer(&bench_timer);
	}
	return ktime_get_ns() - start;
}

/*
 * tasklet_schedule() of tasklets not yet scheduled, NR_TASKLETS at a time
 * with interrupts off; only the scheduling is timed, not the softirq that
 * runs them afterwards.
 */
static u64 bench_tasklet_schedule(void)
{
	unsigned int i, j, batches = loops / NR_TASKLETS;
	u64 total = 0, start;

	for (i = 0; i < batches; i++) {
		local_irq_disable();
		start = ktime_get_ns();
		for (j = 0; j < NR_TASKLETS; j++)
			tasklet_schedule(&bench_tasklets[j]);
		total += ktime_get_ns() - start;
		local_irq_enable();
		/* run them (local_bh_enable() runs pending softirqs) */
		while (atomic_read(&tasklets_ran) < (i + 1) * NR_TASKLETS) {
			local_bh_disable();
			local_bh_enable();
			cond_resched();
		}
	}
	return total * loops / (batches * NR_TASKLETS);
}

static int __init timerbench_init(void)
{
	unsigned int r, i;

	if (!loops || loops < NR_TASKLETS)
		return -EINVAL;
	timer_setup(&bench_timer, bench_timer_fn, 0);
	for (i = 0; i < NR_TASKLETS; i++)
		tasklet_setup(&bench_tasklets[i], bench_tasklet_fn);

	for (r = 0; r < rounds; r++) {
		u64 mod = bench_mod_timer();
		u64 add = bench_add_del_timer();
		u64 tsk;

		atomic_set(&tasklets_ran, 0);
		tsk = bench_tasklet_schedule();
		pr_info("round %u: mod_timer %llu ps/call, add_timer+del_timer %llu ps/pair, tasklet_schedule %llu ps/call\n",
			r, div_u64(mod * 1000, loops), div_u64(add * 1000, loops),
			div_u64(tsk * 1000, loops));
	}
	for (i = 0; i < NR_TASKLETS; i++)
		tasklet_kill(&bench_tasklets[i]);
	pr_info("done: %u rounds of %u calls\n", rounds, loops);
	return 0;
}

static void __exit timerbench_exit(void)
{
}

module_init(timerbench_init);
module_exit(timerbench_exit);
MODULE_DESCRIPTION("add_timer/mod_timer/tasklet_schedule microbenchmark");
MODULE_LICENSE("GPL");
