// SPDX-License-Identifier: GPL-2.0
/*
 * aic7xxx_dump.c - crash dump hooks of the aic7xxx driver (diskdump)
 *
 * The SCSI host template's dump hooks, which scsi_dump calls at panic time
 * with interrupts off and the other CPUs stopped.  They reuse the driver's
 * own paths: quiesce is the eh bus reset handler (ahc_reset_channel(),
 * which completes every SCB in flight with CAM_SCSI_BUS_RESET; crashdump
 * mode drops those completions), and poll is the interrupt handler.
 *
 * Compile-tested only: QEMU emulates no Adaptec controller.
 */

#include <linux/diskdump.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include "aic7xxx_osm.h"
#include "aic7xxx_inline.h"

static __diskdump_text struct ahc_softc
*ahc_dump_softc(struct scsi_device *sdev)
{
	return *(struct ahc_softc **)sdev->host->hostdata;
}

/**
 * ahc_linux_dump_sanity_check - can the controller be used at panic time?
 * @sdev: the disk
 *
 * Refuses when the driver's lock is held (a stopped CPU, or the panicking
 * one, was inside the driver), when the controller queue is frozen for
 * error recovery, and when the card reads all ones (it is gone).  Changes
 * nothing on the card: reading INTSTAT has no side effect.
 *
 * Return: 0, -EBUSY or -ENODEV.
 */
__diskdump_text int ahc_linux_dump_sanity_check(struct scsi_device *sdev)
{
	struct ahc_softc *ahc = ahc_dump_softc(sdev);
	int ret = 0;

	if (!spin_trylock(&ahc->platform_data->spin_lock)) {
		pr_emerg("%s: driver lock is held\n", ahc_name(ahc));
		return -EBUSY;
	}
	if (ahc->platform_data->qfrozen) {
		pr_emerg("%s: queue frozen for recovery\n", ahc_name(ahc));
		ret = -EBUSY;
	} else if (ahc_inb(ahc, INTSTAT) == 0xff) {
		pr_emerg("%s: controller does not answer\n", ahc_name(ahc));
		ret = -ENODEV;
	}
	spin_unlock(&ahc->platform_data->spin_lock);
	return ret;
}

/**
 * ahc_linux_dump_quiesce - reset the disk's bus, dropping what is in flight
 * @sdev: the disk
 *
 * The same reset as the eh bus reset handler.  The disk answers again after
 * its reset recovery time, which scsi_dump waits for (TEST UNIT READY).
 *
 * Return: 0.
 */
__diskdump_text int ahc_linux_dump_quiesce(struct scsi_device *sdev)
{
	struct ahc_softc *ahc = ahc_dump_softc(sdev);
	unsigned long flags;
	int found;

	ahc_lock(ahc, &flags);
	found = ahc_reset_channel(ahc, sdev->channel + 'A',
				  /*initiate reset*/TRUE);
	ahc_unlock(ahc, &flags);
	pr_emerg("%s: bus %c reset, %d commands dropped\n", ahc_name(ahc),
		 sdev->channel + 'A', found);
	return 0;
}

/**
 * ahc_linux_dump_poll - do what the interrupt would do
 * @sdev: the disk
 */
__diskdump_text void ahc_linux_dump_poll(struct scsi_device *sdev)
{
	ahc_linux_isr(0, ahc_dump_softc(sdev));
}
