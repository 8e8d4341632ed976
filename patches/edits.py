# Source of the patch series: each patch() call names the files it changes
# and the edits, as (anchor, replacement) pairs on a pristine 6.12 tree.
# scripts/regen-patches.py turns this into patches/*.patch and patches/series.

def p_timers():
    edit('kernel/time/timer.c', '#include <linux/random.h>\n',
         '#include <linux/random.h>\n#include <linux/diskdump.h>\n')
    edit('kernel/time/timer.c', '''#define MOD_TIMER_PENDING_ONLY		0x01
''', '''#ifdef CONFIG_DISKDUMP
/**
 * crashdump_detach_wheel_timer - take a pending timer off its timer wheel
 * @timer: the timer
 *
 * For diskdump only, in crashdump mode: the other CPUs are stopped and the
 * wheels will not run again, so diskdump moves the timers its drivers
 * re-arm onto a private list.  The base lock is only tried, never waited
 * for: a stopped CPU may hold it.
 *
 * Return: 1 if the timer was taken off, 0 if it was not pending, -EBUSY if
 * its base is locked.
 */
int crashdump_detach_wheel_timer(struct timer_list *timer)
{
	struct timer_base *base = get_timer_base(READ_ONCE(timer->flags));
	int ret;

	if (!raw_spin_trylock(&base->lock))
		return -EBUSY;
	ret = detach_if_pending(timer, base, true);
	raw_spin_unlock(&base->lock);
	return ret;
}
#endif

#define MOD_TIMER_PENDING_ONLY		0x01
''')
    edit('kernel/time/timer.c', '''	int ret = 0;

	debug_assert_init(timer);

	/*
	 * This is a common optimization triggered by the networking code - if
''', '''	int ret = 0;

	debug_assert_init(timer);

	if (crashdump_mode()) {
		if ((options & MOD_TIMER_PENDING_ONLY) && !timer_pending(timer))
			return 0;
		return diskdump_mod_timer(timer, expires);
	}

	/*
	 * This is a common optimization triggered by the networking code - if
''')
    edit('kernel/time/timer.c', '''	int ret = 0;

	debug_assert_init(timer);

	/*
	 * If @shutdown is set then the lock has to be taken whether the
''', '''	int ret = 0;

	debug_assert_init(timer);

	if (crashdump_mode())
		return diskdump_del_timer(timer);

	/*
	 * If @shutdown is set then the lock has to be taken whether the
''')
    edit('kernel/time/timer.c', '''	int ret = -1;

	debug_assert_init(timer);

	base = lock_timer_base(timer, &flags);
''', '''	int ret = -1;

	debug_assert_init(timer);

	if (crashdump_mode())
		return diskdump_del_timer(timer);

	base = lock_timer_base(timer, &flags);
''')
    edit('kernel/softirq.c', '#include <linux/workqueue.h>\n',
         '#include <linux/workqueue.h>\n#include <linux/diskdump.h>\n')
    edit('kernel/softirq.c', '''	struct tasklet_head *head;
	unsigned long flags;

	local_irq_save(flags);
	head = this_cpu_ptr(headp);
''', '''	struct tasklet_head *head;
	unsigned long flags;

	if (crashdump_mode()) {
		diskdump_tasklet_schedule(t);
		return;
	}

	local_irq_save(flags);
	head = this_cpu_ptr(headp);
''')

patch('0001-timers-tasklets-crashdump-mode.patch',
      'timers, softirq: divert timers and tasklets to diskdump in crashdump mode',
      '''
While diskdump writes a crash dump, interrupts are off and the other CPUs
are stopped, so neither the timer wheel nor the tasklet softirq will run
again.  The drivers that do the dump I/O still arm timers and schedule
tasklets as they always do.

Add one branch at the top of __mod_timer(), __timer_delete(),
__try_to_del_timer_sync() and __tasklet_schedule_common(): in crashdump
mode the call goes to diskdump, which keeps the timers and tasklets on
private lists and runs them from its poll loop.  Drivers are unchanged.
Outside crashdump mode the cost is one predictable, not-taken branch on
a read-mostly variable; with CONFIG_DISKDUMP=n crashdump_mode() is a
constant false and the code is as before.

crashdump_detach_wheel_timer() lets diskdump take a timer that was armed
before the panic off its wheel, trying the base lock rather than waiting
for it.
''', ['kernel/time/timer.c', 'kernel/softirq.c'], p_timers)

def p_core():
    edit('kernel/panic.c', '#include <linux/seq_buf.h>\n',
         '#include <linux/seq_buf.h>\n#include <linux/diskdump.h>\n')
    edit('kernel/panic.c', '''	int old_cpu, this_cpu;
	bool _crash_kexec_post_notifiers = crash_kexec_post_notifiers;
''', '''	int old_cpu, this_cpu;
	bool _crash_kexec_post_notifiers = crash_kexec_post_notifiers;
	bool cpus_stopped;
''')
    edit('kernel/panic.c', '''	if (!_crash_kexec_post_notifiers)
		__crash_kexec(NULL);

	panic_other_cpus_shutdown(_crash_kexec_post_notifiers);
''', '''	if (!_crash_kexec_post_notifiers)
		__crash_kexec(NULL);

	/*
	 * No kdump kernel took over: write the dump to a dump partition.
	 * diskdump stops the other CPUs the way kdump does, so they must
	 * not be stopped a second time with smp_send_stop().
	 */
	cpus_stopped = diskdump_panic(buf);

	panic_other_cpus_shutdown(_crash_kexec_post_notifiers || cpus_stopped);
''')
    edit('drivers/block/Kconfig', '''source "drivers/block/rnbd/Kconfig"

endif # BLK_DEV
''', '''source "drivers/block/rnbd/Kconfig"

config DISKDUMP
	bool "Crash dumps to a disk partition (diskdump)"
	depends on CRASH_DUMP && KALLSYMS && PROC_FS
	select CRC32
	help
	  At panic, write the memory of the kernel, the registers of every
	  CPU and VMCOREINFO to a dedicated dump partition, by polling the
	  disk with interrupts off and the other CPUs stopped.  Unlike kdump
	  it needs no second kernel and no memory reserved with
	  crashkernel=.  After the reboot, savecore(8) turns the partition
	  into a core file that crash(8) and gdb open.

	  Partitions are configured at run time through /proc/diskdump and
	  must first be formatted with diskdumpfmt(8): diskdump writes only
	  to blocks that carry its format signature, so it never
	  overwrites a filesystem.  A disk needs a dump driver, such as
	  SCSI_DUMP.  See Documentation/diskdump.txt.

	  This option is built in only: it hooks panic(), timers and
	  tasklets.  If unsure, say N.

config DISKDUMP_ENCRYPT
	bool "Encrypted crash dumps"
	depends on DISKDUMP
	select CRYPTO
	select CRYPTO_RSA
	select CRYPTO_LIB_CHACHA_GENERIC
	select CRYPTO_LIB_POLY1305_GENERIC
	select CRYPTO_LIB_SHA256
	help
	  Let the admin give diskdump an RSA public key ("key HEX" in
	  /proc/diskdump).  diskdump then makes a random dump key, keeps
	  only its RSA-wrapped copy for the dump header, and at panic
	  encrypts every block of the dump with ChaCha20 and seals it with
	  Poly1305.  savecore(8) needs the private key to decode the dump
	  and reports a wrong key or an altered dump.  With
	  lockdown=confidentiality only encrypted dumps can be armed.

	  If unsure, say Y if you say Y to DISKDUMP.

config DISKDUMP_TEST
	bool "diskdump test hooks"
	depends on DISKDUMP
	help
	  Fault injection for diskdump's tests: "test ..." commands in
	  /proc/diskdump that corrupt a byte the panic-time self check
	  covers, oops, panic from a hard interrupt, or panic a second time
	  during the dump, and (with SCSI_DUMP) a scsi_mod parameter that
	  makes a CPU hold a SCSI host lock for good.  Any of them crashes
	  the machine or stops it from dumping.  For testing only: say N.

config DISKDUMP_KUNIT_TEST
	bool "KUnit tests of diskdump's crashdump mode" if !KUNIT_ALL_TESTS
	depends on DISKDUMP && KUNIT=y
	default KUNIT_ALL_TESTS
	help
	  KUnit tests of the timers and tasklets that diskdump runs while
	  dumping, and of its self check.  They run at boot.

	  If unsure, say N.

endif # BLK_DEV
''')
    edit('drivers/block/Makefile', '''obj-$(CONFIG_BLK_DEV_UBLK)			+= ublk_drv.o
''', '''obj-$(CONFIG_BLK_DEV_UBLK)			+= ublk_drv.o

obj-$(CONFIG_DISKDUMP)		+= diskdump.o
''')

def p_core_lockdown():
    p_core()
    edit('include/linux/security.h', '''	LOCKDOWN_XFRM_SECRET,
	LOCKDOWN_CONFIDENTIALITY_MAX,
''', '''	LOCKDOWN_XFRM_SECRET,
	LOCKDOWN_DISKDUMP,
	LOCKDOWN_CONFIDENTIALITY_MAX,
''')
    edit('security/security.c', '''	[LOCKDOWN_XFRM_SECRET] = "xfrm SA secret",
''', '''	[LOCKDOWN_XFRM_SECRET] = "xfrm SA secret",
	[LOCKDOWN_DISKDUMP] = "unencrypted crash dumps to disk",
''')

patch('0002-diskdump-core.patch',
      'block: diskdump, crash dumps to a disk partition',
      '''
Add CONFIG_DISKDUMP and call diskdump_panic() from vpanic() right after
the kdump hook.  When no crash kernel is loaded and a dump partition is
configured, diskdump stops the other CPUs as kdump does (NMI shootdown,
registers saved with crash_save_cpu()), checks a checksum of its own
code and data, and writes the memory image to the first configured
partition that passes the driver's sanity check, quiesce, and a check
of the format signature of every block.  Then panic() goes on as usual.

The core lives in drivers/block/diskdump.c, the interface for dump
drivers in include/linux/diskdump.h, and the on-disk format in
include/uapi/linux/diskdump.h.

A dump holds all of memory in clear, so arming a partition is a
confidentiality lockdown reason (LOCKDOWN_DISKDUMP): with
lockdown=confidentiality it is refused.
''', ['kernel/panic.c', 'drivers/block/Kconfig', 'drivers/block/Makefile',
      'include/linux/security.h', 'security/security.c'], p_core_lockdown)

def p_scsi():
    edit('include/scsi/scsi_cmnd.h', '''	SUBMITTED_BY_SCSI_RESET_IOCTL = 2,
''', '''	SUBMITTED_BY_SCSI_RESET_IOCTL = 2,
	SUBMITTED_BY_SCSI_DUMP = 3,
''')
    edit('include/scsi/scsi_host.h', '''	int (* eh_host_reset_handler)(struct scsi_cmnd *);

''', '''	int (* eh_host_reset_handler)(struct scsi_cmnd *);

	/*
	 * Crash dump hooks (CONFIG_SCSI_DUMP), called at panic time with
	 * interrupts off and the other CPUs stopped: they may not sleep,
	 * allocate or wait without a bound.
	 *
	 * dump_sanity_check: 0 if the host can be used now, e.g. it is not
	 * in the middle of a reset; it must not change the hardware.
	 * dump_quiesce: stop the host's normal work, typically by a bus
	 * reset that completes every command in flight.
	 * dump_poll: do what the interrupt handler would do.
	 * dump_shutdown: optional, after the dump.
	 *
	 * A host with the first three can take dumps through scsi_dump.
	 */
	int (*dump_sanity_check)(struct scsi_device *sdev);
	int (*dump_quiesce)(struct scsi_device *sdev);
	int (*dump_shutdown)(struct scsi_device *sdev);
	void (*dump_poll)(struct scsi_device *sdev);

''')
    edit('drivers/scsi/scsi_lib.c', '#include <linux/blk-integrity.h>\n',
         '#include <linux/blk-integrity.h>\n#include <linux/diskdump.h>\n')
    edit('drivers/scsi/scsi_lib.c', '#include <scsi/scsi_dh.h>\n',
         '#include <scsi/scsi_dh.h>\n#include <scsi/scsi_dump.h>\n')
    edit('drivers/scsi/scsi_lib.c', '''	struct request *req = scsi_cmd_to_rq(cmd);

	switch (cmd->submitter) {
	case SUBMITTED_BY_BLOCK_LAYER:
''', '''	struct request *req = scsi_cmd_to_rq(cmd);

	if (crashdump_mode()) {
		/* Only dump commands complete now: the block layer is gone. */
		if (cmd->submitter == SUBMITTED_BY_SCSI_DUMP)
			scsi_dump_done(cmd);
		return;
	}

	switch (cmd->submitter) {
	case SUBMITTED_BY_BLOCK_LAYER:
''')
    edit('drivers/scsi/scsi_lib.c', '''	case SUBMITTED_BY_SCSI_RESET_IOCTL:
		return;
	}
''', '''	case SUBMITTED_BY_SCSI_RESET_IOCTL:
	case SUBMITTED_BY_SCSI_DUMP:
		return;
	}
''')
    edit('drivers/scsi/scsi.c', '#include <scsi/scsi_driver.h>\n',
         '#include <scsi/scsi_driver.h>\n#include <scsi/scsi_dump.h>\n')
    edit('drivers/scsi/scsi.c', '''	scsi_netlink_init();

	printk(KERN_NOTICE "SCSI subsystem initialized\\n");
''', '''	scsi_netlink_init();
	scsi_dump_init();

	printk(KERN_NOTICE "SCSI subsystem initialized\\n");
''')
    edit('drivers/scsi/scsi.c', '''static void __exit exit_scsi(void)
{
	scsi_netlink_exit();
''', '''static void __exit exit_scsi(void)
{
	scsi_dump_exit();
	scsi_netlink_exit();
''')
    edit('drivers/scsi/Kconfig', '''config SCSI_PROC_FS
''', '''config SCSI_DUMP
	bool "SCSI disks as diskdump devices"
	depends on SCSI && DISKDUMP && BLK_DEV_SD
	default y
	help
	  Let diskdump write crash dumps to SCSI disks, by polling host
	  adapters whose drivers provide the dump hooks of the SCSI host
	  template (sym53c8xx_2, aic7xxx, aic79xx, and libata hosts with
	  ATA_DUMP).  It is part of the SCSI mid layer module.

	  If you use diskdump with SCSI disks, say Y.

config SCSI_PROC_FS
''')
    edit('drivers/scsi/Makefile', '''scsi_mod-y			+= scsi_trace.o scsi_logging.o
''', '''scsi_mod-y			+= scsi_trace.o scsi_logging.o
scsi_mod-$(CONFIG_SCSI_DUMP)	+= scsi_dump.o
''')

patch('0003-scsi-dump-hooks.patch',
      'scsi: dump hooks in the host template and the scsi_dump shim',
      '''
Add dump_sanity_check, dump_quiesce, dump_poll and dump_shutdown to
struct scsi_host_template, and scsi_dump, which implements diskdump's
device operations for SCSI disks on top of them: it builds its own READ,
WRITE and SYNCHRONIZE CACHE commands in a request allocated at
configuration time, queues them with the host's queuecommand and polls
the host until they complete, with a bounded wait.

In crashdump mode scsi_done() hands dump commands to scsi_dump and
drops every other completion: the block layer must not run after panic.
''', ['include/scsi/scsi_cmnd.h', 'include/scsi/scsi_host.h', 'drivers/scsi/scsi_lib.c',
      'drivers/scsi/scsi.c', 'drivers/scsi/Kconfig', 'drivers/scsi/Makefile'], p_scsi)

def p_sym():
    edit('drivers/scsi/sym53c8xx_2/sym_glue.c', '''/*
 *  What the eh thread wants us to perform.
 */
''', '''#ifdef CONFIG_SCSI_DUMP
/*
 *  Crash dump hooks: called at panic time with interrupts off and the
 *  other CPUs stopped (see scsi_dump.c).
 */
static int sym53c8xx_dump_sanity_check(struct scsi_device *sdev)
{
	struct sym_data *sym_data = shost_priv(sdev->host);

	if (pci_channel_offline(sym_data->pdev))
		return -EIO;
	/* A host reset waiting for PCI recovery owns the chip. */
	if (sym_data->io_reset)
		return -EBUSY;
	return 0;
}

static int sym53c8xx_dump_quiesce(struct scsi_device *sdev)
{
	struct Scsi_Host *shost = sdev->host;
	struct sym_hcb *np = sym_get_hcb(shost);
	unsigned long flags;

	/*
	 *  Reset the bus as the eh bus reset does: the commands in flight
	 *  complete with DID_RESET (and crashdump mode drops them).  Re-arm
	 *  our timer, which diskdump now runs: it ends the settle time.
	 */
	spin_lock_irqsave(shost->host_lock, flags);
	sym_reset_scsi_bus(np, 1);
	mod_timer(&np->s.timer, jiffies + SYM_CONF_TIMER_INTERVAL);
	spin_unlock_irqrestore(shost->host_lock, flags);
	return 0;
}

static void sym53c8xx_dump_poll(struct scsi_device *sdev)
{
	sym53c8xx_intr(0, sdev->host);
}
#endif

/*
 *  What the eh thread wants us to perform.
 */
''')
    edit('drivers/scsi/sym53c8xx_2/sym_glue.c', '''	.eh_host_reset_handler	= sym53c8xx_eh_host_reset_handler,
	.this_id		= 7,
''', '''	.eh_host_reset_handler	= sym53c8xx_eh_host_reset_handler,
#ifdef CONFIG_SCSI_DUMP
	.dump_sanity_check	= sym53c8xx_dump_sanity_check,
	.dump_quiesce		= sym53c8xx_dump_quiesce,
	.dump_poll		= sym53c8xx_dump_poll,
#endif
	.this_id		= 7,
''')

patch('0004-sym53c8xx-dump-hooks.patch',
      'scsi: sym53c8xx_2: crash dump hooks',
      '''
Let diskdump write crash dumps through sym53c8xx_2 hosts.  Quiesce
resets the SCSI bus the way the eh bus reset handler does and re-arms
the driver timer, which ends the settle time after the reset; in
crashdump mode diskdump runs that timer from its poll loop.  Poll runs
the interrupt handler.

This is the parallel SCSI HBA that QEMU emulates (lsi53c895a), on which
the diskdump tests run.
''', ['drivers/scsi/sym53c8xx_2/sym_glue.c'], p_sym)

def p_maintainers():
    edit('MAINTAINERS', '''DISKQUOTA
''', '''DISKDUMP CRASH DUMPS TO A DISK PARTITION
M:	diskdump developers <diskdump@lists.example.org>
L:	linux-kernel@vger.kernel.org
S:	Maintained
F:	Documentation/diskdump.txt
F:	drivers/ata/libata-dump.c
F:	drivers/block/diskdump.c
F:	drivers/block/diskdump_test.c
F:	drivers/nvme/host/pci-dump.c
F:	drivers/nvme/host/pci-dump.h
F:	drivers/scsi/aic7xxx/aic79xx_dump.c
F:	drivers/scsi/aic7xxx/aic7xxx_dump.c
F:	drivers/scsi/scsi_dump.c
F:	include/linux/diskdump.h
F:	include/scsi/scsi_dump.h
F:	include/uapi/linux/diskdump.h
F:	tools/diskdump/

DISKQUOTA
''')

patch('0005-maintainers-diskdump.patch',
      'MAINTAINERS: add an entry for diskdump',
      '''
diskdump, its SCSI shim, the dump code of libata, nvme-pci, aic7xxx and
aic79xx, the on-disk format header, its documentation and the user-space
tools in tools/diskdump.
''', ['MAINTAINERS'], p_maintainers)

def p_libata():
    edit('include/linux/libata.h', '''	int			em_message_type;
	void			*private_data;

#ifdef CONFIG_ATA_ACPI
	struct ata_acpi_gtm	__acpi_init_gtm; /* use ata_acpi_init_gtm() */
#endif
};
''', '''	int			em_message_type;
	void			*private_data;

#ifdef CONFIG_ATA_DUMP
	/* how diskdump polls the port: its interrupt handler */
	struct {
		irq_handler_t	handler;
		void		*dev_id;
		int		irq;
	} dump_irq;
#endif

#ifdef CONFIG_ATA_ACPI
	struct ata_acpi_gtm	__acpi_init_gtm; /* use ata_acpi_init_gtm() */
#endif
};
''')
    edit('include/linux/libata.h', '''#define __ATA_BASE_SHT(drv_name)				\\
	.module			= THIS_MODULE,			\\
	.name			= drv_name,			\\
	.ioctl			= ata_scsi_ioctl,		\\
	ATA_SCSI_COMPAT_IOCTL					\\
''', '''#ifdef CONFIG_ATA_DUMP
int ata_scsi_dump_sanity_check(struct scsi_device *sdev);
int ata_scsi_dump_quiesce(struct scsi_device *sdev);
void ata_scsi_dump_poll(struct scsi_device *sdev);

/* Remember the interrupt handler of @ap, which diskdump polls at panic. */
static inline void ata_port_set_dump_irq(struct ata_port *ap, int irq,
					 irq_handler_t handler, void *dev_id)
{
	ap->dump_irq.irq = irq;
	ap->dump_irq.handler = handler;
	ap->dump_irq.dev_id = dev_id;
}

#define ATA_DUMP_SHT						\\
	.dump_sanity_check	= ata_scsi_dump_sanity_check,	\\
	.dump_quiesce		= ata_scsi_dump_quiesce,	\\
	.dump_poll		= ata_scsi_dump_poll,
#else
static inline void ata_port_set_dump_irq(struct ata_port *ap, int irq,
					 irq_handler_t handler, void *dev_id)
{
}

#define ATA_DUMP_SHT /* empty */
#endif

#define __ATA_BASE_SHT(drv_name)				\\
	.module			= THIS_MODULE,			\\
	.name			= drv_name,			\\
	.ioctl			= ata_scsi_ioctl,		\\
	ATA_SCSI_COMPAT_IOCTL					\\
	ATA_DUMP_SHT						\\
''')
    edit('drivers/ata/libata-core.c', '#include <linux/libata.h>\n',
         '#include <linux/libata.h>\n#include <linux/diskdump.h>\n')
    edit('drivers/ata/libata-core.c', '''	/* Trigger the LED (if available) */
	ledtrig_disk_activity(!!(qc->tf.flags & ATA_TFLAG_WRITE));
''', '''	/*
	 * Trigger the LED (if available), but not after a panic: the LED
	 * code takes locks that a stopped CPU may hold.
	 */
	if (!crashdump_mode())
		ledtrig_disk_activity(!!(qc->tf.flags & ATA_TFLAG_WRITE));
''')
    edit('drivers/ata/libata-core.c', '''	/* Non-internal qc has failed.  Fill the result TF and summon EH. */
	if (unlikely(qc->flags & ATA_QCFLAG_EH)) {
		fill_result_tf(qc);
		trace_ata_qc_complete_failed(qc);
		ata_qc_schedule_eh(qc);
		return;
	}
''', '''	/* Non-internal qc has failed.  Fill the result TF and summon EH. */
	if (unlikely(qc->flags & ATA_QCFLAG_EH)) {
		fill_result_tf(qc);
		trace_ata_qc_complete_failed(qc);
		/*
		 * No EH after a panic: diskdump's command fails with the
		 * sense made from the result TF.
		 */
		if (crashdump_mode()) {
			__ata_qc_complete(qc);
			return;
		}
		ata_qc_schedule_eh(qc);
		return;
	}
''')
    edit('drivers/ata/libata-core.c', '''	for (i = 0; i < host->n_ports; i++)
		ata_port_desc_misc(host->ports[i], irq);

	rc = ata_host_register(host, sht);
''', '''	for (i = 0; i < host->n_ports; i++) {
		ata_port_desc_misc(host->ports[i], irq);
		ata_port_set_dump_irq(host->ports[i], irq, irq_handler, host);
	}

	rc = ata_host_register(host, sht);
''')
    edit('drivers/ata/libata-eh.c', '#include <linux/libata.h>\n',
         '#include <linux/libata.h>\n#include <linux/diskdump.h>\n')
    edit('drivers/ata/libata-eh.c', '''void ata_port_schedule_eh(struct ata_port *ap)
{
	/* see: ata_std_sched_eh, unless you know better */
''', '''void ata_port_schedule_eh(struct ata_port *ap)
{
	/* The EH thread never runs again after a panic. */
	if (crashdump_mode())
		return;
	/* see: ata_std_sched_eh, unless you know better */
''')
    edit('drivers/ata/libata-sff.c', '''		for (i = 0; i < 2; i++) {
			if (ata_port_is_dummy(host->ports[i]))
				continue;
			ata_port_desc_misc(host->ports[i], pdev->irq);
		}
''', '''		for (i = 0; i < 2; i++) {
			if (ata_port_is_dummy(host->ports[i]))
				continue;
			ata_port_desc_misc(host->ports[i], pdev->irq);
			ata_port_set_dump_irq(host->ports[i], pdev->irq,
					      irq_handler, host);
		}
''')
    edit('drivers/ata/libata-sff.c', '''			ata_port_desc_misc(host->ports[0],
					   ATA_PRIMARY_IRQ(pdev));
''', '''			ata_port_desc_misc(host->ports[0],
					   ATA_PRIMARY_IRQ(pdev));
			ata_port_set_dump_irq(host->ports[0],
					      ATA_PRIMARY_IRQ(pdev),
					      irq_handler, host);
''')
    edit('drivers/ata/libata-sff.c', '''			ata_port_desc_misc(host->ports[1],
					   ATA_SECONDARY_IRQ(pdev));
''', '''			ata_port_desc_misc(host->ports[1],
					   ATA_SECONDARY_IRQ(pdev));
			ata_port_set_dump_irq(host->ports[1],
					      ATA_SECONDARY_IRQ(pdev),
					      irq_handler, host);
''')
    edit('drivers/ata/libahci.c', '''		if (rc)
			goto free_irqs;
		ata_port_desc_misc(host->ports[i], irq);
''', '''		if (rc)
			goto free_irqs;
		ata_port_desc_misc(host->ports[i], irq);
		ata_port_set_dump_irq(host->ports[i], irq,
				      ahci_multi_irqs_intr_hard, host->ports[i]);
''')
    edit('drivers/ata/Kconfig', '''config ATA_ACPI
	bool "ATA ACPI Support"
''', '''config ATA_DUMP
	bool "ATA disks as diskdump devices"
	depends on SCSI_DUMP
	default y
	help
	  Let diskdump write crash dumps to disks behind libata hosts
	  (AHCI, ata_piix and the other drivers that request their
	  interrupt through libata), by calling the port's interrupt
	  handler from diskdump's poll loop.  The disk must use DMA.

	  If you use diskdump with SATA or IDE disks, say Y.

config ATA_ACPI
	bool "ATA ACPI Support"
''')
    edit('drivers/ata/Makefile', '''libata-$(CONFIG_ATA_ACPI)	+= libata-acpi.o
''', '''libata-$(CONFIG_ATA_ACPI)	+= libata-acpi.o
libata-$(CONFIG_ATA_DUMP)	+= libata-dump.o
''')

patch('0006-libata-dump-hooks.patch',
      'ata: libata: crash dump hooks for every libata host',
      '''
libata disks are SCSI disks, so diskdump reaches them through scsi_dump.
Give every libata host template (ATA_BASE_SHT) the SCSI dump hooks:
sanity check refuses a port whose lock is held or that error handling
owns, quiesce waits, with a bound, for the commands in flight to finish,
and poll calls the port's interrupt handler, which libata now records
when it requests the interrupt (ata_host_activate(),
ata_pci_sff_activate_host(), AHCI's per-port MSI vectors).

In crashdump mode a failed command completes with its error instead of
summoning EH, and EH is never scheduled: the EH thread does not run
again after the panic, and the dump command has no block layer request
to abort.  The disk activity LED trigger is skipped: it takes locks that
a stopped CPU may hold.
''', ['include/linux/libata.h', 'drivers/ata/libata-core.c', 'drivers/ata/libata-eh.c',
      'drivers/ata/libata-sff.c', 'drivers/ata/libahci.c', 'drivers/ata/Kconfig',
      'drivers/ata/Makefile'], p_libata)
def p_nvme():
    edit('drivers/nvme/host/pci.c', '''#include "trace.h"
#include "nvme.h"
''', '''#include "trace.h"
#include "nvme.h"
#include "pci-dump.h"
''')
    edit('drivers/nvme/host/pci.c', '''	unsigned int nr_allocated_queues;
	unsigned int nr_write_queues;
	unsigned int nr_poll_queues;
};
''', '''	unsigned int nr_allocated_queues;
	unsigned int nr_write_queues;
	unsigned int nr_poll_queues;
	unsigned int dump_qid;		/* set aside for crash dumps, or 0 */
};
''')
    edit('drivers/nvme/host/pci.c', '''	if (dev->ctrl.quirks & NVME_QUIRK_SHARED_TAGS)
		return 1;
	return num_possible_cpus() + dev->nr_write_queues + dev->nr_poll_queues;
}
''', '''	if (dev->ctrl.quirks & NVME_QUIRK_SHARED_TAGS)
		return 1;
	return num_possible_cpus() + dev->nr_write_queues + dev->nr_poll_queues +
	       NVME_DUMP_QUEUES;
}

/*
 * Keep the last I/O queue the controller granted for crash dumps
 * (pci-dump.c), if there are at least two.  Returns how many are left for
 * the block layer.
 */
static unsigned int nvme_reserve_dump_queue(struct nvme_dev *dev,
					    unsigned int nr_io_queues)
{
	dev->dump_qid = 0;
	if (!NVME_DUMP_QUEUES || nr_io_queues < 2)
		return nr_io_queues;
	dev->dump_qid = nr_io_queues;
	return nr_io_queues - 1;
}
''')
    edit('drivers/nvme/host/pci.c', '''	adminq->q_db = dev->dbs;
''', '''	adminq->q_db = dev->dbs;
	nr_io_queues = nvme_reserve_dump_queue(dev, nr_io_queues);
''')
    edit('drivers/nvme/host/pci.c', '''	bool dead;

	mutex_lock(&dev->shutdown_lock);
	dead = nvme_pci_ctrl_is_dead(dev);
''', '''	bool dead;

	mutex_lock(&dev->shutdown_lock);
	nvme_dump_ctrl_disabled(&dev->ctrl);
	dead = nvme_pci_ctrl_is_dead(dev);
''')
    edit('drivers/nvme/host/pci.c', '''	nvme_start_ctrl(&dev->ctrl);
	return;

 out_unlock:
''', '''	nvme_start_ctrl(&dev->ctrl);
	nvme_dump_ctrl_live(&dev->ctrl);
	return;

 out_unlock:
''')
    edit('drivers/nvme/host/pci.c', '''	.supports_pci_p2pdma	= nvme_pci_supports_pci_p2pdma,
};
''', '''	.supports_pci_p2pdma	= nvme_pci_supports_pci_p2pdma,
};

#ifdef CONFIG_NVME_DUMP
/**
 * nvme_pci_dump_queue - where the crash dump queue pair of @ctrl lives
 * @ctrl: an NVMe controller
 * @q: filled in
 *
 * Return: 0, -ENODEV if @ctrl is not a PCIe controller, -ENOSPC if it
 * granted too few queues to set one aside.
 */
int nvme_pci_dump_queue(struct nvme_ctrl *ctrl, struct nvme_dump_queue *q)
{
	struct nvme_dev *dev;

	if (ctrl->ops != &nvme_pci_ctrl_ops)
		return -ENODEV;
	dev = to_nvme_dev(ctrl);
	if (!dev->dump_qid)
		return -ENOSPC;
	q->dma_dev = dev->dev;
	q->bar = dev->bar;
	q->qid = dev->dump_qid;
	q->sq_db = &dev->dbs[sq_idx(q->qid, dev->db_stride)];
	q->cq_db = &dev->dbs[cq_idx(q->qid, dev->db_stride)];
	q->shadow_sq = NULL;
	q->shadow_cq = NULL;
	if (dev->dbbuf_dbs) {
		q->shadow_sq = &dev->dbbuf_dbs[sq_idx(q->qid, dev->db_stride)];
		q->shadow_cq = &dev->dbbuf_dbs[cq_idx(q->qid, dev->db_stride)];
	}
	return 0;
}
#endif
''')
    edit('drivers/nvme/host/pci.c', '''	BUILD_BUG_ON(nvme_pci_npages_prp() > NVME_MAX_NR_ALLOCATIONS);

	return pci_register_driver(&nvme_driver);
}

static void __exit nvme_exit(void)
{
	pci_unregister_driver(&nvme_driver);
''', '''	BUILD_BUG_ON(nvme_pci_npages_prp() > NVME_MAX_NR_ALLOCATIONS);

	ret = nvme_dump_init();
	if (ret)
		return ret;
	ret = pci_register_driver(&nvme_driver);
	if (ret)
		nvme_dump_exit();
	return ret;
}

static void __exit nvme_exit(void)
{
	nvme_dump_exit();
	pci_unregister_driver(&nvme_driver);
''')
    edit('drivers/nvme/host/pci.c', '''static int __init nvme_init(void)
{
	BUILD_BUG_ON''', '''static int __init nvme_init(void)
{
	int ret;

	BUILD_BUG_ON''')
    edit('drivers/nvme/host/core.c', '''	.report_zones	= nvme_report_zones,
	.pr_ops		= &nvme_pr_ops,
};
''', '''	.report_zones	= nvme_report_zones,
	.pr_ops		= &nvme_pr_ops,
};
EXPORT_SYMBOL_GPL(nvme_bdev_ops);
''')
    edit('drivers/nvme/host/Kconfig', '''config NVME_MULTIPATH
''', '''config NVME_DUMP
	bool "NVMe namespaces as diskdump devices"
	depends on BLK_DEV_NVME && DISKDUMP
	default y
	help
	  Let diskdump write crash dumps to NVMe namespaces of PCIe
	  controllers.  The driver asks the controller for one I/O queue
	  more than it uses and keeps it for dumps: at panic the dump is
	  written through that queue pair by polling, whatever the other
	  queues had in flight.  Namespaces behind a native multipath
	  node cannot be dump devices.

	  If you use diskdump with NVMe disks, say Y.

config NVME_MULTIPATH
''')
    edit('drivers/nvme/host/Makefile', '''nvme-y					+= pci.o
''', '''nvme-y					+= pci.o
nvme-$(CONFIG_NVME_DUMP)		+= pci-dump.o
''')

patch('0007-nvme-dump-queue.patch',
      'nvme-pci: a queue pair set aside for crash dumps',
      '''
Let diskdump write crash dumps to NVMe namespaces.  The PCI driver asks
the controller for one I/O queue more than it uses and keeps the last
granted queue identifier free.  When a dump partition on the controller
is configured, pci-dump.c creates that queue pair, without an interrupt,
with a data buffer and a PRP list of its own; at panic the dump is
written through it by polling its completion queue, so whatever the
block layer had in flight on the other queues does not matter.  Shadow
doorbells are written when the controller uses them.

A controller reset deletes every queue: nvme_dev_disable() marks the
dump queue gone, and the reset work creates it again once the
controller is live.

nvme_bdev_ops is exported so that the dump code recognises the
namespaces' disks when nvme and nvme-core are modules.
''', ['drivers/nvme/host/pci.c', 'drivers/nvme/host/core.c', 'drivers/nvme/host/Kconfig',
      'drivers/nvme/host/Makefile'], p_nvme)
def p_aic7xxx():
    edit('drivers/scsi/aic7xxx/aic7xxx_osm.h', '''irqreturn_t
	ahc_linux_isr(int irq, void *dev_id);
''', '''irqreturn_t
	ahc_linux_isr(int irq, void *dev_id);
#ifdef CONFIG_SCSI_DUMP
int	ahc_linux_dump_sanity_check(struct scsi_device *sdev);
int	ahc_linux_dump_quiesce(struct scsi_device *sdev);
void	ahc_linux_dump_poll(struct scsi_device *sdev);
#endif
''')
    edit('drivers/scsi/aic7xxx/aic7xxx_osm.c', '''	.eh_bus_reset_handler	= ahc_linux_bus_reset,
''', '''	.eh_bus_reset_handler	= ahc_linux_bus_reset,
#ifdef CONFIG_SCSI_DUMP
	.dump_sanity_check	= ahc_linux_dump_sanity_check,
	.dump_quiesce		= ahc_linux_dump_quiesce,
	.dump_poll		= ahc_linux_dump_poll,
#endif
''')
    edit('drivers/scsi/aic7xxx/Makefile', '''aic7xxx-$(CONFIG_PCI)				+= aic7xxx_osm_pci.o
''', '''aic7xxx-$(CONFIG_PCI)				+= aic7xxx_osm_pci.o
aic7xxx-$(CONFIG_SCSI_DUMP)			+= aic7xxx_dump.o
''')

patch('0008-aic7xxx-dump-hooks.patch',
      'scsi: aic7xxx: crash dump hooks',
      '''
Let diskdump write crash dumps through aic7xxx hosts.  Sanity check
refuses the host when the driver lock is held, the controller queue is
frozen for recovery or the card reads all ones; quiesce resets the bus
as the eh bus reset handler does, which completes every SCB in flight;
poll runs the interrupt handler.

Compile-tested only: QEMU has no model of these controllers.
''', ['drivers/scsi/aic7xxx/aic7xxx_osm.h', 'drivers/scsi/aic7xxx/aic7xxx_osm.c',
      'drivers/scsi/aic7xxx/Makefile'], p_aic7xxx)

def p_aic79xx():
    edit('drivers/scsi/aic7xxx/aic79xx_osm.h', '''irqreturn_t
	ahd_linux_isr(int irq, void *dev_id);
''', '''irqreturn_t
	ahd_linux_isr(int irq, void *dev_id);
#ifdef CONFIG_SCSI_DUMP
int	ahd_linux_dump_sanity_check(struct scsi_device *sdev);
int	ahd_linux_dump_quiesce(struct scsi_device *sdev);
void	ahd_linux_dump_poll(struct scsi_device *sdev);
#endif
''')
    edit('drivers/scsi/aic7xxx/aic79xx_osm.c', '''	.eh_bus_reset_handler	= ahd_linux_bus_reset,
''', '''	.eh_bus_reset_handler	= ahd_linux_bus_reset,
#ifdef CONFIG_SCSI_DUMP
	.dump_sanity_check	= ahd_linux_dump_sanity_check,
	.dump_quiesce		= ahd_linux_dump_quiesce,
	.dump_poll		= ahd_linux_dump_poll,
#endif
''')
    edit('drivers/scsi/aic7xxx/Makefile', '''aic79xx-y					+= aic79xx_osm.o	\\
						   aic79xx_proc.o	\\
						   aic79xx_osm_pci.o
''', '''aic79xx-y					+= aic79xx_osm.o	\\
						   aic79xx_proc.o	\\
						   aic79xx_osm_pci.o
aic79xx-$(CONFIG_SCSI_DUMP)			+= aic79xx_dump.o
''')

patch('0009-aic79xx-dump-hooks.patch',
      'scsi: aic79xx: crash dump hooks',
      '''
Let diskdump write crash dumps through aic79xx hosts.  Sanity check
refuses the host when the driver lock is held or the card reads all
ones; quiesce resets the bus as the eh bus reset handler does, which
completes every SCB in flight, after clearing a stale "bus reset active"
flag that would make ahd_reset_channel() do nothing; poll runs the
interrupt handler.

Compile-tested only: QEMU has no model of these controllers.
''', ['drivers/scsi/aic7xxx/aic79xx_osm.h', 'drivers/scsi/aic7xxx/aic79xx_osm.c',
      'drivers/scsi/aic7xxx/Makefile'], p_aic79xx)
