// SPDX-License-Identifier: GPL-2.0
/*
 * ddpattern - fill memory with a pattern at known physical addresses, then
 * (optionally) crash the kernel while the memory is still held.
 *
 *   ddpattern MIB LISTFILE [TRIGGER [FILE=VALUE...]]
 *
 * Every 8-byte word of every page holds DDPATTERN_MAGIC ^ its physical
 * address; LISTFILE gets one line per page, "PFN" in hex.  The host checks
 * those words in the saved vmcore.  Then each VALUE is written to its FILE
 * (test hooks), and TRIGGER crashes the kernel: sysrq (sysrq c), bug (an
 * oops in diskdump's test hook), irq (a panic from a hard interrupt), wait
 * (sleep until something else, an NMI from the host, crashes it) or none.
 *
 * Just before the crash it counts the listed pages that moved since they
 * were listed (LISTFILE.moved and the console): their words no longer
 * match their PFN.
 *
 * With DDPOISON=N in the environment, the first N pages are filled, then
 * marked hardware-poisoned with madvise(MADV_HWPOISON); their PFNs go to
 * LISTFILE.poisoned instead of LISTFILE.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DDPATTERN_MAGIC 0xd15cd0de00000000ULL
#define PAGE 4096UL
/* diskdump's fault injection (CONFIG_DISKDUMP_TEST) */
#define TEST_HOOKS "/sys/kernel/debug/diskdump/test"

static int write_file(const char *file, const char *what)
{
	int fd = open(file, O_WRONLY);

	if (fd < 0 || write(fd, what, strlen(what)) < 0) {
		perror(file);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return close(fd);
}

static int trigger(const char *how)
{
	if (!strcmp(how, "sysrq"))
		return write_file("/proc/sysrq-trigger", "c");
	if (!strcmp(how, "bug"))
		return write_file(TEST_HOOKS, "bug");
	if (!strcmp(how, "irq"))
		return write_file(TEST_HOOKS, "irq");
	if (!strcmp(how, "wait")) {
		printf("ddpattern: waiting to be crashed\n");
		fflush(stdout);
		return 0;
	}
	if (!strcmp(how, "none"))
		return 0;
	fprintf(stderr, "ddpattern: unknown trigger %s\n", how);
	return -1;
}

/* Poisoning a page of its own sends the process SIGBUS: count it. */
static volatile sig_atomic_t sigbus_seen;

static void on_sigbus(int sig)
{
	(void)sig;
	sigbus_seen++;
}

/*
 * The list is only true while the pages stay where they are: NUMA
 * balancing and compaction migrate even mlocked pages, the page's old frame
 * is freed and used again, and the dump would show a wrong page that
 * diskdump never touched.  Switch both off (where the kernel has them).
 */
static void keep_pages_in_place(void)
{
	static const char *const knobs[] = {
		"/proc/sys/kernel/numa_balancing",
		"/proc/sys/vm/compact_unevictable_allowed",
	};

	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (access(knobs[i], F_OK) == 0)
			write_file(knobs[i], "0");
}

/* The PFN that /proc/self/pagemap (open as PM) gives the page at ADDR. */
static int pfn_of(int pm, const void *addr, uint64_t *pfn)
{
	uint64_t ent;
	off_t at = (off_t)((uintptr_t)addr / PAGE * 8);

	if (pread(pm, &ent, 8, at) != 8 || !(ent & (1ULL << 63)) ||
	    !(ent & ((1ULL << 55) - 1)))
		return -1;
	*pfn = ent & ((1ULL << 55) - 1);
	return 0;
}

/*
 * Pages that moved since they were listed (migrated by NUMA balancing,
 * compaction or khugepaged) no longer hold their pattern where the list
 * says: count them, so that a wrong page in the dump is not blamed on
 * diskdump.
 */
static unsigned long count_moved(int pm, uint64_t *mem, const uint64_t *listed,
				 unsigned long from, unsigned long pages)
{
	unsigned long i, moved = 0;
	uint64_t pfn;

	for (i = from; i < pages; i++) {
		if (pfn_of(pm, mem + i * (PAGE / 8), &pfn) || pfn != listed[i]) {
			if (!moved)
				printf("ddpattern: page %lu moved from pfn %#llx\n", i,
				       (unsigned long long)listed[i]);
			moved++;
		}
	}
	return moved;
}

/* Write @n to the file LIST@suffix, on disk before the crash. */
static int write_count(const char *list, const char *suffix, unsigned long n)
{
	char name[4096];
	FILE *f;

	snprintf(name, sizeof(name), "%s%s", list, suffix);
	f = fopen(name, "w");
	if (!f || fprintf(f, "%lu\n", n) < 0 || fflush(f) || fsync(fileno(f))) {
		perror(name);
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

/* Each argument is FILE=VALUE: write VALUE to FILE. */
static int prepare(char **args, int n)
{
	for (int i = 0; i < n; i++) {
		char *eq = strchr(args[i], '=');

		if (!eq) {
			fprintf(stderr, "ddpattern: %s: not FILE=VALUE\n", args[i]);
			return -1;
		}
		*eq = 0;
		if (write_file(args[i], eq + 1))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long mib, pages, i, npoison, moved;
	uint64_t *mem, *listed;
	FILE *list, *poisoned = NULL;
	int pm;

	if (argc < 3) {
		fprintf(stderr, "usage: ddpattern MIB LISTFILE [sysrq|bug|irq|wait|none [FILE=VALUE...]]\n");
		return 2;
	}
	mib = strtoul(argv[1], NULL, 0);
	pages = mib * 256;
	keep_pages_in_place();
	mem = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (mem == MAP_FAILED || mlock(mem, pages * PAGE)) {
		perror("mmap/mlock");
		return 1;
	}
	pm = open("/proc/self/pagemap", O_RDONLY);
	list = fopen(argv[2], "w");
	listed = calloc(pages, sizeof(*listed));
	if (pm < 0 || !list || !listed) {
		perror("pagemap/list");
		return 1;
	}
	npoison = getenv("DDPOISON") ? strtoul(getenv("DDPOISON"), NULL, 0) : 0;
	if (npoison) {
		char name[4096];

		signal(SIGBUS, on_sigbus);
		snprintf(name, sizeof(name), "%s.poisoned", argv[2]);
		poisoned = fopen(name, "w");
		if (!poisoned || npoison >= pages) {
			perror(name);
			return 1;
		}
	}
	for (i = 0; i < pages; i++) {
		uint64_t *page = mem + i * (PAGE / 8), pa;

		page[0] = 1;	/* make sure it is present */
		if (pfn_of(pm, page, &listed[i])) {
			fprintf(stderr, "ddpattern: no PFN for page %lu\n", i);
			return 1;
		}
		pa = listed[i] * PAGE;
		for (unsigned long w = 0; w < PAGE / 8; w++)
			page[w] = DDPATTERN_MAGIC ^ (pa + w * 8);
		if (i >= npoison) {
			fprintf(list, "%llx\n", (unsigned long long)(pa / PAGE));
			continue;
		}
		/* The page keeps its pattern; only the kernel can see it now. */
		if (madvise(page, PAGE, MADV_HWPOISON)) {
			perror("madvise(MADV_HWPOISON)");
			return 1;
		}
		fprintf(poisoned, "%llx\n", (unsigned long long)(pa / PAGE));
		printf("ddpattern: poisoned pfn %#llx (SIGBUS %d)\n",
		       (unsigned long long)(pa / PAGE), (int)sigbus_seen);
	}
	if (poisoned && fclose(poisoned))
		perror("poisoned list");
	if (fflush(list) || fsync(fileno(list)))
		perror("list");
	fclose(list);
	sync();
	printf("ddpattern: %lu pages filled\n", pages);
	fflush(stdout);
	moved = count_moved(pm, mem, listed, npoison, pages);
	printf("ddpattern: %lu listed pages moved since\n", moved);
	fflush(stdout);
	/* the console may lose the line to the crash: the file keeps it */
	if (write_count(argv[2], ".moved", moved))
		return 1;
	if (argc > 3) {
		if (prepare(argv + 4, argc - 4) || trigger(argv[3]))
			return 1;
		if (strcmp(argv[3], "none"))
			sleep(120);
	}
	return 0;
}
