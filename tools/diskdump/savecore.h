/* SPDX-License-Identifier: GPL-2.0 */
/*
 * savecore's library: dump.c reads a dump and writes it as ELF, kdump.c as
 * kdump-compressed, crypt.c decrypts, savedir.c names and rotates the dump
 * directories; savecore.c is the program.
 */
#ifndef SAVECORE_H
#define SAVECORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "ddcore.h"

#define DD_MAX_SEGS 60000	/* PT_LOADs; e_phnum must stay below 65535 */

struct dd_seg {
	uint64_t vaddr;
	uint64_t paddr;
	uint64_t pages;
	uint64_t first_rank;	/* index of its first page among the page blocks */
};

/* How a dump is read: savecore's -f, -S and -q. */
struct dd_load_opts {
	bool force;		/* read a header whose checksum is wrong */
	bool map_stacks;	/* PT_LOADs for the CPUs' vmalloc'd stacks */
	bool quiet;		/* no progress line */
};

struct dd_dump {
	struct diskdump_header h;
	struct dd_load_opts opts;
	uint8_t *ram_map;
	uint8_t *dump_map;
	char *notes;
	uint64_t present;	/* page blocks actually on the partition */
	uint64_t extent;	/* ranks that may be present: 0 .. extent - 1 */
	uint64_t scanned;	/* unfinished: ranks whose blocks were looked at */
	uint8_t *written;	/* unfinished: a bit per rank, its block written */
	struct dd_seg *segs;
	size_t nr_segs;
	size_t cap_segs;
	uint64_t *rank_base;	/* dumped pages below each 4096-PFN chunk */
	bool sealed;		/* encrypted, and no key: only the header is read */
	enum dd_content content;	/* what block 0 holds */
};

/* dump.c: 0, or minus a DD_EXIT_* code with a reason in why. */
int dd_load(struct dd_dev *dev, struct dd_dump *d,
	    const struct dd_load_opts *opts, char *why, size_t whylen);
/* Pages of the dump level are missing (see the header's flags). */
bool dd_partial(const struct dd_dump *d);
int dd_scan_written(struct dd_dev *dev, struct dd_dump *d);

/* Whether the page of dump rank @rank is on the partition. */
static inline bool dd_rank_present(const struct dd_dump *d, uint64_t rank)
{
	return rank < d->extent && (!d->written || dd_test_bit(d->written, rank));
}

int dd_plan_segments(struct dd_dev *dev, struct dd_dump *d);
const char *dd_vmcoreinfo(const struct dd_dump *d, const char *key, char *val,
			  size_t vallen);
uint64_t dd_elf_size(const struct dd_dump *d);
int dd_write_elf(struct dd_dev *dev, const struct dd_dump *d, int fd);
void dd_free(struct dd_dump *d);
enum dd_compress { DD_NONE, DD_ZLIB, DD_LZO, DD_ZSTD };
int dd_write_kdump(struct dd_dev *dev, const struct dd_dump *d, int fd,
		   enum dd_compress how, uint64_t *bytes);
/* A progress line on stderr if it is a terminal, unless @quiet. */
void dd_progress(bool quiet, uint64_t done, uint64_t total);
/* The panic time of @h as UTC, unless it is beyond what gmtime_r() takes. */
bool dd_panic_tm(const struct diskdump_header *h, struct tm *tm);
/* An encrypted dump without its key: the blocks saved, and their writer. */
uint64_t dd_sealed_blocks(const struct dd_dump *d);
int dd_write_sealed(struct dd_dev *dev, const struct dd_dump *d, int fd);

void dd_print_summary(FILE *f, const struct dd_dump *d, const char *dev);

/*
 * Dump directories: HOST-YYYYMMDD-HHMMSS, HOST the dumped kernel's node
 * name with anything but [A-Za-z0-9._-] made '_' ("localhost" if it had
 * none), the time that of the panic in UTC.
 */
#define DD_DIR_NAME_MAX (DISKDUMP_UTS_LEN + 20)
void dd_dump_dir_name(const struct diskdump_header *h, char *out, size_t len);
/* Could savecore have named a directory @name (with a ".N" suffix or not)? */
bool dd_is_dump_dir_name(const char *name);
/*
 * With -n @keep, before saving: how many of the @n saved dumps, oldest first,
 * freeing @bytes[i] each, to remove so that @need bytes fit where @avail
 * are free.  Never one of the newest @keep - 1, and none at all if that
 * would not make room.
 */
size_t dd_rotation_victims(const uint64_t *bytes, size_t n, unsigned int keep,
			   uint64_t avail, uint64_t need);
/* The host part of the dump directory name of @h's dump. */
void dd_dump_host(const struct diskdump_header *h, char *out, size_t len);
/*
 * Rotation only ever removes dumps of @host that savecore saved: another
 * host's, in a DIR they share, are left alone.
 */
/* Remove all but the newest @keep dumps of @host savecore saved in @dir. */
void dd_rotate(const char *dir, unsigned int keep, const char *host,
	       const char *just_saved, bool quiet);
/*
 * With -n @keep: remove the oldest dumps of @host in @dir, if that makes
 * room for @need bytes where @avail are free (dd_rotation_victims()).
 */
void dd_rotate_for_space(const char *dir, unsigned int keep, const char *host,
			 uint64_t avail, uint64_t need, bool quiet);

/* crypt.c: encrypted dumps */
int dd_unseal(struct dd_dev *dev, const struct diskdump_header *h, bool unverified,
	      char *why, size_t whylen);
void dd_key_id_hex(const uint8_t id[DISKDUMP_KEY_ID_SIZE],
		   char out[2 * DISKDUMP_KEY_ID_SIZE + 1]);
void dd_block_iv(uint8_t iv[16], const uint8_t nonce[DISKDUMP_NONCE_SIZE],
		 uint64_t block);

#endif
