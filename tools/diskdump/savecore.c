// SPDX-License-Identifier: GPL-2.0
/*
 * savecore - save a crash dump from a diskdump partition
 *
 *   savecore [options] DEVICE [DIR]
 *
 * Reads the dump that the kernel wrote to DEVICE at panic time and writes it
 * to DIR/HOST-DATE/vmcore as an ELF core file (PT_NOTE with the CPUs'
 * NT_PRSTATUS notes and VMCOREINFO, a PT_LOAD per run of saved RAM and one
 * for the kernel image), plus an info file.  Only once both are written and
 * fsync'd is the partition formatted again for the next crash.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "ddcore.h"
#include "savecore.h"

static struct {
	bool check_only, verbose, keep, force, quiet, map_stacks;
	bool machine;			/* -M: -c's output as key: value lines */
	bool kdump;			/* -F kdump: kdump-compressed output */
	const char *keyfile;		/* -K: private key of encrypted dumps */
	enum dd_compress compress;	/* -Z: zlib (the default), lzo, zstd, none */
	bool compress_set;		/* -Z given: it goes with -F kdump */
	unsigned int keep_dumps;	/* -n: at most this many dumps in DIR */
	uint64_t min_free;		/* bytes */
} opt = { .compress = DD_ZLIB, .map_stacks = true };

static const char *const compress_names[] = {
	[DD_NONE] = "none", [DD_ZLIB] = "zlib", [DD_LZO] = "lzo", [DD_ZSTD] = "zstd",
};

#define info(...) do { if (!opt.quiet) printf(__VA_ARGS__); } while (0)
#define verbose(...) do { if (opt.verbose) printf(__VA_ARGS__); } while (0)

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: savecore [options] DEVICE [DIR]\n"
		"Save the crash dump on the diskdump partition DEVICE into\n"
		"DIR/HOST-YYYYMMDD-HHMMSS/ (default DIR: /var/crash), then format DEVICE again.\n"
		"  -c, --check         only say what DEVICE holds, in a line 'state: STATE'\n"
		"                      on stdout (and the summary of a dump); a partition\n"
		"                      without a dump is read whole, every block compared\n"
		"                      with the format\n"
		"  -M, --machine       with -c: only 'key: value' lines on stdout, for\n"
		"                      scripts: state and exit first, then a dump's\n"
		"                      summary, or reason (why, in one line), device\n"
		"                      and signature (what libblkid found)\n"
		"  -k, --keep          do not format DEVICE after saving\n"
		"  -S, --no-map-stacks leave out the PT_LOADs for the CPUs' vmalloc'd\n"
		"                      stacks, which let gdb unwind them (-s: keep them,\n"
		"                      the default)\n"
		"  -m, --min-free MB   keep at least MB megabytes free in DIR\n"
		"  -F, --format FMT    elf (default) or kdump (kdump-compressed, as\n"
		"                      makedumpfile writes it)\n"
		"  -Z, --compress ALG  for kdump: zlib (default), lzo, zstd or none\n"
		"  -n, --keep-dumps N  keep only this host's newest N dumps in DIR: after\n"
		"                      saving, and before, if DIR lacks the space (but\n"
		"                      never one of the newest N-1)\n"
		"  -K, --key FILE      the RSA private key (PEM) of an encrypted dump;\n"
		"                      without it an encrypted dump is saved as it is\n"
		"  -f, --force         read a dump whose header checksum is wrong, or an\n"
		"                      encrypted dump that was never finished (unverified)\n"
		"  -v, --verbose       say more\n"
		"  -q, --quiet         print only errors (and, with -c, the state line)\n"
		"  -h, --help          this text\n"
		"  -V, --version       print the version\n"
		"      --check-usage   only check the rest of the command line (DEVICE\n"
		"                      and DIR may be left out): exit 2 and say why if\n"
		"                      savecore would refuse it, else 0 and the lines\n"
		"                      'mode:' (save or check), 'keep:' (yes or no)\n"
		"                      and 'operands:' (0 to 2); nothing is opened\n"
		"exit status, and the state -c prints:\n"
		"  0  a dump is there, or it was saved             state: dump\n"
		"  1  error: I/O, an unusable DIR\n"
		"  2  usage\n"
		"  3  formatted and empty: no dump                 state: empty\n"
		"  4  a dump savecore cannot trust (left as is)    state: damaged\n"
		"  5  not enough space in DIR\n"
		"  6  not formatted for diskdump                   state: unformatted\n"
		"     or a block not what the format says          state: damaged\n"
		"  7  format version 1: run diskdumpfmt DEVICE     state: old-format\n");
}

/* ---- saving ---- */

static int make_target_dir(const char *dir, const struct diskdump_header *h,
			   char *out, size_t outlen)
{
	char name[DD_DIR_NAME_MAX];

	dd_dump_dir_name(h, name, sizeof(name));
	for (int i = 0; i < 100; i++) {
		if (i)
			snprintf(out, outlen, "%s/%s.%d", dir, name, i);
		else
			snprintf(out, outlen, "%s/%s", dir, name);
		if (!mkdir(out, 0700))
			return 0;
		if (errno != EEXIST)
			break;
	}
	fprintf(stderr, "savecore: %s: %s\n", out, strerror(errno));
	return -1;
}

static int fsync_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -1;
	ret = fsync(fd);
	close(fd);
	return ret;
}

/* The bytes the vmcore will take, at most; 0 if it cannot be written. */
static uint64_t vmcore_bytes(struct dd_dev *dev, struct dd_dump *d)
{
	if (d->sealed)
		return dd_sealed_blocks(d) * DISKDUMP_BLOCK_SIZE;
	if (opt.kdump)
		/* at worst every page raw, plus headers, bitmaps, descriptors */
		return (4 + d->h.note_size / DISKDUMP_BLOCK_SIZE +
			2 * ((d->h.max_pfn / 8) / DISKDUMP_BLOCK_SIZE + 1)) * DISKDUMP_BLOCK_SIZE +
		       d->present * (DISKDUMP_BLOCK_SIZE + 24);
	if (dd_plan_segments(dev, d)) {
		fprintf(stderr, "savecore: %s: the dump is too fragmented to save\n", dev->path);
		return 0;
	}
	return dd_elf_size(d);
}

static uint64_t free_bytes(const char *dir)
{
	struct statvfs vfs;

	if (statvfs(dir, &vfs))
		return UINT64_MAX;	/* unknown: let the writes tell */
	return (uint64_t)vfs.f_bavail * vfs.f_frsize;
}

/* DIR exists and has room for @need bytes and -m, rotating if -n allows. */
static int make_room(const char *dir, const char *host, uint64_t need)
{
	uint64_t want = need + opt.min_free, avail;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "savecore: %s: %s\n", dir, strerror(errno));
		return DD_EXIT_ERROR;
	}
	avail = free_bytes(dir);
	if (avail < want && opt.keep_dumps) {
		dd_rotate_for_space(dir, opt.keep_dumps, host, avail, want, opt.quiet);
		avail = free_bytes(dir);
	}
	if (avail >= want)
		return 0;
	fprintf(stderr, "savecore: %s: %" PRIu64 " MB needed, %" PRIu64 " MB free",
		dir, need >> 20, avail >> 20);
	fprintf(stderr, " (keeping %" PRIu64 " MB)\n", opt.min_free >> 20);
	return DD_EXIT_NOSPACE;
}

static int write_vmcore(struct dd_dev *dev, struct dd_dump *d, int fd,
			const char *final, uint64_t *need)
{
	if (d->sealed) {
		verbose("writing %s: the encrypted partition image, %" PRIu64 " bytes\n", final,
			*need);
		return -dd_write_sealed(dev, d, fd);
	}
	if (opt.kdump) {
		verbose("writing %s: kdump-compressed (%s), at most %" PRIu64 " bytes\n", final,
			compress_names[opt.compress], *need);
		return -dd_write_kdump(dev, d, fd, opt.compress, need);
	}
	verbose("writing %s: ELF, %zu segments, %" PRIu64 " bytes\n", final, d->nr_segs, *need);
	return -dd_write_elf(dev, d, fd);
}

static int write_info(const char *target, const struct dd_dump *d, const char *dev,
		      uint64_t bytes)
{
	char path[PATH_MAX + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/info", target);
	f = fopen(path, "wxe");
	if (!f) {
		fprintf(stderr, "savecore: %s: %s\n", path, strerror(errno));
		return DD_EXIT_ERROR;
	}
	fchmod(fileno(f), 0600);
	dd_print_summary(f, d, dev);
	if (d->sealed)
		fprintf(f, "format: encrypted partition image\n");
	else if (opt.kdump)
		fprintf(f, "format: kdump-compressed %s\n", compress_names[opt.compress]);
	else
		fprintf(f, "format: elf\n");
	fprintf(f, "vmcore_bytes: %" PRIu64 "\n", bytes);
	if (fflush(f) || fsync(fileno(f))) {
		int err = errno;

		fprintf(stderr, "savecore: %s: %s\n", path, strerror(err));
		fclose(f);
		return err == ENOSPC ? DD_EXIT_NOSPACE : DD_EXIT_ERROR;
	}
	if (fclose(f)) {
		fprintf(stderr, "savecore: %s: %s\n", path, strerror(errno));
		return DD_EXIT_ERROR;
	}
	return 0;
}

/*
 * A save stopped half-way, by systemd when the unit's TimeoutStartSec= runs
 * out or by ^C, leaves no half file and no empty directory behind: the dump
 * is still on the partition, and the next save starts afresh.  The stop
 * signals are held from the directory's creation to the end of the save;
 * only while the vmcore is written (which may take long) do they stop it,
 * through stop_save().  A signal the caller ignores (nohup) stays ignored.
 */
static const int stop_sigs[] = { SIGTERM, SIGINT, SIGHUP };
static struct sigaction stop_old[3];
static char stop_file[PATH_MAX + 32], stop_dir[PATH_MAX];

static void stop_save(int sig)
{
	unlink(stop_file);
	rmdir(stop_dir);
	signal(sig, SIG_DFL);
	raise(sig);		/* delivered when this handler returns */
}

static void stop_sigset(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaddset(set, stop_sigs[i]);
}

/* Let a stop signal remove @file and @dir, then end the process. */
static void catch_stop(const char *file, const char *dir)
{
	struct sigaction sa = { .sa_handler = stop_save };
	size_t i;

	snprintf(stop_file, sizeof(stop_file), "%s", file);
	snprintf(stop_dir, sizeof(stop_dir), "%s", dir);
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(stop_sigs); i++) {
		sigaction(stop_sigs[i], NULL, &stop_old[i]);
		if (stop_old[i].sa_handler != SIG_IGN)
			sigaction(stop_sigs[i], &sa, NULL);
	}
}

static void uncatch_stop(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaction(stop_sigs[i], &stop_old[i], NULL);
}

/* write_vmcore() and its fsync, stoppable: @held is the caller's mask. */
static int write_stoppable(struct dd_dev *dev, struct dd_dump *d, int fd,
			   const char *final, uint64_t *need,
			   const sigset_t *held)
{
	sigset_t stop;
	int ret;

	stop_sigset(&stop);
	sigprocmask(SIG_SETMASK, held, NULL);
	ret = write_vmcore(dev, d, fd, final, need);
	if (!ret && fsync(fd) < 0)
		ret = errno == ENOSPC ? DD_EXIT_NOSPACE : DD_EXIT_ERROR;
	sigprocmask(SIG_BLOCK, &stop, NULL);
	return ret;
}

/*
 * What DIR must have free before a save starts.  A kdump-compressed file's
 * size is known only once written: every page raw is the worst case, and
 * compressed pages take a fraction of it, so only the rest (headers,
 * bitmaps, notes) is asked for, and running out of space part way stops
 * the save cleanly, the dump kept on the partition.
 */
static uint64_t room_before(const struct dd_dump *d, uint64_t need)
{
	uint64_t pages = d->present * (DISKDUMP_BLOCK_SIZE + 24);

	if (opt.kdump && !d->sealed && need > pages)
		return need - pages;
	return need;
}

/* The dump directory and its files: 0, or the exit status. */
static int save_into(struct dd_dev *dev, struct dd_dump *d, const char *dir,
		     const sigset_t *held, uint64_t *need, char *target, size_t len)
{
	char tmp[PATH_MAX + 32], final[PATH_MAX + 32];
	int fd, ret;

	if (make_target_dir(dir, &d->h, target, len))
		return DD_EXIT_ERROR;
	snprintf(tmp, sizeof(tmp), "%s/vmcore.incomplete", target);
	snprintf(final, sizeof(final), "%s/%s", target, d->sealed ? "vmcore.encrypted" : "vmcore");
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "savecore: %s: %s\n", tmp, strerror(errno));
		rmdir(target);
		return DD_EXIT_ERROR;
	}
	catch_stop(tmp, target);
	ret = write_stoppable(dev, d, fd, final, need, held);
	uncatch_stop();
	close(fd);
	if (ret) {
		/* Never leave a half file that looks like a dump. */
		unlink(tmp);
		rmdir(target);
		return ret;
	}
	if (rename(tmp, final) < 0) {
		fprintf(stderr, "savecore: rename %s: %s\n", tmp, strerror(errno));
		return DD_EXIT_ERROR;
	}
	ret = write_info(target, d, dev->path, *need);
	if (!ret && opt.kdump && free_bytes(dir) < opt.min_free) {
		/* only the written file told its size: -m holds all the same */
		fprintf(stderr, "savecore: %s: the dump leaves less than %" PRIu64 " MB free\n",
			dir, opt.min_free >> 20);
		ret = DD_EXIT_NOSPACE;
	}
	if (ret) {
		/* no vmcore without its info: rotation would never remove it */
		unlink(final);
		snprintf(tmp, sizeof(tmp), "%s/info", target);
		unlink(tmp);
		rmdir(target);
		return ret;
	}
	if (fsync_path(target) || fsync_path(dir)) {
		fprintf(stderr, "savecore: fsync %s: %s\n", target, strerror(errno));
		return DD_EXIT_ERROR;
	}
	info("savecore: saved %s%s dump (%" PRIu64 " of %" PRIu64 " pages) to %s\n",
	     dd_partial(d) ? "a PARTIAL" : "a complete",
	     d->sealed ? " encrypted" : "", d->present, (uint64_t)d->h.nr_dump_pages, final);
	return 0;
}

static int save_dump(struct dd_dev *dev, struct dd_dump *d, const char *dir,
		     const sigset_t *held)
{
	char target[PATH_MAX], host[DISKDUMP_UTS_LEN + 1];
	uint64_t need = vmcore_bytes(dev, d);
	int ret;

	if (!need)
		return DD_EXIT_CORRUPT;
	dd_dump_host(&d->h, host, sizeof(host));
	ret = make_room(dir, host, room_before(d, need));
	if (ret)
		return ret;
	/*
	 * Out of space part way (a kdump file larger than hoped) stops the
	 * save cleanly: nothing is removed for room that may not be enough,
	 * and the dump stays on the partition.
	 */
	ret = save_into(dev, d, dir, held, &need, target, sizeof(target));
	if (ret)
		return ret;
	if (d->sealed)
		info("savecore: decode it where the private key is: %s\n",
		     "savecore -k -K KEY.pem FILE DIR");
	if (opt.keep_dumps)
		dd_rotate(dir, opt.keep_dumps, host, strrchr(target, '/') + 1, opt.quiet);
	return DD_EXIT_OK;
}

/* Is block @b formatted (version 2)?  Past the end counts as yes. */
static bool block_formatted(struct dd_dev *dev, uint64_t b)
{
	uint8_t *block;
	bool ok;

	if (b >= dev->blocks)
		return true;
	block = dd_alloc_blocks(1);
	ok = block && !dd_read_raw_blocks(dev, b, block, 1) &&
	     dd_fmt_block_check(block, b, dev->blocks) == DD_FMT_OK;
	free(block);
	return ok;
}

/*
 * After the save: only the blocks the dump used lost their format, unless
 * the rest is of another format version or partition size (an older
 * kernel's dump): then all of it.
 */
static int format_again(struct dd_dev *dev, const struct dd_dump *d)
{
	uint64_t end = d->h.data_block + d->h.nr_dump_pages;

	if (end > dev->blocks)
		end = dev->blocks;
	if (!block_formatted(dev, end) || !block_formatted(dev, dev->blocks - 1))
		end = dev->blocks;
	return dd_format_range(dev, 0, end);
}

/*
 * Hold a block device exclusively while formatting it: one that something
 * else holds (a mount, swap, LVM, md, or the kernel's diskdump that armed
 * it) is not written to.  The claim lasts until savecore exits.
 */
static int claim_device(struct dd_dev *dev)
{
	struct stat st;
	int fd;

	if (fstat(dev->fd, &st) || !S_ISBLK(st.st_mode))
		return 0;
	fd = dd_reopen(dev, O_RDONLY | O_EXCL);
	if (fd >= 0)
		return 0;	/* kept open: the claim lasts until exit */
	if (fd == -ESTALE)
		fprintf(stderr, "savecore: %s: %s: not formatting it\n", dev->path,
			dd_reopen_error(fd));
	else
		fprintf(stderr, "savecore: %s is in use (%s): not formatting it\n",
			dev->path, strerror(-fd));
	return -1;
}

/*
 * Before formatting: say in block 0 that the dump is saved, so that a
 * format cut short (it writes block 0 last) is finished by the next
 * savecore instead of leaving a dump header over formatted blocks.
 */
static int mark_saved(struct dd_dev *dev, const struct dd_dump *d)
{
	struct diskdump_header *h;
	uint8_t *block = dd_alloc_blocks(1);
	int ret = -1;

	if (!block || dd_read_raw_blocks(dev, 0, block, 1))
		goto out;
	h = (struct diskdump_header *)block;
	*h = d->h;
	h->flags |= DISKDUMP_FLAG_SAVED;
	h->crc = 0;
	h->crc = dd_crc32(0, h, sizeof(*h));
	if (!dd_write_blocks(dev, 0, block, 1) && !dd_sync(dev))
		ret = 0;
out:
	free(block);
	return ret;
}

static int save_device(struct dd_dev *dev, struct dd_dump *d, const char *dir)
{
	sigset_t stop, held;
	bool marked = false;
	int ret;

	if (opt.verbose)
		dd_print_summary(stdout, d, dev->path);
	/* stop signals wait from the new directory to the saved mark */
	stop_sigset(&stop);
	sigprocmask(SIG_BLOCK, &stop, &held);
	ret = save_dump(dev, d, dir, &held);
	if (!ret && !opt.keep)
		marked = !claim_device(dev) && !mark_saved(dev, d);
	sigprocmask(SIG_SETMASK, &held, NULL);
	if (ret || opt.keep)
		return ret;
	if (!marked || format_again(dev, d)) {
		fprintf(stderr, "savecore: the dump is saved, but %s %s\n", dev->path,
			"could not be formatted again");
		return DD_EXIT_ERROR;
	}
	info("savecore: %s formatted for the next dump\n", dev->path);
	return DD_EXIT_OK;
}

/* ---- -c: what the partition holds ---- */

static const char *state_name(int code, enum dd_content content)
{
	switch (code) {
	case DD_EXIT_OK:
		return "dump";
	case DD_EXIT_NODUMP:
		return content == DD_SAVED ? "saved" : "empty";
	case DD_EXIT_OLDFORMAT:
		return "old-format";
	case DD_EXIT_CORRUPT:
		return "damaged";
	case DD_EXIT_UNFORMATTED:
		if (content == DD_SAVED)
			return "saved";
		return content == DD_FOREIGN ? "unformatted" : "damaged";
	default:
		return NULL;
	}
}

/* Block 0 says formatted and empty: so must every other block. */
static int verify_empty(struct dd_dev *dev, struct dd_dump *d, char *why, size_t whylen)
{
	struct dd_fmt_scan scan;

	if (dd_verify_format(dev, 0, dev->blocks, &scan)) {
		snprintf(why, whylen, "cannot read the partition");
		return DD_EXIT_ERROR;
	}
	if (!scan.nr_bad)
		return DD_EXIT_NODUMP;
	d->content = DD_DAMAGED;
	snprintf(why, whylen,
		 "block %" PRIu64 " is not what the diskdump format says (%" PRIu64 " of %" PRIu64
		 " blocks are not); run diskdumpfmt %s to format it again",
		 scan.first_bad, scan.nr_bad, dev->blocks, dev->path);
	return DD_EXIT_UNFORMATTED;
}

/*
 * What libblkid finds on a partition that is not formatted, a line each:
 * "savecore: PATH holds TYPE (USAGE)" on stderr, or with -M
 * "signature: TYPE (USAGE)" on stdout.
 */
static void name_signatures(const struct dd_dev *dev)
{
	const char *path = dev->path;
	struct dd_signature sigs[4];
	int n = dd_signatures(dev, sigs, 4);

	for (int i = 0; i < n && i < 4; i++) {
		const char *usage = sigs[i].usage[0] ? sigs[i].usage : "unknown use";

		if (opt.machine)
			printf("signature: %s (%s)\n", sigs[i].type, usage);
		else
			fprintf(stderr, "savecore: %s holds %s (%s)\n", path,
				sigs[i].type, usage);
	}
}

/* -M: "KEY: VALUE" on one line, whatever VALUE holds. */
static void put_line(const char *key, const char *val)
{
	printf("%s: ", key);
	for (; *val; val++)
		putchar(*val >= 0x20 && *val < 0x7f ? *val : '?');
	putchar('\n');
}

/*
 * -c -M: what DEVICE holds, for scripts.  The state and exit lines always
 * come first, then why (when it is not a dump), then the dump's summary.
 */
static void machine_report(const struct dd_dev *dev, const struct dd_dump *d,
			   int code, const char *state, const char *why)
{
	struct stat st;

	put_line("state", state ? state : "error");
	printf("exit: %d\n", code);
	/* the device read, by number: diskdumpctl arms that one, not a name */
	if (dev->fd >= 0 && !fstat(dev->fd, &st) && S_ISBLK(st.st_mode))
		printf("devno: %u:%u\n", major(st.st_rdev), minor(st.st_rdev));
	if (code == DD_EXIT_OK) {
		dd_print_summary(stdout, d, dev->path);
		return;
	}
	if (why && *why)
		put_line("reason", why);
	put_line("device", dev->path);
	if (d && d->content == DD_FOREIGN)
		name_signatures(dev);
}

static void report(const struct dd_dev *dev, const struct dd_dump *d, int code,
		   const char *why)
{
	if (code == DD_EXIT_OK)
		return;
	if (code == DD_EXIT_NODUMP) {
		info("savecore: %s: %s\n", dev->path, why);
		return;
	}
	fprintf(stderr, "savecore: %s: %s%s\n", dev->path, why,
		code == DD_EXIT_CORRUPT ? "; the partition is left as it is" : "");
	if (d->content == DD_FOREIGN)
		name_signatures(dev);
}

static int check_device(struct dd_dev *dev, struct dd_dump *d, int code,
			char *why, size_t whylen)
{
	const char *state;

	if (code == DD_EXIT_NODUMP && d->content == DD_SAVED)
		code = DD_EXIT_UNFORMATTED;	/* savecore DEVICE formats it */
	else if (code == DD_EXIT_NODUMP)
		code = verify_empty(dev, d, why, whylen);
	state = state_name(code, d->content);
	if (opt.machine) {
		machine_report(dev, d, code, state, why);
		return code;
	}
	report(dev, d, code, why);
	if (state)
		printf("state: %s\n", state);
	if (code == DD_EXIT_OK)
		dd_print_summary(stdout, d, dev->path);
	return code;
}

/* A dump saved before whose partition was not formatted again: do it. */
static int finish_format(struct dd_dev *dev, const struct dd_dump *d)
{
	info("savecore: %s: the dump was saved before; formatting the partition again\n",
	     dev->path);
	if (claim_device(dev) || format_again(dev, d)) {
		fprintf(stderr, "savecore: %s could not be formatted again\n", dev->path);
		return DD_EXIT_ERROR;
	}
	info("savecore: %s formatted for the next dump\n", dev->path);
	return DD_EXIT_NODUMP;
}

static bool is_regular(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISREG(st.st_mode);
}

static int run(const char *path, const char *dir)
{
	unsigned int flags = (opt.check_only || opt.keep ? 0 : DD_OPEN_WRITE) |
			     (opt.machine ? DD_OPEN_QUIET : 0);
	char why[512];
	struct dd_dump d;
	struct dd_dev dev;
	int ret;

	ret = dd_open(&dev, path, flags);
	if (ret) {
		if (opt.machine)
			machine_report(&dev, NULL, DD_EXIT_ERROR, NULL,
				       dd_open_error(ret));
		return DD_EXIT_ERROR;
	}
	if (opt.keyfile && !opt.keep && is_regular(dev.fd)) {
		/* a saved vmcore.encrypted is an archive, not a partition */
		opt.keep = true;
	}
	dev.keyfile = opt.keyfile;
	ret = -dd_load(&dev, &d, &(struct dd_load_opts){
			.force = opt.force, .map_stacks = opt.map_stacks,
			.quiet = opt.quiet,
		}, why, sizeof(why));
	if (opt.check_only)
		ret = check_device(&dev, &d, ret, why, sizeof(why));
	else if (d.content == DD_SAVED && !opt.keep)
		ret = finish_format(&dev, &d);
	else if (ret)
		report(&dev, &d, ret, why);
	else
		ret = save_device(&dev, &d, dir);
	dd_free(&d);
	dd_close(&dev);
	return ret;
}

static int parse_size(const char *arg, const char *what, uint64_t max, uint64_t *val)
{
	char *end;

	errno = 0;
	*val = strtoull(arg, &end, 10);
	if (errno || *end || end == arg || *val > max) {
		fprintf(stderr, "savecore: bad --%s '%s'\n", what, arg);
		return -1;
	}
	return 0;
}

static int parse_compress(const char *arg)
{
	for (int c = DD_ZSTD; c >= DD_NONE; c--) {
		if (!strcmp(arg, compress_names[c])) {
			opt.compress = (enum dd_compress)c;
			opt.compress_set = true;
			return 0;
		}
	}
	fprintf(stderr, "savecore: --compress is zlib, lzo, zstd or none, not '%s'\n", arg);
	return -1;
}

static int parse_format(const char *arg)
{
	if (strcmp(arg, "elf") && strcmp(arg, "kdump")) {
		fprintf(stderr, "savecore: --format is elf or kdump, not '%s'\n", arg);
		return -1;
	}
	opt.kdump = !strcmp(arg, "kdump");
	return 0;
}

/* One option: 0, or the exit status to stop with. */
static int parse_option(int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case 'c':
		opt.check_only = true;
		return 0;
	case 'k':
		opt.keep = true;
		return 0;
	case 'M':
		opt.machine = true;
		opt.quiet = true;
		return 0;
	case 's':
		opt.map_stacks = true;
		return 0;
	case 'S':
		opt.map_stacks = false;
		return 0;
	case 'f':
		opt.force = true;
		return 0;
	case 'K':
		opt.keyfile = arg;
		return 0;
	case 'm':
		if (parse_size(arg, "min-free", 1ULL << 40, &v))
			return DD_EXIT_USAGE;
		opt.min_free = v << 20;
		return 0;
	case 'F':
		return parse_format(arg) ? DD_EXIT_USAGE : 0;
	case 'Z':
		return parse_compress(arg) ? DD_EXIT_USAGE : 0;
	case 'n':
		if (parse_size(arg, "keep-dumps", 10000, &v))
			return DD_EXIT_USAGE;
		if (!v) {
			fprintf(stderr, "savecore: --keep-dumps 0 keeps no dump\n");
			return DD_EXIT_USAGE;
		}
		opt.keep_dumps = (unsigned int)v;
		return 0;
	case 'v':
		opt.verbose = true;
		return 0;
	case 'q':
		opt.quiet = true;
		return 0;
	default:
		print_usage(stderr);
		return DD_EXIT_USAGE;
	}
}

/* A long option only, outside the short options' range. */
#define OPT_CHECK_USAGE	0x100

/* The options together, and the number of operands: 0, or DD_EXIT_USAGE. */
static int check_usage(int nargs, char **args, bool check_mode)
{
	if (nargs > 2) {
		fprintf(stderr, "savecore: one DEVICE and one DIR at most, not also '%s'\n",
			args[2]);
		return DD_EXIT_USAGE;
	}
	if (nargs < 1 && !check_mode) {
		print_usage(stderr);
		return DD_EXIT_USAGE;
	}
	if (opt.machine && !opt.check_only) {
		fprintf(stderr, "savecore: -M goes with -c\n");
		return DD_EXIT_USAGE;
	}
	if (opt.compress_set && !opt.kdump)
		fprintf(stderr, "savecore: warning: -Z %s does nothing without -F kdump\n",
			compress_names[opt.compress]);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "keep", no_argument, NULL, 'k' },
		{ "machine", no_argument, NULL, 'M' },
		{ "map-stacks", no_argument, NULL, 's' },
		{ "no-map-stacks", no_argument, NULL, 'S' },
		{ "min-free", required_argument, NULL, 'm' },
		{ "format", required_argument, NULL, 'F' },
		{ "compress", required_argument, NULL, 'Z' },
		{ "keep-dumps", required_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'f' },
		{ "key", required_argument, NULL, 'K' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "check-usage", no_argument, NULL, OPT_CHECK_USAGE },
		{ NULL, 0, NULL, 0 }
	};
	bool check_mode = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "cMksSfm:F:Z:n:K:vqhV", opts, NULL)) != -1) {
		if (c == OPT_CHECK_USAGE) {
			/* first, and once: an option string checked with it never holds it */
			if (check_mode || optind != 2) {
				fprintf(stderr, "savecore: --check-usage goes first, once\n");
				return DD_EXIT_USAGE;
			}
			check_mode = true;
			continue;
		}
		if ((c == 'h' || c == 'V') && check_mode) {
			fprintf(stderr, "savecore: -%c saves nothing\n", c);
			return DD_EXIT_USAGE;
		}
		if (c == 'h') {
			print_usage(stdout);
			return DD_EXIT_OK;
		}
		if (c == 'V') {
			printf("savecore %s\n", DD_VERSION);
			return DD_EXIT_OK;
		}
		ret = parse_option(c, optarg);
		if (ret)
			return ret;
	}
	ret = check_usage(argc - optind, argv + optind, check_mode);
	if (ret)
		return ret;
	if (check_mode) {
		printf("mode: %s\nkeep: %s\noperands: %d\n",
		       opt.check_only ? "check" : "save", opt.keep ? "yes" : "no",
		       argc - optind);
		return DD_EXIT_OK;
	}
	return run(argv[optind], argc - optind == 2 ? argv[optind + 1] : "/var/crash");
}
