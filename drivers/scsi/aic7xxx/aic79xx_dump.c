// SPDX-License-Identifier: GPL-2.0
/*
 * aic79xx_dump.c - crash dump hooks of the aic79xx driver (diskdump)
 *
 * The SCSI host template's dump hooks, which scsi_dump calls at panic time
 * with interrupts off and the other CPUs stopped.  They reuse the driver's
 * own paths: quiesce is the eh bus reset handler (ahd_reset_channel(),
 * which completes every SCB in flight with CAM_SCSI_BUS_RESET; crashdump
 * mode drops those completions), and poll is the interrupt handler.  The
 * driver's statistics timer is not needed, and not run, while dumping.
 *
 * Compile-tested only: QEMU emulates no Adaptec controller.
 */

#include <linux/diskdump.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include "aic79xx_osm.h"
#include "aic79xx_inline.h"

static __diskdump_text struct ahd_softc
*ahd_dump_softc(struct scsi_device *sdev)
{
	return *(struct ahd_softc **)sdev->host->hostdata;
}

/**
 * ahd_linux_dump_sanity_check - can the controller be used at panic time?
 * @sdev: the disk
 *
 * Refuses when the driver's lock is held (a stopped CPU, or the panicking
 * one, was inside the driver) and when the card reads all ones (it is
 * gone).  Changes nothing on the card: reading INTSTAT has no side effect.
 *
 * Return: 0, -EBUSY or -ENODEV.
 */
__diskdump_text int ahd_linux_dump_sanity_check(struct scsi_device *sdev)
{
	struct ahd_softc *ahd = ahd_dump_softc(sdev);
	int ret = 0;

	if (!spin_trylock(&ahd->platform_data->spin_lock)) {
		pr_emerg("%s: driver lock is held\n", ahd_name(ahd));
		return -EBUSY;
	}
	if (ahd_inb(ahd, INTSTAT) == 0xff) {
		pr_emerg("%s: controller does not answer\n", ahd_name(ahd));
		ret = -ENODEV;
	}
	spin_unlock(&ahd->platform_data->spin_lock);
	return ret;
}

/**
 * ahd_linux_dump_quiesce - reset the bus, dropping what is in flight
 * @sdev: the disk
 *
 * The same reset as the eh bus reset handler.  ahd_reset_channel() does
 * nothing while AHD_BUS_RESET_ACTIVE is set, and only the next SCSI
 * interrupt that is not a reset clears it, so a reset long before the
 * panic may have left it set: clear it, as that interrupt would have.
 * The disk answers again after its reset recovery time, which scsi_dump
 * waits for (TEST UNIT READY).
 *
 * Return: 0, or -EBUSY if the driver still refused to reset.
 */
__diskdump_text int ahd_linux_dump_quiesce(struct scsi_device *sdev)
{
	struct ahd_softc *ahd = ahd_dump_softc(sdev);
	unsigned long flags;
	int found;

	ahd_lock(ahd, &flags);
	ahd->flags &= ~AHD_BUS_RESET_ACTIVE;
	found = ahd_reset_channel(ahd, sdev->channel + 'A',
				  /*initiate reset*/TRUE);
	ahd_unlock(ahd, &flags);
	if (!(ahd->flags & AHD_BUS_RESET_ACTIVE)) {
		pr_emerg("%s: bus reset refused\n", ahd_name(ahd));
		return -EBUSY;
	}
	pr_emerg("%s: bus %c reset, %d commands dropped\n", ahd_name(ahd),
		 sdev->channel + 'A', found);
	return 0;
}

/**
 * ahd_linux_dump_poll - do what the interrupt would do
 * @sdev: the disk
 */
__diskdump_text void ahd_linux_dump_poll(struct scsi_device *sdev)
{
	ahd_linux_isr(0, ahd_dump_softc(sdev));
}
