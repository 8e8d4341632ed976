// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of aic7xxx's dump hooks: a sequencer that never pauses, or
 * pauses inside a critical section, must cost the dump through this
 * controller within a bound, never hang or panic the machine.  QEMU has no
 * Adaptec model: the "chip" is RAM behind the driver's memory-mapped
 * register accessors, where HCNTRL keeps what is written to it, so a
 * softc whose pause value lacks PAUSE has a sequencer that never stops.
 *
 * Included from aic7xxx_dump.c, to reach its static functions.
 */
#include <kunit/test.h>
#include <linux/ktime.h>

struct ahc_dump_fake {
	struct ahc_softc ahc;
	struct ahc_platform_data pd;
	struct scsi_device sdev;
	u8 regs[256];
};

static struct ahc_dump_fake *ahc_dump_fake(struct kunit *test, bool pauses)
{
	struct ahc_dump_fake *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct Scsi_Host *host;

	KUNIT_ASSERT_NOT_NULL(test, f);
	host = kunit_kzalloc(test, sizeof(*host) + sizeof(struct ahc_softc *),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, host);
	f->ahc.tag = BUS_SPACE_MEMIO;
	f->ahc.bsh.maddr = (__force void __iomem *)f->regs;
	f->ahc.name = "ahc-kunit";
	f->ahc.pause = pauses ? PAUSE : 0;
	f->ahc.platform_data = &f->pd;
	spin_lock_init(&f->pd.spin_lock);
	*(struct ahc_softc **)host->hostdata = &f->ahc;
	f->sdev.host = host;
	return f;
}

/* Review 9: quiesce gives up on a sequencer that never pauses, in time. */
static void ahc_dump_test_never_pauses(struct kunit *test)
{
	struct ahc_dump_fake *f = ahc_dump_fake(test, false);
	ktime_t t0 = ktime_get();
	int ret;

	ret = ahc_linux_dump_quiesce(&f->sdev);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), 1000);
	/* refused before the reset: the lock is free again */
	if (spin_trylock(&f->pd.spin_lock))
		spin_unlock(&f->pd.spin_lock);
	else
		KUNIT_FAIL(test, "quiesce left the driver's lock held");
}

/* Paused inside a critical section: refused, not stepped (which may panic). */
static void ahc_dump_test_critical_section(struct kunit *test)
{
	static struct cs sections[] = { { 11, 18 }, { 40, 44 } };
	struct ahc_dump_fake *f = ahc_dump_fake(test, true);

	f->ahc.critical_sections = sections;
	f->ahc.num_critical_sections = ARRAY_SIZE(sections);
	f->regs[SEQADDR0] = 16;		/* running instruction 15 */
	KUNIT_EXPECT_EQ(test, ahc_dump_pause(&f->ahc), -EBUSY);
	f->regs[SEQADDR0] = 45;		/* 44: the last of the second */
	KUNIT_EXPECT_EQ(test, ahc_dump_pause(&f->ahc), -EBUSY);
	f->regs[SEQADDR0] = 12;		/* 11: a section's begin is outside */
	KUNIT_EXPECT_EQ(test, ahc_dump_pause(&f->ahc), 0);
	f->regs[SEQADDR0] = 20;
	KUNIT_EXPECT_EQ(test, ahc_dump_pause(&f->ahc), 0);
	KUNIT_EXPECT_TRUE(test, f->regs[HCNTRL] & PAUSE);
}

static struct kunit_case ahc_dump_test_cases[] = {
	KUNIT_CASE(ahc_dump_test_never_pauses),
	KUNIT_CASE(ahc_dump_test_critical_section),
	{}
};

static struct kunit_suite ahc_dump_test_suite = {
	.name = "aic7xxx_dump",
	.test_cases = ahc_dump_test_cases,
};

kunit_test_suite(ahc_dump_test_suite);
