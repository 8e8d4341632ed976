// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libata-dump.c - crash dumps to ATA disks (diskdump)
 *
 * libata disks are SCSI disks to the rest of the kernel, so diskdump reaches
 * them through scsi_dump: these are the SCSI host template's dump hooks for
 * every libata host (ATA_BASE_SHT).  They run at panic time, with
 * interrupts off and the other CPUs stopped.
 *
 * Polling means calling the port's interrupt handler, which libata records
 * when it requests the interrupt (ata_port_set_dump_irq()).  Quiesce does
 * not reset anything: libata's resets sleep.  It waits, with a bound, for
 * the commands in flight to complete (their completions are dropped in
 * crashdump mode), and forgets a command that was deferred and never
 * issued.  A port that is in error handling, frozen or still busy after
 * the wait is refused, and diskdump moves on to its next partition.
 */

#include <linux/bitops.h>
#include <linux/diskdump.h>
#include <linux/libata.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include "libata.h"

#define ATA_DUMP_POLL_US	10
#define ATA_DUMP_DRAIN_US	(10 * USEC_PER_SEC)

/* Port states in which something other than the dump owns the port. */
#define ATA_DUMP_BUSY_PFLAGS	(ATA_PFLAG_EH_PENDING | ATA_PFLAG_EH_IN_PROGRESS | \
				 ATA_PFLAG_FROZEN | ATA_PFLAG_SUSPENDED | \
				 ATA_PFLAG_RESUMING | ATA_PFLAG_UNLOADING | \
				 ATA_PFLAG_UNLOADED | ATA_PFLAG_LOADING | \
				 ATA_PFLAG_RESETTING | ATA_PFLAG_INITIALIZING)

static __diskdump_text int
ata_dump_check_port(struct ata_port *ap, struct scsi_device *sdev)
{
	struct ata_device *dev = ata_scsi_find_dev(ap, sdev);

	if (!dev || !ata_dev_enabled(dev))
		return -ENODEV;
	if (ap->pflags & ATA_DUMP_BUSY_PFLAGS) {
		pr_emerg("ata%u: port in error handling or not running (pflags 0x%x)\n",
			 ap->print_id, ap->pflags);
		return -EBUSY;
	}
	/*
	 * SFF hosts move PIO data from a workqueue, which never runs again
	 * after the panic: only DMA transfers work.
	 */
	if (!ata_dma_enabled(dev)) {
		pr_emerg("ata%u: the disk does not use DMA\n", ap->print_id);
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * The port lock is only ever tried, as a stopped CPU may hold it for good:
 * report a lock found taken.
 */
static __diskdump_text int ata_dump_lock_held(struct ata_port *ap)
{
	pr_emerg("ata%u: port lock is held\n", ap->print_id);
	return -EBUSY;
}

/* ata_dump_check_port() under the port lock. */
static __diskdump_text int ata_dump_check_port_locked(struct ata_port *ap,
						      struct scsi_device *sdev)
{
	int ret;

	if (!spin_trylock(ap->lock))
		return ata_dump_lock_held(ap);
	ret = ata_dump_check_port(ap, sdev);
	spin_unlock(ap->lock);
	return ret;
}

/**
 * ata_scsi_dump_sanity_check - can diskdump use this ATA disk now?
 * @sdev: the SCSI device of the disk
 *
 * Called at panic time.  Refuses a port whose interrupt handler is not
 * known, whose lock is held (by a stopped CPU, or by the panicking one),
 * or that error handling owns.  Touches no hardware.
 *
 * Return: 0 or a negative errno.
 */
__diskdump_text int ata_scsi_dump_sanity_check(struct scsi_device *sdev)
{
	struct ata_port *ap = ata_shost_to_port(sdev->host);

	if (!ap->dump_irq.handler) {
		pr_emerg("ata%u: no interrupt handler to poll\n", ap->print_id);
		return -EOPNOTSUPP;
	}
	return ata_dump_check_port_locked(ap, sdev);
}
EXPORT_SYMBOL_GPL(ata_scsi_dump_sanity_check);

/**
 * ata_scsi_dump_poll - do what the port's interrupt would do
 * @sdev: the SCSI device of the disk
 */
__diskdump_text void ata_scsi_dump_poll(struct scsi_device *sdev)
{
	struct ata_port *ap = ata_shost_to_port(sdev->host);

	ap->dump_irq.handler(ap->dump_irq.irq, ap->dump_irq.dev_id);
}
EXPORT_SYMBOL_GPL(ata_scsi_dump_poll);

/* Forget the commands that were deferred and never issued. */
static __diskdump_text void ata_dump_drop_deferred(struct ata_port *ap)
{
	struct ata_link *link;

	ata_for_each_link(link, ap, EDGE) {
		if (link->deferred_qc) {
			ata_qc_free(link->deferred_qc);
			link->deferred_qc = NULL;
		}
	}
}

/**
 * ata_scsi_dump_quiesce - let the commands in flight finish
 * @sdev: the SCSI device of the disk
 *
 * Forgets a command that was deferred and never issued, then polls the
 * port until no command is active, for at most ten seconds.  The
 * completions go nowhere: in crashdump mode scsi_done() drops them.
 *
 * Return: 0, or -EBUSY if the port did not drain or went into error
 * handling meanwhile.
 */
__diskdump_text int ata_scsi_dump_quiesce(struct scsi_device *sdev)
{
	struct ata_port *ap = ata_shost_to_port(sdev->host);
	unsigned long waited;
	u64 active;

	/*
	 * First, so that a command completing while we drain does not hand
	 * the deferred one to a workqueue (ata_scsi_schedule_deferred_qc()).
	 */
	if (!spin_trylock(ap->lock))
		return ata_dump_lock_held(ap);
	ata_dump_drop_deferred(ap);
	spin_unlock(ap->lock);

	active = READ_ONCE(ap->qc_active);
	if (active)
		pr_emerg("ata%u: waiting for %u commands in flight\n",
			 ap->print_id, (unsigned int)hweight64(active));
	for (waited = 0; READ_ONCE(ap->qc_active); waited += ATA_DUMP_POLL_US) {
		if (waited >= ATA_DUMP_DRAIN_US) {
			pr_emerg("ata%u: commands in flight did not finish (0x%llx)\n",
				 ap->print_id, READ_ONCE(ap->qc_active));
			return -EBUSY;
		}
		ata_scsi_dump_poll(sdev);
		diskdump_udelay(ATA_DUMP_POLL_US);
	}
	return ata_dump_check_port_locked(ap, sdev);
}
EXPORT_SYMBOL_GPL(ata_scsi_dump_quiesce);
