// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of aic79xx's dump hooks: a sequencer that never pauses or
 * pauses inside a critical section, and DMA that does not stop, must cost
 * the dump through this controller within a bound, never hang or panic the
 * machine.  QEMU has no Adaptec model: the "chip" is RAM behind the
 * driver's memory-mapped register accessors, where a register keeps what
 * is written to it, so a softc whose pause value lacks PAUSE has a
 * sequencer that never stops.
 *
 * Included from aic79xx_dump.c, to reach its static functions.
 */
#include <kunit/test.h>
#include <linux/ktime.h>

struct ahd_dump_fake {
	struct ahd_softc ahd;
	struct ahd_platform_data pd;
	struct scsi_device sdev;
	u8 regs[512];
};

static struct ahd_dump_fake *ahd_dump_fake(struct kunit *test, bool pauses)
{
	struct ahd_dump_fake *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct Scsi_Host *host;

	KUNIT_ASSERT_NOT_NULL(test, f);
	host = kunit_kzalloc(test, sizeof(*host) + sizeof(struct ahd_softc *),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, host);
	f->ahd.tags[0] = BUS_SPACE_MEMIO;
	f->ahd.bshs[0].maddr = (__force void __iomem *)f->regs;
	f->ahd.name = "ahd-kunit";
	f->ahd.pause = pauses ? PAUSE : 0;
	f->ahd.src_mode = AHD_MODE_SCSI;
	f->ahd.dst_mode = AHD_MODE_SCSI;
	f->ahd.platform_data = &f->pd;
	spin_lock_init(&f->pd.spin_lock);
	*(struct ahd_softc **)host->hostdata = &f->ahd;
	f->sdev.host = host;
	return f;
}

/* Review 9: quiesce gives up on a sequencer that never pauses, in time. */
static void ahd_dump_test_never_pauses(struct kunit *test)
{
	struct ahd_dump_fake *f = ahd_dump_fake(test, false);
	ktime_t t0 = ktime_get();
	int ret;

	ret = ahd_linux_dump_quiesce(&f->sdev);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), 1000);
	/* refused before the reset: the lock is free again */
	if (spin_trylock(&f->pd.spin_lock))
		spin_unlock(&f->pd.spin_lock);
	else
		KUNIT_FAIL(test, "quiesce left the driver's lock held");
}

/* Paused inside a critical section: refused, not stepped (which may panic). */
static void ahd_dump_test_critical_section(struct kunit *test)
{
	static struct cs sections[] = { { 0x100, 0x108 } };
	struct ahd_dump_fake *f = ahd_dump_fake(test, true);

	f->ahd.critical_sections = sections;
	f->ahd.num_critical_sections = ARRAY_SIZE(sections);
	f->regs[CURADDR] = 0x04;
	f->regs[CURADDR + 1] = 0x01;
	KUNIT_EXPECT_EQ(test, ahd_dump_pause(&f->ahd), -EBUSY);
	f->regs[CURADDR] = 0x00;	/* a section's begin is outside it */
	f->regs[DFCNTRL] = HDMAEN | SCSIEN;
	KUNIT_EXPECT_EQ(test, ahd_dump_pause(&f->ahd), 0);
	/* the DMA was told to stop, and the modes are as they were */
	KUNIT_EXPECT_EQ(test, f->regs[DFCNTRL] & (HDMAEN | SCSIEN), 0);
	KUNIT_EXPECT_EQ(test, f->ahd.src_mode, AHD_MODE_SCSI);
	KUNIT_EXPECT_EQ(test, f->ahd.dst_mode, AHD_MODE_SCSI);
}

/* DMA that never acknowledges the stop: a bounded wait, not a spin. */
static void ahd_dump_test_dma_never_stops(struct kunit *test)
{
	struct ahd_dump_fake *f = ahd_dump_fake(test, true);
	ktime_t t0 = ktime_get();

	f->regs[DFCNTRL] = HDMAENACK;
	KUNIT_EXPECT_EQ(test, ahd_dump_wait(&f->ahd, DFCNTRL, HDMAENACK, 0,
					    AHD_DUMP_DMA_STOP_US), -ETIMEDOUT);
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), 1000);
}

static struct kunit_case ahd_dump_test_cases[] = {
	KUNIT_CASE(ahd_dump_test_never_pauses),
	KUNIT_CASE(ahd_dump_test_critical_section),
	KUNIT_CASE(ahd_dump_test_dma_never_stops),
	{}
};

static struct kunit_suite ahd_dump_test_suite = {
	.name = "aic79xx_dump",
	.test_cases = ahd_dump_test_cases,
};

kunit_test_suite(ahd_dump_test_suite);
