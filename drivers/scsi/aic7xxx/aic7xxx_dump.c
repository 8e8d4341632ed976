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

#include <linux/delay.h>
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

/* How long the sequencer may take to pause: it does so within microseconds. */
#define AHC_DUMP_PAUSE_US	100000

/*
 * A critical section of the sequencer program, as aicasm lays out the
 * table in aic7xxx_seq.h_shipped (which only aic7xxx_core.c may include:
 * it defines the program itself).
 */
struct cs {
	u16 begin;
	u16 end;
};

/* Is the paused sequencer inside one of its critical sections? */
static __diskdump_text bool ahc_dump_in_critical_section(struct ahc_softc *ahc)
{
	struct cs *cs = ahc->critical_sections;
	u_int seqaddr, i;

	/* SEQADDR is the next instruction: the one running is before it */
	seqaddr = ahc_inb(ahc, SEQADDR0) | (ahc_inb(ahc, SEQADDR1) << 8);
	if (seqaddr)
		seqaddr--;
	for (i = 0; i < ahc->num_critical_sections; i++, cs++)
		if (cs->begin < seqaddr && cs->end >= seqaddr)
			return true;
	return false;
}

/*
 * Pause the sequencer, waiting AHC_DUMP_PAUSE_US at most, outside its
 * critical sections.  ahc_reset_channel() pauses it with ahc_pause(), which
 * spins until the chip says it paused, and steps it out of a critical
 * section with ahc_clear_critical_section(), which waits for each step
 * without a bound and panics after 2000: once the sequencer is paused here,
 * both return at once.  A sequencer that does not pause, or paused in a
 * critical section, costs this controller the dump, not the machine.
 *
 * Return: 0, -ETIMEDOUT (it did not pause) or -EBUSY (critical section).
 */
static __diskdump_text int ahc_dump_pause(struct ahc_softc *ahc)
{
	unsigned int us;

	ahc_outb(ahc, HCNTRL, ahc->pause);
	for (us = 0; !ahc_is_paused(ahc); us += 5) {
		if (us >= AHC_DUMP_PAUSE_US)
			return -ETIMEDOUT;
		udelay(5);
	}
	return ahc_dump_in_critical_section(ahc) ? -EBUSY : 0;
}

/**
 * ahc_linux_dump_quiesce - reset the disk's bus, dropping what is in flight
 * @sdev: the disk
 *
 * The same reset as the eh bus reset handler, once the sequencer is paused
 * within a bound.  The disk answers again after its reset recovery time,
 * which scsi_dump waits for (TEST UNIT READY).
 *
 * Return: 0, or -EBUSY if the sequencer did not pause where it may be reset.
 */
__diskdump_text int ahc_linux_dump_quiesce(struct scsi_device *sdev)
{
	struct ahc_softc *ahc = ahc_dump_softc(sdev);
	unsigned long flags;
	int found, ret;

	ahc_lock(ahc, &flags);
	ret = ahc_dump_pause(ahc);
	if (ret) {
		ahc_unlock(ahc, &flags);
		pr_emerg("%s: sequencer %s: no reset, no dump through it\n",
			 ahc_name(ahc), ret == -ETIMEDOUT ?
			 "does not pause" : "paused in a critical section");
		return -EBUSY;
	}
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

#if IS_ENABLED(CONFIG_DISKDUMP_KUNIT_TEST)
#include "aic7xxx_dump_test.c"
#endif
