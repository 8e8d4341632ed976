// SPDX-License-Identifier: GPL-2.0
/*
 * diskdumpfmt - prepare a partition for diskdump
 *
 * Writes the format into every block, so that the kernel will accept the
 * partition as a dump target.  Refuses a device that is in use, and, unless
 * forced, one on which libblkid finds a file system, a partition table, a
 * RAID, LVM or LUKS signature, or an unsaved dump.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ddcore.h"

#define MAX_SIGS 16

static struct {
	bool force, quiet, dry_run;
} opt;

/* What stands in the way, one item per thing found, comma separated. */
struct findings {
	char text[1024];
	int n;
};

static void print_usage(FILE *f)
{
	fprintf(f, "usage: diskdumpfmt [-f] [-n] [-q] DEVICE\n"
		"Write the diskdump format (version %d) into every block of DEVICE.\n"
		"  -f, --force    overwrite what is there: a file system, a partition\n"
		"                 table, a RAID, LVM or LUKS member, an unsaved dump\n"
		"                 (never a device in use)\n"
		"  -n, --dry-run  say what is there and what would be written; write nothing\n"
		"  -q, --quiet    print nothing but errors\n"
		"  -h, --help     this text\n"
		"  -V, --version  print the version\n", DISKDUMP_FMT_VERSION);
}

#define say(...) do { if (!opt.quiet) printf(__VA_ARGS__); } while (0)

static void add_finding(struct findings *fi, const char *what)
{
	size_t len = strlen(fi->text);

	snprintf(fi->text + len, sizeof(fi->text) - len, "%s%s", fi->n ? ", " : "", what);
	fi->n++;
}

/* Is the block holding @s's magic all format?  Then the magic is ours. */
static bool in_format_block(struct dd_dev *dev, const struct dd_signature *s)
{
	uint64_t b = s->offset / DISKDUMP_BLOCK_SIZE;
	uint8_t *block;
	bool ours;

	if (!s->has_offset || b >= dev->blocks)
		return false;
	block = dd_alloc_blocks(1);
	ours = block && !dd_read_raw_blocks(dev, b, block, 1) &&
	       dd_fmt_block_check(block, b, dev->blocks) != DD_FMT_BAD;
	free(block);
	return ours;
}

/* Every signature libblkid finds, as wipefs(8) would list them. */
static int find_signatures(struct dd_dev *dev, struct findings *fi)
{
	struct dd_signature sigs[MAX_SIGS];
	int n = dd_signatures(dev, sigs, MAX_SIGS);

	if (n == -ESTALE) {
		/* not a finding -f overrides: what would be destroyed is unknown */
		fprintf(stderr, "diskdumpfmt: %s: %s; refusing, even with -f\n",
			dev->path, dd_reopen_error(n));
		return n;
	}
	if (n < 0) {
		add_finding(fi, "data libblkid could not probe");
		return -1;
	}
	for (int i = 0; i < n && i < MAX_SIGS; i++) {
		char what[96];

		if (in_format_block(dev, &sigs[i]))
			continue;
		if (!strcmp(sigs[i].usage, "partition table"))
			snprintf(what, sizeof(what), "a %s partition table", sigs[i].type);
		else
			snprintf(what, sizeof(what), "%s (%s)", sigs[i].type,
				 sigs[i].usage[0] ? sigs[i].usage : "unknown use");
		add_finding(fi, what);
	}
	if (n > MAX_SIGS)
		add_finding(fi, "more signatures");
	return 0;
}

/* A whole disk the kernel knows partitions of (a stale table included). */
static bool has_partitions(int fd)
{
	char path[64];
	struct dirent *e;
	struct stat st;
	bool found = false;
	DIR *dp;

	if (fstat(fd, &st) || !S_ISBLK(st.st_mode))
		return false;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	dp = opendir(path);
	while (dp && !found && (e = readdir(dp))) {
		char sub[NAME_MAX + 16];

		snprintf(sub, sizeof(sub), "%s/partition", e->d_name);
		found = e->d_name[0] != '.' && !fstatat(dirfd(dp), sub, &st, 0);
	}
	if (dp)
		closedir(dp);
	return found;
}

static enum dd_content read_content(struct dd_dev *dev, int *err)
{
	uint8_t *block = dd_alloc_blocks(1);
	enum dd_content c = DD_FOREIGN;

	*err = !block || dd_read_raw_blocks(dev, 0, block, 1);
	if (!*err)
		c = dd_classify(block, dev->blocks);
	free(block);
	return c;
}

static void say_content(const struct dd_dev *dev, enum dd_content c)
{
	switch (c) {
	case DD_EMPTY:
		say("%s: formatted for diskdump (format version %d) and empty\n", dev->path,
		    DISKDUMP_FMT_VERSION);
		break;
	case DD_OLD_FORMAT:
		say("%s: %s\n", dev->path,
		    "formatted with diskdump format version 1, which the kernel no longer writes to");
		break;
	case DD_DAMAGED:
		say("%s: formatted for diskdump, but block 0 is not what the format says\n",
		    dev->path);
		break;
	case DD_SAVED:
		say("%s: holds a crash dump that savecore saved; formatting it again\n",
		    dev->path);
		break;
	default:
		break;
	}
}

/* Everything that -f must be given to overwrite: 0 if nothing. */
static int examine(struct dd_dev *dev, struct findings *fi)
{
	enum dd_content c;
	int err;

	c = read_content(dev, &err);
	if (err)
		return -1;
	say_content(dev, c);
	if (c == DD_DUMP)
		add_finding(fi, "a crash dump that savecore has not saved");
	if (has_partitions(dev->fd))
		add_finding(fi, "partitions the kernel knows of");
	if (find_signatures(dev, fi) == -ESTALE)
		return -1;
	return fi->n;
}

static int open_device(struct dd_dev *dev, const char *path)
{
	int ret = dd_open(dev, path, (opt.dry_run ? 0 : DD_OPEN_WRITE) | DD_OPEN_EXCL);

	if (ret == -EBUSY)
		fprintf(stderr,
			"diskdumpfmt: %s is in use (mounted, a partition of it mounted, active swap, or held by LVM, md or device-mapper); refusing\n",
			path);
	if (ret)
		return -1;
	if (dev->blocks < 2) {
		fprintf(stderr, "diskdumpfmt: %s is too small\n", dev->path);
		dd_close(dev);
		return -1;
	}
	return 0;
}

static int write_format(struct dd_dev *dev)
{
	struct stat st;

	if (opt.dry_run) {
		say("%s: would write %" PRIu64 " blocks of %d bytes", dev->path, dev->blocks,
		    DISKDUMP_BLOCK_SIZE);
		say(" (format version %d, block 0 last); -n: nothing written\n",
		    DISKDUMP_FMT_VERSION);
		return DD_EXIT_OK;
	}
	if (dd_format_range(dev, 0, dev->blocks)) {
		fprintf(stderr, "diskdumpfmt: %s: formatting failed; block 0 is as it was\n",
			dev->path);
		return DD_EXIT_ERROR;
	}
	/* The partition will hold all of memory: nobody but its owner and
	 * group may read it.
	 */
	if (!fstat(dev->fd, &st) && (st.st_mode & 0007) &&
	    fchmod(dev->fd, st.st_mode & 07770))
		fprintf(stderr, "diskdumpfmt: %s: chmod o-rwx: %s\n", dev->path, strerror(errno));
	say("%s: formatted %" PRIu64 " blocks of %d bytes for diskdump\n",
	    dev->path, dev->blocks, DISKDUMP_BLOCK_SIZE);
	return DD_EXIT_OK;
}

static int run(const char *path)
{
	struct findings fi = { .n = 0 };
	struct dd_dev dev;
	int ret;

	if (open_device(&dev, path))
		return DD_EXIT_ERROR;
	ret = examine(&dev, &fi);
	if (ret < 0) {
		dd_close(&dev);
		return DD_EXIT_ERROR;
	}
	if (ret && !opt.force) {
		fprintf(stderr, "diskdumpfmt: %s holds %s; refusing (use -f to overwrite %s)\n",
			path, fi.text, fi.n > 1 ? "them" : "it");
		dd_close(&dev);
		return DD_EXIT_ERROR;
	}
	if (ret)
		say("%s holds %s; %s (-f)\n", path, fi.text,
		    opt.dry_run ? "it would be overwritten" : "overwriting it");
	ret = write_format(&dev);
	dd_close(&dev);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "fnqhV", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			opt.force = true;
			break;
		case 'n':
			opt.dry_run = true;
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 'h':
			print_usage(stdout);
			return DD_EXIT_OK;
		case 'V':
			printf("diskdumpfmt %s\n", DD_VERSION);
			return DD_EXIT_OK;
		default:
			print_usage(stderr);
			return DD_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		print_usage(stderr);
		return DD_EXIT_USAGE;
	}
	return run(argv[optind]);
}
