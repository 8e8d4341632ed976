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

#include <linux/delay.h>
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

/* Bounds, far above what the chip takes: microseconds for each. */
#define AHD_DUMP_PAUSE_US	100000
#define AHD_DUMP_DMA_STOP_US	100000

/*
 * A critical section of the sequencer program, as aicasm lays out the
 * table in aic79xx_seq.h_shipped (which only aic79xx_core.c may include:
 * it defines the program itself).
 */
struct cs {
	u16 begin;
	u16 end;
};

/*
 * Wait @us microseconds at most for @bits of register @port (in the
 * current mode) to read @want.  Return: 0, or -ETIMEDOUT.
 */
static __diskdump_text int
ahd_dump_wait(struct ahd_softc *ahd, u_int port, u8 bits, u8 want,
	      unsigned int us)
{
	unsigned int waited;

	for (waited = 0; (ahd_inb(ahd, port) & bits) != want; waited += 5) {
		if (waited >= us)
			return -ETIMEDOUT;
		udelay(5);
	}
	return 0;
}

/* Is the paused sequencer inside one of its critical sections? */
static __diskdump_text bool ahd_dump_in_critical_section(struct ahd_softc *ahd)
{
	struct cs *cs = ahd->critical_sections;
	u_int seqaddr, i;

	ahd_set_modes(ahd, AHD_MODE_SCSI, AHD_MODE_SCSI);
	seqaddr = ahd_inw(ahd, CURADDR);
	for (i = 0; i < ahd->num_critical_sections; i++, cs++)
		if (cs->begin < seqaddr && cs->end >= seqaddr)
			return true;
	return false;
}

/* Stop both data FIFOs' host DMA, as ahd_reset_channel() does, bounded. */
static __diskdump_text int ahd_dump_stop_dma(struct ahd_softc *ahd)
{
	ahd_mode fifo;
	int ret;

	for (fifo = AHD_MODE_DFF0; fifo <= AHD_MODE_DFF1; fifo++) {
		ahd_set_modes(ahd, fifo, fifo);
		ahd_outb(ahd, DFCNTRL, ahd_inb(ahd, DFCNTRL) & ~(SCSIEN | HDMAEN));
		ret = ahd_dump_wait(ahd, DFCNTRL, HDMAENACK, 0,
				    AHD_DUMP_DMA_STOP_US);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Pause the sequencer and stop the host DMA, each within a bound, outside
 * the sequencer's critical sections.  ahd_reset_channel() pauses with
 * ahd_pause(), which spins until the chip says it paused, steps the
 * sequencer out of a critical section waiting for each step without a
 * bound (and panics after a number of them), and waits for HDMAENACK to
 * clear without a bound: once this succeeded, each returns at once.  A
 * controller that does not obey costs its dump, not the machine.
 *
 * Return: 0, -ETIMEDOUT (no pause, or DMA still on) or -EBUSY (critical
 * section).
 */
static __diskdump_text int ahd_dump_pause(struct ahd_softc *ahd)
{
	ahd_mode_state saved;
	int ret;

	ahd_outb(ahd, HCNTRL, ahd->pause);
	ret = ahd_dump_wait(ahd, HCNTRL, PAUSE, PAUSE, AHD_DUMP_PAUSE_US);
	if (ret)
		return ret;
	saved = ahd_save_modes(ahd);
	if (ahd_dump_in_critical_section(ahd))
		ret = -EBUSY;
	else
		ret = ahd_dump_stop_dma(ahd);
	ahd_restore_modes(ahd, saved);
	return ret;
}

/**
 * ahd_linux_dump_quiesce - reset the bus, dropping what is in flight
 * @sdev: the disk
 *
 * The same reset as the eh bus reset handler, once the sequencer is paused
 * and the DMA stopped within a bound.  ahd_reset_channel() does
 * nothing while AHD_BUS_RESET_ACTIVE is set, and only the next SCSI
 * interrupt that is not a reset clears it, so a reset long before the
 * panic may have left it set: clear it, as that interrupt would have.
 * The disk answers again after its reset recovery time, which scsi_dump
 * waits for (TEST UNIT READY).
 *
 * Return: 0, or -EBUSY if the chip did not stop or the driver still
 * refused to reset.
 */
__diskdump_text int ahd_linux_dump_quiesce(struct scsi_device *sdev)
{
	struct ahd_softc *ahd = ahd_dump_softc(sdev);
	unsigned long flags;
	int found, ret;

	ahd_lock(ahd, &flags);
	ret = ahd_dump_pause(ahd);
	if (ret) {
		ahd_unlock(ahd, &flags);
		pr_emerg("%s: %s: no reset, no dump through it\n", ahd_name(ahd),
			 ret == -EBUSY ? "sequencer paused in a critical section" :
			 "sequencer or DMA does not stop");
		return -EBUSY;
	}
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

#if IS_ENABLED(CONFIG_DISKDUMP_KUNIT_TEST)
#include "aic79xx_dump_test.c"
#endif
