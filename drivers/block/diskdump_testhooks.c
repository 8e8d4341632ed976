// SPDX-License-Identifier: GPL-2.0
/*
 * diskdump's fault injection, for its tests only (CONFIG_DISKDUMP_TEST)
 *
 * One word written to /sys/kernel/debug/diskdump/test:
 *
 *   bug      BUG() here, in process context
 *   bhpanic  panic holding a _bh lock that a tasklet of other code,
 *            queued just before, takes
 *   warn     WARN() here (a panic with panic_on_warn=1)
 *   lockup   spin with preemption off for 60 s (a soft lockup, and a
 *            panic with softlockup_panic=1)
 *   hang     sleep uninterruptibly for 600 s (a hung task, and a panic
 *            with hung_task_panic=1)
 *   irq      panic 10 ms later, from a hard interrupt (an hrtimer)
 *   corrupt  flip a byte that the panic-time self check covers
 *   corruptmod [MODULE]  flip a byte of an armed dump driver module's
 *            .diskdump.text (of MODULE's, if named), in a function other
 *            than its operations
 *   corrupttext  flip a byte of diskdump's own panic-path code, in a
 *            function that at panic runs only after the self check
 *   corruptpriv  flip a byte of a pointer in the first armed disk's
 *            driver data (NVMe's controller, SCSI's disk)
 *   nopremap the next SCSI disk armed does not have its dump buffer
 *            mapped then, as if mapping had failed: its HBA maps it at
 *            panic
 *   panic2   the next dump panics again after 80% of its pages
 *   oops     the next dump dereferences a bad pointer after 80%
 *   oopsquiesce  the next dump dereferences a bad pointer once the
 *            first partition it tries is quiesced, before writing
 *   slowadd  the next "add" takes 3 s more, as an NVMe one may
 *   slowqueue the next NVMe dump queue created takes 3 s more between
 *            its admin commands and being ready (a reset may come then)
 *   holddie  another CPU oopses (BUG()) and stays inside die() for ever,
 *            holding die_lock; then panic here, which stops it there
 *
 * Each of them crashes the machine, stops it from dumping, or (slowadd,
 * slowqueue) widens a window that a scenario races with.  Under kernel
 * lockdown debugfs takes no writes, so neither do the hooks.  The SCSI
 * hooks (another CPU holding a host's lock, or mapping DMA) are the
 * scsi_dump_test module's.
 */

#define pr_fmt(fmt) "diskdump: " fmt

#include <linux/blkdev.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/diskdump.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/kdebug.h>
#include <linux/kthread.h>
#include <linux/kernel.h>
#include <linux/memory.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86
#include <asm/text-patching.h>
#endif

#include "diskdump_internal.h"

/* A fault the next dump runs into, part way through. */
enum dd_test_fault {
	DD_TEST_NONE,
	DD_TEST_PANIC2,		/* panic again */
	DD_TEST_OOPS,		/* dereference a bad pointer */
	DD_TEST_OOPS_QUIESCE,	/* the same, before anything is written */
};

static enum dd_test_fault dd_test_fault;
static bool dd_test_slow_add;
static struct hrtimer dd_test_irq_timer;

/**
 * dd_test_fault_point - run the fault that "panic2" or "oops" asked for
 *
 * Called by the dump once 80% of its pages are written.
 */
__diskdump_text void dd_test_fault_point(void)
{
	switch (READ_ONCE(dd_test_fault)) {
	case DD_TEST_PANIC2:
		panic("diskdump test: a second panic during the dump");
		break;
	case DD_TEST_OOPS:
		pr_emerg("test: dereferencing a bad pointer during the dump\n");
		/* the first page is never mapped: a page fault, then an oops */
		(void)READ_ONCE(*(unsigned long *)16);
		break;
	default:
		break;
	}
}

/**
 * dd_test_quiesce_point - run the fault that "oopsquiesce" asked for
 *
 * Called once the driver has quiesced the partition being tried, before
 * anything is read or written: as if the driver had oopsed in quiesce().
 * Only the first partition tried oopses.
 */
__diskdump_text void dd_test_quiesce_point(void)
{
	if (READ_ONCE(dd_test_fault) != DD_TEST_OOPS_QUIESCE)
		return;
	WRITE_ONCE(dd_test_fault, DD_TEST_NONE);
	pr_emerg("test: dereferencing a bad pointer before writing\n");
	(void)READ_ONCE(*(unsigned long *)16);
}

/**
 * dd_test_add_point - take the time "slowadd" asked for
 * @bdev: the partition being added, open and claimed
 *
 * Called by "add" with the partition's block device open, under dd_mutex
 * but before dd_config_begin(), where an NVMe disk may take seconds.  Says
 * whether the disk was deleted meanwhile (scenario unplug).
 */
void dd_test_add_point(struct block_device *bdev)
{
	if (!READ_ONCE(dd_test_slow_add))
		return;
	WRITE_ONCE(dd_test_slow_add, false);
	pr_warn("test: adding slowly\n");
	msleep(3000);
	pr_warn("test: slow add done, its disk %s\n",
		disk_live(bdev->bd_disk) ? "still there" : "deleted meanwhile");
}

/*
 * "bhpanic": the tasklet is not dump code, so it must never run while
 * dumping; if it did, it would spin on the lock that the panicking CPU
 * holds, with interrupts off, for ever.
 */
static DEFINE_SPINLOCK(dd_test_bh_lock);

static void dd_test_bh_tasklet_fn(struct tasklet_struct *t)
{
	spin_lock(&dd_test_bh_lock);
	pr_emerg("test: a tasklet of other code ran\n");
	spin_unlock(&dd_test_bh_lock);
}

static DECLARE_TASKLET(dd_test_bh_tasklet, dd_test_bh_tasklet_fn);

static void dd_test_bh_panic(void)
{
	spin_lock_bh(&dd_test_bh_lock);
	tasklet_schedule(&dd_test_bh_tasklet);
	panic("diskdump test: panic holding a _bh lock that a queued tasklet takes");
}

/* What production machines panic of: the kernel's own detectors. */
static int dd_test_detector(const char *cmd)
{
	unsigned long end;

	if (!strcmp(cmd, "warn")) {
		WARN(1, "diskdump test: a warning\n");
		return 0;
	}
	if (!strcmp(cmd, "lockup")) {
		pr_warn("test: spinning with preemption off\n");
		end = jiffies + 60 * HZ;
		preempt_disable();
		while (time_before(jiffies, end))
			cpu_relax();
		preempt_enable();
		return -ETIMEDOUT;
	}
	if (!strcmp(cmd, "hang")) {
		pr_warn("test: sleeping uninterruptibly\n");
		schedule_timeout_uninterruptible(600 * HZ);
		return -ETIMEDOUT;
	}
	return -EINVAL;
}

static enum hrtimer_restart dd_test_irq_panic(struct hrtimer *timer)
{
	panic("diskdump test: panic in hard interrupt context");
	return HRTIMER_NORESTART;
}

#ifdef CONFIG_X86
/*
 * Code is read-only: the byte is changed the way the kernel patches code
 * (text_poke(), as jump labels do, also in the kernel's own text).  Nothing
 * runs that byte until the panic; the armed disk holds the module.
 */
static int dd_test_corrupt_code(u8 *victim, const char *whose)
{
	u8 byte;

	if (!victim) {
		pr_warn("test: found no byte of %s to corrupt\n", whose);
		return -ENOENT;
	}
	byte = *victim ^ 0xff;
	mutex_lock(&text_mutex);
	text_poke(victim, &byte, 1);
	mutex_unlock(&text_mutex);
	if (*victim != byte)
		return -EIO;
	pr_warn("test: corrupted a byte of %s at %pS\n", whose, victim);
	return 0;
}
#else
static int dd_test_corrupt_code(u8 *victim, const char *whose)
{
	return -EOPNOTSUPP;
}
#endif

static bool dd_test_no_premap;

static bool dd_test_slow_queue;

/**
 * diskdump_test_slow_queue - take the time "slowqueue" asked for
 *
 * For nvme-pci's dump queue, once after the "slowqueue" test hook: 3 s
 * after the controller created the queue pair, before it is ready.
 */
void diskdump_test_slow_queue(void)
{
	if (!READ_ONCE(dd_test_slow_queue))
		return;
	WRITE_ONCE(dd_test_slow_queue, false);
	pr_warn("test: the dump queue is created, waiting 3 s\n");
	msleep(3000);
	pr_warn("test: slow queue creation done\n");
}
EXPORT_SYMBOL_GPL(diskdump_test_slow_queue);

/**
 * diskdump_test_fail_premap - should mapping a dump buffer when armed fail?
 *
 * For scsi_dump, once after the "nopremap" test hook.
 *
 * Return: true if the mapping is to be left undone.
 */
bool diskdump_test_fail_premap(void)
{
	if (!READ_ONCE(dd_test_no_premap))
		return false;
	WRITE_ONCE(dd_test_no_premap, false);
	return true;
}
EXPORT_SYMBOL_GPL(diskdump_test_fail_premap);

/* Flip a byte of a pointer an armed dump driver uses at panic. */
static int dd_test_corrupt_priv(void)
{
	const char *whose = NULL;
	u8 *victim = dd_test_priv_byte(&whose);

	if (!victim) {
		pr_warn("test: no armed disk has driver data to corrupt\n");
		return -ENOENT;
	}
	*victim ^= 0xff;
	pr_warn("test: corrupted a byte of %s's data for an armed disk at %p\n",
		whose, victim);
	return 0;
}

/*
 * "holddie": a CPU that oopsed, stopped by the panic while inside die()
 * (printing, or in a die notifier) with die_lock held.  An oops of the
 * panicking CPU must not wait for that lock for ever.
 */
static int dd_test_die_cpu = -1;
static atomic_t dd_test_in_die = ATOMIC_INIT(0);

static int dd_test_die_spin(struct notifier_block *nb, unsigned long val,
			    void *data)
{
	if (val != DIE_OOPS || raw_smp_processor_id() != READ_ONCE(dd_test_die_cpu))
		return NOTIFY_DONE;
	atomic_set(&dd_test_in_die, 1);
	for (;;)
		cpu_relax();
	return NOTIFY_DONE;
}

static struct notifier_block dd_test_die_nb = {
	.notifier_call = dd_test_die_spin,
};

static int dd_test_die_thread(void *unused)
{
	BUG();
	return 0;
}

/*
 * The writer stays on its CPU (and panics from it) while the other one
 * spins with interrupts off: a task moved there would never run again.
 */
static int dd_test_hold_die_lock(void)
{
	struct task_struct *t;
	unsigned int cpu, ms;

	migrate_disable();
	cpu = cpumask_any_but(cpu_online_mask, smp_processor_id());
	if (cpu >= nr_cpu_ids) {
		migrate_enable();
		return -ENODEV;
	}
	WRITE_ONCE(dd_test_die_cpu, cpu);
	register_die_notifier(&dd_test_die_nb);
	t = kthread_run_on_cpu(dd_test_die_thread, NULL, cpu, "dd_holddie/%u");
	if (IS_ERR(t)) {
		migrate_enable();
		return PTR_ERR(t);
	}
	for (ms = 0; ms < 5000 && !atomic_read(&dd_test_in_die); ms += 20)
		msleep(20);
	if (!atomic_read(&dd_test_in_die))
		panic("diskdump test: CPU %u did not oops in 5 s", cpu);
	pr_warn("test: CPU %u oopsed and stays in die() holding die_lock\n", cpu);
	panic("diskdump test: panic on CPU %u while CPU %u holds die_lock",
	      smp_processor_id(), cpu);
}

static int dd_test_command(const char *cmd)
{
	size_t len;
	u8 *victim;

	if (!strcmp(cmd, "bug"))
		BUG();
	if (!strcmp(cmd, "bhpanic"))
		dd_test_bh_panic();
	if (!strcmp(cmd, "warn") || !strcmp(cmd, "lockup") || !strcmp(cmd, "hang"))
		return dd_test_detector(cmd);
	if (!strcmp(cmd, "irq")) {
		hrtimer_start(&dd_test_irq_timer, ms_to_ktime(10),
			      HRTIMER_MODE_REL_HARD);
		return 0;
	}
	if (!strcmp(cmd, "panic2")) {
		WRITE_ONCE(dd_test_fault, DD_TEST_PANIC2);
		pr_warn("test: the next dump will panic after 80%% of the pages\n");
		return 0;
	}
	if (!strcmp(cmd, "oops")) {
		WRITE_ONCE(dd_test_fault, DD_TEST_OOPS);
		pr_warn("test: the next dump will oops after 80%% of the pages\n");
		return 0;
	}
	if (!strcmp(cmd, "oopsquiesce")) {
		WRITE_ONCE(dd_test_fault, DD_TEST_OOPS_QUIESCE);
		pr_warn("test: the next dump will oops before writing to the first partition\n");
		return 0;
	}
	if (!strcmp(cmd, "slowqueue")) {
		WRITE_ONCE(dd_test_slow_queue, true);
		pr_warn("test: the next NVMe dump queue will take 3 s more to be ready\n");
		return 0;
	}
	if (!strcmp(cmd, "holddie"))
		return dd_test_hold_die_lock();
	if (!strcmp(cmd, "slowadd")) {
		WRITE_ONCE(dd_test_slow_add, true);
		pr_warn("test: the next add will take 3 s more\n");
		return 0;
	}
	/* "corruptmod", or "corruptmod MODULE" */
	len = str_has_prefix(cmd, "corruptmod");
	if (len && (!cmd[len] || cmd[len] == ' ')) {
		const char *mod = cmd[len] ? cmd + len + 1 : NULL;

		return dd_test_corrupt_code(dd_test_module_code_byte(mod),
					    "a dump driver's module");
	}
	if (!strcmp(cmd, "nopremap")) {
		WRITE_ONCE(dd_test_no_premap, true);
		pr_warn("test: the next SCSI disk armed will not have its dump buffer mapped then\n");
		return 0;
	}
	if (!strcmp(cmd, "corruptpriv"))
		return dd_test_corrupt_priv();
	if (!strcmp(cmd, "corrupttext"))
		return dd_test_corrupt_code(dd_test_core_code_byte(),
					    "diskdump's code");
	if (strcmp(cmd, "corrupt"))
		return -EINVAL;
	/* A byte the checksum covers, changed behind its back. */
	victim = dd_test_config_byte();
	*victim ^= 0xff;
	pr_warn("test: corrupted a byte of diskdump's data at %p\n", victim);
	return 0;
}

static ssize_t dd_test_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[64];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	ret = dd_test_command(strim(buf));
	return ret ? ret : count;
}

static const struct file_operations dd_test_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = dd_test_write,
	.llseek = noop_llseek,
};

static int __init dd_test_init(void)
{
	struct dentry *dir = debugfs_create_dir("diskdump", NULL);

	if (IS_ERR(dir))
		return 0;
	hrtimer_init(&dd_test_irq_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	dd_test_irq_timer.function = dd_test_irq_panic;
	debugfs_create_file("test", 0200, dir, NULL, &dd_test_fops);
	pr_notice("test hooks in debugfs: diskdump/test\n");
	return 0;
}
late_initcall(dd_test_init);
