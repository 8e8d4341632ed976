// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of diskdump's core: the self check, the format signature
 * check, and the list of RAM ranges kept up to date as memory is hot-added
 * or goes offline.  The crashdump-mode tests are in diskdump_mode_test.c.
 *
 * Included from diskdump.c, to reach its static functions.
 */
#include <kunit/test.h>

static void dd_test_checksum_sees_corruption(struct kunit *test)
{
	u8 *victim = (u8 *)&dd_cfg.ram[DISKDUMP_MAX_RAM_RANGES - 1];
	u32 good, bad, again;

	mutex_lock(&dd_mutex);
	good = dd_checksum();
	*victim ^= 0x01;
	bad = dd_checksum();
	*victim ^= 0x01;
	again = dd_checksum();
	mutex_unlock(&dd_mutex);
	KUNIT_EXPECT_NE(test, good, bad);
	KUNIT_EXPECT_EQ(test, good, again);
}

/* A block as diskdumpfmt writes it: block @nr of @nr_blocks. */
static void dd_test_fill_fmt(struct diskdump_fmt_block *fb, unsigned long nr,
			     unsigned long nr_blocks)
{
	u64 *word = (u64 *)fb;
	unsigned int i;

	memset(fb, 0, PAGE_SIZE);
	memcpy(fb->magic, DISKDUMP_FMT_MAGIC, DISKDUMP_MAGIC_LEN);
	fb->endian = DISKDUMP_ENDIAN_MARK;
	fb->block_size = DISKDUMP_BLOCK_SIZE;
	fb->block_nr = nr;
	fb->nr_blocks = nr_blocks;
	fb->version = DISKDUMP_FMT_VERSION;
	for (i = DISKDUMP_FMT_HDR_WORDS; i < DISKDUMP_BLOCK_SIZE / 8; i++)
		word[i] = diskdump_fmt_word(nr, i);
}

static void dd_test_fmt_block(struct kunit *test)
{
	struct diskdump_fmt_block *fb = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fb);
	dd_test_fill_fmt(fb, 5, 100);
	KUNIT_EXPECT_EQ(test, dd_fmt_mismatch(fb, 5, 100), -1);
	KUNIT_EXPECT_GE(test, dd_fmt_mismatch(fb, 6, 100), 0);
	KUNIT_EXPECT_GE(test, dd_fmt_mismatch(fb, 5, 101), 0);
	fb->magic[0] = 'X';
	KUNIT_EXPECT_EQ(test, dd_fmt_mismatch(fb, 5, 100), 0);
	/* format version 1: the struct, version 0, then zeros */
	dd_test_fill_fmt(fb, 5, 100);
	memset((char *)fb + offsetof(struct diskdump_fmt_block, version), 0,
	       PAGE_SIZE - offsetof(struct diskdump_fmt_block, version));
	KUNIT_EXPECT_EQ(test, dd_fmt_mismatch(fb, 5, 100),
			(int)offsetof(struct diskdump_fmt_block, version));
}

/* Zeros or one changed byte in any 512-byte sector of a block show. */
static void dd_test_fmt_every_sector(struct kunit *test)
{
	struct diskdump_fmt_block *fb = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	char *b = (char *)fb;
	unsigned int sect;

	KUNIT_ASSERT_NOT_NULL(test, fb);
	for (sect = 0; sect < PAGE_SIZE / SECTOR_SIZE; sect++) {
		dd_test_fill_fmt(fb, 12345, 1 << 20);
		memset(b + sect * SECTOR_SIZE, 0, SECTOR_SIZE);
		KUNIT_EXPECT_EQ(test, dd_fmt_mismatch(fb, 12345, 1 << 20),
				(int)(sect * SECTOR_SIZE));
		dd_test_fill_fmt(fb, 12345, 1 << 20);
		b[sect * SECTOR_SIZE + SECTOR_SIZE - 1] ^= 0x80;
		KUNIT_EXPECT_EQ(test, dd_fmt_mismatch(fb, 12345, 1 << 20),
				(int)(sect * SECTOR_SIZE + SECTOR_SIZE - 8));
	}
}

/* Adjacent online chunks join into one range; a gap starts a new one. */
static void dd_test_online_ranges(struct kunit *test)
{
	struct dd_ram_walk *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, dd_add_online_range(w, 16, 100), 0);
	KUNIT_EXPECT_EQ(test, dd_add_online_range(w, 100, 300), 0);
	KUNIT_EXPECT_EQ(test, dd_add_online_range(w, 400, 500), 0);
	KUNIT_EXPECT_EQ(test, w->nr_ram, 2U);
	KUNIT_EXPECT_EQ(test, w->ram[0].start_pfn, 16UL);
	KUNIT_EXPECT_EQ(test, w->ram[0].end_pfn, 300UL);
	KUNIT_EXPECT_EQ(test, w->ram[1].start_pfn, 400UL);
	KUNIT_EXPECT_EQ(test, w->nr_ram_pages, 384UL);
	KUNIT_EXPECT_EQ(test, w->max_pfn, 500UL);
	/* past the last slot the walk stops, and says so */
	for (i = w->nr_ram; i < DISKDUMP_MAX_RAM_RANGES; i++)
		KUNIT_EXPECT_EQ(test, dd_add_online_range(w, 1000 + 2 * i, 1001 + 2 * i), 0);
	KUNIT_EXPECT_EQ(test, dd_add_online_range(w, 5000, 5001), 1);
	KUNIT_EXPECT_EQ(test, w->nr_ram, (unsigned int)DISKDUMP_MAX_RAM_RANGES);
}

/* A bitmap that cannot grow: the RAM list keeps to the PFNs it covers. */
static void dd_test_clip_walk(struct kunit *test)
{
	struct dd_ram_walk *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	dd_add_online_range(w, 0, 100);
	dd_add_online_range(w, 200, 300);
	dd_add_online_range(w, 400, 500);
	dd_clip_walk(w, 250);
	KUNIT_EXPECT_EQ(test, w->nr_ram, 2U);
	KUNIT_EXPECT_EQ(test, w->ram[1].start_pfn, 200UL);
	KUNIT_EXPECT_EQ(test, w->ram[1].end_pfn, 250UL);
	KUNIT_EXPECT_EQ(test, w->nr_ram_pages, 150UL);
	KUNIT_EXPECT_EQ(test, w->max_pfn, 250UL);
	dd_clip_walk(w, 200);
	KUNIT_EXPECT_EQ(test, w->nr_ram, 1U);
	KUNIT_EXPECT_EQ(test, w->max_pfn, 100UL);
}

/*
 * Encryption: block 2^32 must not reuse block 0's keystream (whose first
 * 32 bytes key the MAC), nor block b + 2^32 block b's; below 2^32 the state
 * is the one of the first encrypted format (counter, block, nonce words).
 */
static void dd_test_chacha_iv_64bit(struct kunit *test)
{
	struct disk_dump_partition *part;
	u32 *a, *b;

	part = kunit_kzalloc(test, sizeof(*part), GFP_KERNEL);
	a = kunit_kcalloc(test, CHACHA_STATE_WORDS, sizeof(u32), GFP_KERNEL);
	b = kunit_kcalloc(test, CHACHA_STATE_WORDS, sizeof(u32), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, part);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	memcpy(part->nonce, "\x01\x02\x03\x04\x05\x06\x07\x08",
	       DISKDUMP_NONCE_SIZE);

	dd_chacha_init(a, part, 0);
	dd_chacha_init(b, part, 1ULL << 32);
	KUNIT_EXPECT_NE(test, memcmp(a, b, CHACHA_STATE_WORDS * sizeof(u32)), 0);
	dd_chacha_init(a, part, 5);
	dd_chacha_init(b, part, 5 | 1ULL << 63);
	KUNIT_EXPECT_NE(test, memcmp(a, b, CHACHA_STATE_WORDS * sizeof(u32)), 0);

	dd_chacha_init(a, part, 0x12345678);
	KUNIT_EXPECT_EQ(test, a[12], 0U);
	KUNIT_EXPECT_EQ(test, a[13], 0x12345678U);
	KUNIT_EXPECT_EQ(test, a[14], 0x04030201U);
	KUNIT_EXPECT_EQ(test, a[15], 0x08070605U);
	memzero_explicit(a, CHACHA_STATE_WORDS * sizeof(u32));
	memzero_explicit(b, CHACHA_STATE_WORDS * sizeof(u32));
}

static struct kunit_case diskdump_test_cases[] = {
	KUNIT_CASE(dd_test_checksum_sees_corruption),
	KUNIT_CASE(dd_test_fmt_block),
	KUNIT_CASE(dd_test_fmt_every_sector),
	KUNIT_CASE(dd_test_online_ranges),
	KUNIT_CASE(dd_test_clip_walk),
	KUNIT_CASE(dd_test_chacha_iv_64bit),
	{}
};

static struct kunit_suite diskdump_test_suite = {
	.name = "diskdump",
	.test_cases = diskdump_test_cases,
};

kunit_test_suite(diskdump_test_suite);
