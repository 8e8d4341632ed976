// SPDX-License-Identifier: GPL-2.0
/*
 * scsi_dump_test - CPUs that are busy with a SCSI host when the panic comes
 *
 * Test hooks for diskdump (CONFIG_DISKDUMP_TEST), each a parameter that
 * takes a SCSI host number and starts a kernel thread on another CPU:
 *
 * hold_lock	takes the host's lock with interrupts off and never lets go,
 *		as a CPU that hangs in the driver would.  At the panic
 *		scsi_dump's sanity_check must refuse the host.
 * busy_lock	holds the host's lock for 1 ms at a time, letting go for
 *		5 us in between, as a host busy with I/O on another CPU:
 *		the stop must not leave that CPU holding it.
 * busy_map	maps and unmaps a page for the host's DMA device for 1 ms at
 *		a time with interrupts off, as a CPU busy starting and ending
 *		I/O: behind an IOMMU it takes and drops the IOVA allocator's,
 *		the flush queue's or the invalidation queue's locks all the
 *		time, and behind swiotlb an area's lock.  The dump, which maps
 *		its own buffer in the HBA's queuecommand, must find them free.
 * hold_map	maps and unmaps so with interrupts off for good: that CPU
 *		cannot be parked, may be stopped in those locks, and the dump
 *		must not use a disk whose driver would take them.
 * busy_iommu	holds the lock of the invalidation queue of the Intel IOMMU
 *		the host's device is behind for 1 ms at a time, letting go
 *		for 5 us: in strict mode every unmap waits for an
 *		invalidation under that lock.
 * hold_iommu	holds that lock with interrupts off for good, as a CPU that
 *		hangs waiting for an invalidation would: that CPU cannot be
 *		parked, and a dump that mapped or unmapped through that IOMMU
 *		at panic would spin on the lock for ever.
 *
 * The hold_ kinds panic the machine themselves, from the CPU that wrote
 * the parameter, as soon as the other CPU has taken hold (hold_map: has
 * turned its interrupts off to map).  Anything on the writing CPU that
 * wanted what is held would spin for ever before any other panic could
 * come: the driver's timer or interrupt taking the host lock, an unmap
 * waiting for the invalidation queue.  So that CPU turns its interrupts
 * off before the other takes hold, and keeps them off.
 *
 * Any of them may stop the machine from dumping.  For testing only.
 */

#define pr_fmt(fmt) "scsi_dump_test: " fmt

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <scsi/scsi_host.h>

#ifdef CONFIG_INTEL_IOMMU
#include "../iommu/intel/iommu.h"
#endif

#define SCSI_DUMP_TEST_BUSY_NS	NSEC_PER_MSEC	/* busy, interrupts off */
#define SCSI_DUMP_TEST_GAP_US	5		/* then interrupts on */

enum scsi_dump_test_kind {
	SCSI_DUMP_TEST_HOLD_LOCK,
	SCSI_DUMP_TEST_BUSY_LOCK,
	SCSI_DUMP_TEST_BUSY_MAP,
	SCSI_DUMP_TEST_HOLD_MAP,
	SCSI_DUMP_TEST_BUSY_IOMMU,
	SCSI_DUMP_TEST_HOLD_IOMMU,
};

/* The one test thread, its host and what it does. */
struct scsi_dump_test {
	struct Scsi_Host *shost;
	enum scsi_dump_test_kind kind;
	void *buf;		/* busy_map: the page it maps */
	raw_spinlock_t *qi_lock;	/* busy_iommu, hold_iommu: the lock */
	bool ready;		/* hold_: the thread waits for go */
	bool go;		/* hold_: the writer's interrupts are off */
	bool started;
};

static struct scsi_dump_test scsi_dump_test;

static bool scsi_dump_test_iommu(enum scsi_dump_test_kind kind)
{
	return kind == SCSI_DUMP_TEST_BUSY_IOMMU ||
	       kind == SCSI_DUMP_TEST_HOLD_IOMMU;
}

static bool scsi_dump_test_holds(enum scsi_dump_test_kind kind)
{
	return kind == SCSI_DUMP_TEST_HOLD_LOCK ||
	       kind == SCSI_DUMP_TEST_HOLD_MAP ||
	       kind == SCSI_DUMP_TEST_HOLD_IOMMU;
}

static bool scsi_dump_test_maps(enum scsi_dump_test_kind kind)
{
	return kind == SCSI_DUMP_TEST_BUSY_MAP ||
	       kind == SCSI_DUMP_TEST_HOLD_MAP;
}

/* One round of busy_map: map and unmap until the time is up. */
static void scsi_dump_test_map_round(struct device *dev, void *buf)
{
	u64 start = local_clock();
	dma_addr_t addr;

	do {
		addr = dma_map_single(dev, buf, PAGE_SIZE, DMA_FROM_DEVICE);
		if (!dma_mapping_error(dev, addr))
			dma_unmap_single(dev, addr, PAGE_SIZE, DMA_FROM_DEVICE);
	} while (local_clock() - start < SCSI_DUMP_TEST_BUSY_NS);
}

/*
 * The invalidation queue's lock of the Intel IOMMU that @dev is behind, or
 * NULL.  Reached through the driver's private structures: a test only.
 */
static raw_spinlock_t *scsi_dump_test_qi_lock(struct device *dev)
{
#ifdef CONFIG_INTEL_IOMMU
	struct device_domain_info *info;

	if (!device_iommu_mapped(dev) || !dev->iommu->iommu_dev ||
	    !dev->iommu->iommu_dev->dev ||
	    strncmp(dev_name(dev->iommu->iommu_dev->dev), "dmar", 4))
		return NULL;
	info = dev_iommu_priv_get(dev);
	if (info && info->iommu && info->iommu->qi)
		return &info->iommu->qi->q_lock;
#endif
	return NULL;
}

/* Tell the writer, once what is held is seen held by other CPUs. */
static void scsi_dump_test_took_hold(struct scsi_dump_test *test)
{
	/* pairs with the smp_load_acquire() in scsi_dump_test_wait() */
	smp_store_release(&test->started, true);
}

/*
 * A hold_ kind's thread takes hold only once the writer's interrupts are
 * off.  It waits for that with its own off, so that nothing on this CPU
 * can wait meanwhile for the writer to answer an IPI.
 */
static void scsi_dump_test_wait_go(struct scsi_dump_test *test)
{
	local_irq_disable();
	WRITE_ONCE(test->ready, true);
	while (!READ_ONCE(test->go))
		cpu_relax();
}

static int scsi_dump_test_thread(void *data)
{
	struct scsi_dump_test *test = data;
	struct Scsi_Host *shost = test->shost;

	if (scsi_dump_test_holds(test->kind))
		scsi_dump_test_wait_go(test);
	for (;;) {
		if (scsi_dump_test_iommu(test->kind)) {
			raw_spin_lock_irq(test->qi_lock);
			scsi_dump_test_took_hold(test);
			if (test->kind == SCSI_DUMP_TEST_HOLD_IOMMU)
				for (;;)
					cpu_relax();
			mdelay(1);
			raw_spin_unlock_irq(test->qi_lock);
		} else if (scsi_dump_test_maps(test->kind)) {
			local_irq_disable();
			scsi_dump_test_took_hold(test);
			do {
				scsi_dump_test_map_round(shost->dma_dev,
							 test->buf);
			} while (test->kind == SCSI_DUMP_TEST_HOLD_MAP);
			local_irq_enable();
		} else {
			spin_lock_irq(shost->host_lock);
			scsi_dump_test_took_hold(test);
			while (test->kind == SCSI_DUMP_TEST_HOLD_LOCK)
				cpu_relax();
			mdelay(1);
			spin_unlock_irq(shost->host_lock);
		}
		udelay(SCSI_DUMP_TEST_GAP_US);
		cond_resched();	/* no soft lockup while the test runs */
	}
	return 0;
}

/* What the thread does, in the kernel log: the tests look for it. */
static void scsi_dump_test_say(unsigned int cpu, unsigned int host_no)
{
	struct scsi_dump_test *test = &scsi_dump_test;

	switch (test->kind) {
	case SCSI_DUMP_TEST_HOLD_LOCK:
		pr_warn("CPU %u holds the lock of host %u for good\n",
			cpu, host_no);
		break;
	case SCSI_DUMP_TEST_BUSY_LOCK:
		pr_warn("CPU %u holds the lock of host %u 1 ms at a time\n",
			cpu, host_no);
		break;
	case SCSI_DUMP_TEST_BUSY_MAP:
	case SCSI_DUMP_TEST_HOLD_MAP:
		pr_warn("CPU %u maps and unmaps for host %u %s, %s\n",
			cpu, host_no, test->kind == SCSI_DUMP_TEST_HOLD_MAP ?
			"for good" : "1 ms at a time",
			device_iommu_mapped(test->shost->dma_dev) ?
			"behind an IOMMU" : "with no IOMMU");
		break;
	case SCSI_DUMP_TEST_BUSY_IOMMU:
	case SCSI_DUMP_TEST_HOLD_IOMMU:
		pr_warn("CPU %u holds the invalidation queue lock of host %u's IOMMU %s\n",
			cpu, host_no, test->kind == SCSI_DUMP_TEST_HOLD_IOMMU ?
			"for good" : "1 ms at a time");
		break;
	}
}

/* Wait for the thread to take hold, then say what it does. */
static void scsi_dump_test_wait(unsigned int cpu, unsigned int host_no)
{
	/*
	 * Poll, not a completion: a hold_ kind waits with interrupts off.
	 * Pairs with the smp_store_release() in scsi_dump_test_took_hold().
	 */
	while (!smp_load_acquire(&scsi_dump_test.started))
		cpu_relax();
	scsi_dump_test_say(cpu, host_no);
}

/*
 * A hold_ kind: start the thread, and once it runs turn interrupts off
 * here, let it take hold, then panic.  Not preemptible meanwhile: a task
 * that took this CPU could wait for the thread's CPU to answer an IPI.
 * (A stop_machine() that begins in the few microseconds before the
 * thread runs would wait for this CPU for ever: a test hook's risk.)
 */
static void __noreturn scsi_dump_test_hold(struct task_struct *thread,
					   unsigned int cpu,
					   unsigned int host_no)
{
	preempt_disable();
	wake_up_process(thread);
	while (!READ_ONCE(scsi_dump_test.ready))
		cpu_relax();
	local_irq_disable();
	WRITE_ONCE(scsi_dump_test.go, true);
	scsi_dump_test_wait(cpu, host_no);
	panic("scsi_dump_test: CPU %u holds on for good", cpu);
}

static int scsi_dump_test_start(unsigned int host_no, unsigned int cpu,
				enum scsi_dump_test_kind kind)
{
	struct scsi_dump_test *test = &scsi_dump_test;
	struct task_struct *thread;
	int ret = -ENOMEM;

	test->shost = scsi_host_lookup(host_no);
	if (!test->shost)
		return -ENODEV;
	test->kind = kind;
	test->ready = false;
	test->go = false;
	test->started = false;
	if (scsi_dump_test_iommu(kind)) {
		test->qi_lock = scsi_dump_test_qi_lock(test->shost->dma_dev);
		if (!test->qi_lock) {
			ret = -ENODEV;
			goto fail;
		}
	} else if (scsi_dump_test_maps(kind)) {
		test->buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
		if (!test->buf)
			goto fail;
	}
	thread = kthread_create_on_cpu(scsi_dump_test_thread, test, cpu,
				       "scsi_dump_test/%u");
	if (IS_ERR(thread)) {
		ret = PTR_ERR(thread);
		goto fail;
	}
	if (scsi_dump_test_holds(kind))
		scsi_dump_test_hold(thread, cpu, host_no);
	wake_up_process(thread);
	scsi_dump_test_wait(cpu, host_no);
	return 0;
fail:
	kfree(test->buf);
	test->buf = NULL;
	scsi_host_put(test->shost);
	test->shost = NULL;
	return ret;
}

static int scsi_dump_test_set(const char *val, const struct kernel_param *kp)
{
	unsigned int host_no, cpu;
	int ret;

	ret = kstrtouint(val, 0, &host_no);
	if (ret)
		return ret;
	if (scsi_dump_test.shost)
		return -EBUSY;
	/*
	 * Stay off the CPU that is about to stop scheduling, and keep the
	 * other online: a thread moved to this CPU would never run.
	 */
	cpus_read_lock();
	migrate_disable();
	cpu = cpumask_any_but(cpu_online_mask, smp_processor_id());
	if (cpu < nr_cpu_ids)
		ret = scsi_dump_test_start(host_no, cpu,
					   (uintptr_t)kp->arg);
	else
		ret = -ENODEV;
	migrate_enable();
	cpus_read_unlock();
	return ret;
}

static const struct kernel_param_ops scsi_dump_test_ops = {
	.set = scsi_dump_test_set,
};

module_param_cb(hold_lock, &scsi_dump_test_ops,
		(void *)SCSI_DUMP_TEST_HOLD_LOCK, 0200);
MODULE_PARM_DESC(hold_lock,
		 "A CPU takes this SCSI host's lock and never releases it; then panic");
module_param_cb(busy_lock, &scsi_dump_test_ops,
		(void *)SCSI_DUMP_TEST_BUSY_LOCK, 0200);
MODULE_PARM_DESC(busy_lock,
		 "A CPU holds this SCSI host's lock 1 ms at a time");
module_param_cb(busy_map, &scsi_dump_test_ops,
		(void *)SCSI_DUMP_TEST_BUSY_MAP, 0200);
MODULE_PARM_DESC(busy_map,
		 "A CPU maps and unmaps DMA for this SCSI host 1 ms at a time");
module_param_cb(hold_map, &scsi_dump_test_ops,
		(void *)SCSI_DUMP_TEST_HOLD_MAP, 0200);
MODULE_PARM_DESC(hold_map,
		 "A CPU maps and unmaps DMA for this SCSI host, interrupts off for good; then panic");
module_param_cb(busy_iommu, &scsi_dump_test_ops,
		(void *)SCSI_DUMP_TEST_BUSY_IOMMU, 0200);
MODULE_PARM_DESC(busy_iommu,
		 "A CPU holds the Intel IOMMU's invalidation queue lock of this SCSI host 1 ms at a time");
module_param_cb(hold_iommu, &scsi_dump_test_ops,
		(void *)SCSI_DUMP_TEST_HOLD_IOMMU, 0200);
MODULE_PARM_DESC(hold_iommu,
		 "A CPU holds the Intel IOMMU's invalidation queue lock of this SCSI host for good; then panic");

MODULE_DESCRIPTION("diskdump test hooks: CPUs busy with a SCSI host");
MODULE_LICENSE("GPL");
