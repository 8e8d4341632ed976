// SPDX-License-Identifier: GPL-2.0
/* The dump partition format, shared by savecore and diskdumpfmt. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>
#include <blkid/blkid.h>

#include "ddcore.h"

uint32_t dd_crc32(uint32_t crc, const void *buf, size_t len)
{
	static uint32_t table[256];
	const uint8_t *p = buf;

	if (!table[1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* Clear O_DIRECT: the file system refused it (tmpfs, some overlays). */
static void go_buffered(struct dd_dev *dev)
{
	int fl = fcntl(dev->fd, F_GETFL);

	if (fl >= 0)
		fcntl(dev->fd, F_SETFL, fl & ~O_DIRECT);
	dev->direct = false;
	dd_drop_cache(dev);
}

static int open_device(struct dd_dev *dev, unsigned int flags)
{
	int mode = (flags & DD_OPEN_WRITE ? O_RDWR : O_RDONLY) | O_CLOEXEC;
	int fl;

	if (flags & DD_OPEN_EXCL)
		mode |= O_EXCL;
	dev->fd = open(dev->path, mode | O_DIRECT);
	if (dev->fd < 0 && errno == EINVAL)
		dev->fd = open(dev->path, mode);
	if (dev->fd < 0)
		return -errno;
	fl = fcntl(dev->fd, F_GETFL);
	dev->direct = fl >= 0 && (fl & O_DIRECT);
	if (!dev->direct)
		dd_drop_cache(dev);
	return 0;
}

static int device_size(struct dd_dev *dev)
{
	struct stat st;

	if (fstat(dev->fd, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode))
		return ioctl(dev->fd, BLKGETSIZE64, &dev->size) < 0 ? -errno : 0;
	if (!S_ISREG(st.st_mode))
		return -ENODEV;
	dev->size = (uint64_t)st.st_size;
	return 0;
}

const char *dd_open_error(int err)
{
	return err == -ENODEV ? "not a block device or image file" : strerror(-err);
}

int dd_open(struct dd_dev *dev, const char *path, unsigned int flags)
{
	int ret;

	memset(dev, 0, sizeof(*dev));
	dev->path = path;
	ret = open_device(dev, flags);
	if (ret == -EBUSY && (flags & DD_OPEN_EXCL))
		return ret;
	if (!ret)
		ret = device_size(dev);
	if (ret) {
		if (!(flags & DD_OPEN_QUIET))
			fprintf(stderr, "%s: %s\n", path, dd_open_error(ret));
		if (dev->fd >= 0)
			close(dev->fd);
		dev->fd = -1;
		return ret;
	}
	dev->blocks = dev->size / DISKDUMP_BLOCK_SIZE;
	return 0;
}

/* Do @a and @b describe the same file, or the same block device? */
static bool same_file(const struct stat *a, const struct stat *b)
{
	if (S_ISBLK(a->st_mode) || S_ISBLK(b->st_mode))
		return S_ISBLK(a->st_mode) && S_ISBLK(b->st_mode) &&
		       a->st_rdev == b->st_rdev;
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int dd_reopen(const struct dd_dev *dev, int flags)
{
	struct stat was, now;
	int fd;

	fd = open(dev->path, flags | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(dev->fd, &was) || fstat(fd, &now) || !same_file(&was, &now)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

const char *dd_reopen_error(int err)
{
	return err == -ESTALE ? "the name now leads to another device than the one opened"
			      : strerror(-err);
}

void dd_close(struct dd_dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
	if (dev->crypt_free)
		dev->crypt_free(dev->crypt);
	dev->crypt = NULL;
	dev->decrypt = NULL;
	dev->crypt_free = NULL;
}

void dd_drop_cache(struct dd_dev *dev)
{
	if (!dev->direct)
		posix_fadvise(dev->fd, 0, 0, POSIX_FADV_DONTNEED);
}

int dd_sync(struct dd_dev *dev)
{
	if (fsync(dev->fd) < 0) {
		fprintf(stderr, "%s: fsync: %s\n", dev->path, strerror(errno));
		return -1;
	}
	dd_drop_cache(dev);
	return 0;
}

void *dd_alloc_blocks(uint64_t n)
{
	void *p;

	if (!n || n > SIZE_MAX / DISKDUMP_BLOCK_SIZE ||
	    posix_memalign(&p, DISKDUMP_BLOCK_SIZE, n * DISKDUMP_BLOCK_SIZE))
		return NULL;
	return p;
}

static ssize_t rw_once(struct dd_dev *dev, bool wr, void *p, size_t len,
		       uint64_t off)
{
	ssize_t r;

	do {
		r = wr ? pwrite(dev->fd, p, len, (off_t)off) :
			 pread(dev->fd, p, len, (off_t)off);
	} while (r < 0 && errno == EINTR);
	if (r < 0 && errno == EINVAL && dev->direct) {
		go_buffered(dev);
		return rw_once(dev, wr, p, len, off);
	}
	return r;
}

/* @buf aligned for O_DIRECT, or the device buffered. */
static int rw_aligned(struct dd_dev *dev, bool wr, uint64_t block, char *p,
		      uint64_t n)
{
	uint64_t off = block * DISKDUMP_BLOCK_SIZE, len = n * DISKDUMP_BLOCK_SIZE;

	while (len) {
		ssize_t r = rw_once(dev, wr, p, len, off);

		if (r <= 0) {
			fprintf(stderr, "%s: %s at byte %" PRIu64 ": %s\n", dev->path,
				wr ? "write" : "read", off,
				r < 0 ? strerror(errno) : "unexpected end");
			return -1;
		}
		p += r;
		off += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

#define BOUNCE_BLOCKS 256

/* O_DIRECT and an unaligned @buf: through an aligned copy. */
static int rw_bounced(struct dd_dev *dev, bool wr, uint64_t block, char *buf,
		      uint64_t n)
{
	uint64_t chunk = n < BOUNCE_BLOCKS ? n : BOUNCE_BLOCKS, done, k;
	char *b = dd_alloc_blocks(chunk);
	int ret = b ? 0 : -1;

	for (done = 0; !ret && done < n; done += k) {
		size_t len;

		k = n - done < chunk ? n - done : chunk;
		len = k * DISKDUMP_BLOCK_SIZE;
		if (wr)
			memcpy(b, buf + done * DISKDUMP_BLOCK_SIZE, len);
		ret = rw_aligned(dev, wr, block + done, b, k);
		if (!ret && !wr)
			memcpy(buf + done * DISKDUMP_BLOCK_SIZE, b, len);
	}
	free(b);
	return ret;
}

static int rw_all(struct dd_dev *dev, bool wr, uint64_t block, void *buf,
		  uint64_t n)
{
	if (block > dev->blocks || n > dev->blocks - block) {
		fprintf(stderr,
			"%s: blocks %" PRIu64 "+%" PRIu64
			" lie outside the device (%" PRIu64 " blocks)\n",
			dev->path, block, n, dev->blocks);
		return -1;
	}
	if (dev->direct && (uintptr_t)buf % DISKDUMP_BLOCK_SIZE)
		return rw_bounced(dev, wr, block, buf, n);
	return rw_aligned(dev, wr, block, buf, n);
}

int dd_read_raw_blocks(struct dd_dev *dev, uint64_t block, void *buf,
		       uint64_t n)
{
	return rw_all(dev, false, block, buf, n);
}

int dd_read_blocks(struct dd_dev *dev, uint64_t block, void *buf, uint64_t n)
{
	if (rw_all(dev, false, block, buf, n))
		return -1;
	return dev->decrypt ? dev->decrypt(dev, block, buf, n) : 0;
}

int dd_write_blocks(struct dd_dev *dev, uint64_t block, const void *buf,
		    uint64_t n)
{
	return rw_all(dev, true, block, (void *)buf, n);
}

int dd_write_full(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t w = pwrite(fd, p, len, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int err = w < 0 ? errno : ENOSPC;

			fprintf(stderr, "savecore: write: %s\n", strerror(err));
			return err == ENOSPC || err == EDQUOT ? -DD_EXIT_NOSPACE : -DD_EXIT_ERROR;
		}
		p += w;
		off += (uint64_t)w;
		len -= (size_t)w;
	}
	return 0;
}

/* ---- write-behind ---- */

#define BEHIND_STEP	(8ULL << 20)	/* writeback started every 8 MiB */
#define BEHIND_KEEP	(32ULL << 20)	/* in flight before waiting for it */

void dd_behind_init(struct dd_behind *b, int fd, uint64_t off)
{
	b->fd = fd;
	b->started = off;
	b->dropped = off;
}

void dd_behind_advance(struct dd_behind *b, uint64_t end)
{
	uint64_t to;

	if (end < b->started + BEHIND_STEP)
		return;
	sync_file_range(b->fd, (off64_t)b->started, (off64_t)(end - b->started),
			SYNC_FILE_RANGE_WRITE);
	b->started = end;
	if (b->started < b->dropped + 2 * BEHIND_KEEP)
		return;
	to = b->started - BEHIND_KEEP;
	sync_file_range(b->fd, (off64_t)b->dropped, (off64_t)(to - b->dropped),
			SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
			SYNC_FILE_RANGE_WAIT_AFTER);
	posix_fadvise(b->fd, (off_t)b->dropped, (off_t)(to - b->dropped),
		      POSIX_FADV_DONTNEED);
	b->dropped = to;
}

/* ---- pipes: read ahead, work in threads, emit in order ---- */

#define PIPE_CHUNK	1024	/* blocks: 4 MiB reads */
#define PIPE_MAX_WORKERS 32

static unsigned int pipe_threads, pipe_chunk = PIPE_CHUNK;

void dd_pipe_tune(unsigned int threads, unsigned int chunk)
{
	pipe_threads = threads;
	pipe_chunk = chunk ? chunk : PIPE_CHUNK;
}

unsigned int dd_pipe_chunk(void)
{
	return pipe_chunk;
}

unsigned int dd_pipe_workers(void)
{
	long cpus;

	if (pipe_threads)
		return pipe_threads < PIPE_MAX_WORKERS ? pipe_threads : PIPE_MAX_WORKERS;
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 1)
		return 1;
	return cpus < PIPE_MAX_WORKERS ? (unsigned int)cpus : PIPE_MAX_WORKERS;
}

struct pipe_slot {
	struct dd_chunk c;
	bool worked;
};

/*
 * Chunk s lives in slot s % nr_slots from its read to its emit.  One
 * reader reads chunks in order, workers take the read ones in order and
 * finish them in any, the caller emits them in order, which frees the slot
 * for the reader.  Every change is broadcast on one condition.
 */
struct pipe_run {
	struct dd_dev *dev;
	const struct dd_pipe *p;
	uint64_t block, n, nr_chunks;
	unsigned int chunk, nr_slots, nr_workers;
	struct pipe_slot *slots;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t nr_read;	/* chunks read */
	uint64_t next_work;	/* the next chunk a worker takes */
	uint64_t next_emit;	/* the next chunk to emit */
	bool stop;
	int err;
};

struct pipe_worker {
	struct pipe_run *r;
	unsigned int nr;
};

static void chunk_at(struct pipe_run *r, uint64_t seq, struct dd_chunk *c)
{
	c->seq = seq;
	c->block = r->block + seq * r->chunk;
	c->n = r->n - seq * r->chunk < r->chunk ? r->n - seq * r->chunk : r->chunk;
}

/* Under the lock: stop everything, keeping the first error. */
static void pipe_fail(struct pipe_run *r, int err)
{
	if (!r->err)
		r->err = err;
	r->stop = true;
	pthread_cond_broadcast(&r->cond);
}

static void *pipe_reader(void *arg)
{
	struct pipe_run *r = arg;

	for (uint64_t s = 0; s < r->nr_chunks; s++) {
		struct pipe_slot *sl = &r->slots[s % r->nr_slots];
		int ret;

		pthread_mutex_lock(&r->lock);
		while (!r->stop && s >= r->next_emit + r->nr_slots)
			pthread_cond_wait(&r->cond, &r->lock);
		if (r->stop) {
			pthread_mutex_unlock(&r->lock);
			break;
		}
		pthread_mutex_unlock(&r->lock);
		chunk_at(r, s, &sl->c);
		sl->worked = false;
		ret = dd_read_blocks(r->dev, sl->c.block, sl->c.buf, sl->c.n);
		pthread_mutex_lock(&r->lock);
		if (ret)
			pipe_fail(r, -DD_EXIT_ERROR);
		else
			r->nr_read = s + 1;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
		if (ret)
			break;
	}
	return NULL;
}

static void *pipe_worker(void *arg)
{
	struct pipe_worker *w = arg;
	struct pipe_run *r = w->r;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		struct pipe_slot *sl;
		uint64_t s;
		int ret;

		while (!r->stop && r->next_work >= r->nr_read && r->next_work < r->nr_chunks)
			pthread_cond_wait(&r->cond, &r->lock);
		if (r->stop || r->next_work >= r->nr_chunks)
			break;
		s = r->next_work++;
		sl = &r->slots[s % r->nr_slots];
		pthread_mutex_unlock(&r->lock);
		ret = r->p->work(r->p->arg, &sl->c, w->nr);
		pthread_mutex_lock(&r->lock);
		if (ret) {
			pipe_fail(r, ret);
			break;
		}
		sl->worked = true;
		pthread_cond_broadcast(&r->cond);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* In the calling thread: every chunk, in order. */
static int pipe_emit_all(struct pipe_run *r)
{
	for (uint64_t s = 0; s < r->nr_chunks; s++) {
		struct pipe_slot *sl = &r->slots[s % r->nr_slots];
		int ret;

		pthread_mutex_lock(&r->lock);
		while (!r->stop && (s >= r->nr_read || (r->nr_workers && !sl->worked)))
			pthread_cond_wait(&r->cond, &r->lock);
		if (r->stop) {
			pthread_mutex_unlock(&r->lock);
			return -1;
		}
		pthread_mutex_unlock(&r->lock);
		ret = r->p->emit(r->p->arg, &sl->c);
		pthread_mutex_lock(&r->lock);
		if (ret)
			pipe_fail(r, ret);
		else
			r->next_emit = s + 1;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
		if (ret)
			return -1;
	}
	return 0;
}

/* One thread: read, work, emit, a chunk at a time. */
static int pipe_inline(struct pipe_run *r)
{
	struct pipe_slot *sl = &r->slots[0];
	int ret = 0;

	for (uint64_t s = 0; !ret && s < r->nr_chunks; s++) {
		chunk_at(r, s, &sl->c);
		if (dd_read_blocks(r->dev, sl->c.block, sl->c.buf, sl->c.n))
			return -DD_EXIT_ERROR;
		if (r->p->work)
			ret = r->p->work(r->p->arg, &sl->c, 0);
		if (!ret)
			ret = r->p->emit(r->p->arg, &sl->c);
	}
	return ret;
}

static int pipe_threaded(struct pipe_run *r)
{
	struct pipe_worker w[PIPE_MAX_WORKERS];
	pthread_t reader, tid[PIPE_MAX_WORKERS];
	unsigned int started = 0;
	int ret = 0;

	if (pthread_mutex_init(&r->lock, NULL))
		return -DD_EXIT_ERROR;
	if (pthread_cond_init(&r->cond, NULL)) {
		pthread_mutex_destroy(&r->lock);
		return -DD_EXIT_ERROR;
	}
	if (pthread_create(&reader, NULL, pipe_reader, r)) {
		ret = -DD_EXIT_ERROR;
		goto out;
	}
	for (; started < r->nr_workers; started++) {
		w[started].r = r;
		w[started].nr = started;
		if (pthread_create(&tid[started], NULL, pipe_worker, &w[started]))
			break;
	}
	if (started < r->nr_workers) {
		pthread_mutex_lock(&r->lock);
		pipe_fail(r, -DD_EXIT_ERROR);
		pthread_mutex_unlock(&r->lock);
	} else {
		pipe_emit_all(r);
	}
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	pthread_join(reader, NULL);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	ret = r->err;
out:
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	return ret;
}

int dd_pipe_run(struct dd_dev *dev, uint64_t block, uint64_t n,
		const struct dd_pipe *p)
{
	struct pipe_run r = {
		.dev = dev, .p = p, .block = block, .n = n, .chunk = pipe_chunk,
	};
	unsigned int workers = dd_pipe_workers();
	bool one;
	int ret = 0;

	if (!n)
		return 0;
	if (!dev->direct)	/* O_DIRECT refused: the cache reads ahead */
		posix_fadvise(dev->fd, (off_t)(block * DISKDUMP_BLOCK_SIZE),
			      (off_t)(n * DISKDUMP_BLOCK_SIZE), POSIX_FADV_SEQUENTIAL);
	r.nr_chunks = (n + r.chunk - 1) / r.chunk;
	r.nr_workers = p->work ? workers : 0;
	one = pipe_threads == 1 || r.nr_chunks == 1;
	/* reading ahead, being emitted, and one and a half for each worker */
	r.nr_slots = one ? 1 : 4 + r.nr_workers + r.nr_workers / 2;
	if (r.nr_slots > r.nr_chunks)
		r.nr_slots = (unsigned int)r.nr_chunks;
	r.slots = calloc(r.nr_slots, sizeof(*r.slots));
	for (unsigned int i = 0; r.slots && i < r.nr_slots; i++) {
		r.slots[i].c.buf = dd_alloc_blocks(r.chunk);
		r.slots[i].c.priv = p->priv_size ? calloc(1, p->priv_size) : NULL;
		if (!r.slots[i].c.buf || (p->priv_size && !r.slots[i].c.priv))
			ret = -DD_EXIT_ERROR;
	}
	if (!r.slots)
		ret = -DD_EXIT_ERROR;
	if (!ret)
		ret = one ? pipe_inline(&r) : pipe_threaded(&r);
	for (unsigned int i = 0; r.slots && i < r.nr_slots; i++) {
		free(r.slots[i].c.buf);
		free(r.slots[i].c.priv);
	}
	free(r.slots);
	return ret;
}

#define FMT_WORDS (DISKDUMP_BLOCK_SIZE / 8)

_Static_assert(sizeof(struct diskdump_fmt_block) == DISKDUMP_FMT_HDR_WORDS * 8,
	       "the format header is whole words");

void dd_fill_fmt_block(void *block, uint64_t block_nr, uint64_t nr_blocks)
{
	struct diskdump_fmt_block fb = {
		.endian = DISKDUMP_ENDIAN_MARK,
		.block_size = DISKDUMP_BLOCK_SIZE,
		.block_nr = block_nr,
		.nr_blocks = nr_blocks,
		.version = DISKDUMP_FMT_VERSION,
	};
	unsigned char *p = block;

	memcpy(fb.magic, DISKDUMP_FMT_MAGIC, DISKDUMP_MAGIC_LEN);
	memcpy(p, &fb, sizeof(fb));
	for (uint32_t i = DISKDUMP_FMT_HDR_WORDS; i < FMT_WORDS; i++) {
		uint64_t w = diskdump_fmt_word(block_nr, i);

		memcpy(p + 8 * i, &w, 8);
	}
}

/* Branch free: the cost is the same for every block, good or bad. */
static bool fmt_words_ok(const unsigned char *p, uint64_t block_nr)
{
	uint64_t diff = 0, w;

	for (uint32_t i = DISKDUMP_FMT_HDR_WORDS; i < FMT_WORDS; i++) {
		memcpy(&w, p + 8 * i, 8);
		diff |= w ^ diskdump_fmt_word(block_nr, i);
	}
	return !diff;
}

static bool tail_is_zero(const unsigned char *p)
{
	uint64_t acc = 0, w;

	for (uint32_t i = DISKDUMP_FMT_HDR_WORDS; i < FMT_WORDS; i++) {
		memcpy(&w, p + 8 * i, 8);
		acc |= w;
	}
	return !acc;
}

enum dd_fmt_check dd_fmt_block_check(const void *block, uint64_t block_nr,
				     uint64_t nr_blocks)
{
	struct diskdump_fmt_block fb;

	memcpy(&fb, block, sizeof(fb));
	if (memcmp(fb.magic, DISKDUMP_FMT_MAGIC, DISKDUMP_MAGIC_LEN) ||
	    fb.endian != DISKDUMP_ENDIAN_MARK ||
	    fb.block_size != DISKDUMP_BLOCK_SIZE || fb.block_nr != block_nr ||
	    fb.pad)
		return DD_FMT_BAD;
	/* version 1: the same header without a version, then zeros */
	if (!fb.version)
		return tail_is_zero(block) ? DD_FMT_OLD : DD_FMT_BAD;
	if (fb.version != DISKDUMP_FMT_VERSION || fb.nr_blocks != nr_blocks)
		return DD_FMT_BAD;
	return fmt_words_ok(block, block_nr) ? DD_FMT_OK : DD_FMT_BAD;
}

#define FMT_CHUNK 256	/* blocks per write: 1 MiB */

static int write_fmt_blocks(struct dd_dev *dev, char *buf, uint64_t first,
			    uint64_t end)
{
	uint64_t b, n;

	for (b = first; b < end; b += n) {
		n = end - b < FMT_CHUNK ? end - b : FMT_CHUNK;
		for (uint64_t i = 0; i < n; i++)
			dd_fill_fmt_block(buf + i * DISKDUMP_BLOCK_SIZE, b + i,
					  dev->blocks);
		if (dd_write_blocks(dev, b, buf, n))
			return -1;
	}
	return 0;
}

int dd_format_range(struct dd_dev *dev, uint64_t first, uint64_t end)
{
	char *buf = dd_alloc_blocks(FMT_CHUNK);
	int ret;

	if (!buf) {
		fprintf(stderr, "%s: out of memory\n", dev->path);
		return -1;
	}
	/*
	 * Block 0 last, once the rest is on the disk: a format that fails or
	 * is cut short leaves block 0 as it was, so it never looks complete,
	 * and a dump header there stays one.
	 */
	ret = write_fmt_blocks(dev, buf, first ? first : 1, end);
	if (!ret)
		ret = dd_sync(dev);
	if (!ret && !first && end)
		ret = write_fmt_blocks(dev, buf, 0, 1);
	if (!ret && !first && end)
		ret = dd_sync(dev);
	free(buf);
	return ret;
}

int dd_verify_format(struct dd_dev *dev, uint64_t first, uint64_t end,
		     struct dd_fmt_scan *scan)
{
	char *buf = dd_alloc_blocks(FMT_CHUNK);
	uint64_t b, n;

	memset(scan, 0, sizeof(*scan));
	if (!buf)
		return -1;
	dd_drop_cache(dev);
	for (b = first; b < end; b += n) {
		n = end - b < FMT_CHUNK ? end - b : FMT_CHUNK;
		if (dd_read_raw_blocks(dev, b, buf, n)) {
			free(buf);
			return -1;
		}
		for (uint64_t i = 0; i < n; i++) {
			if (dd_fmt_block_check(buf + i * DISKDUMP_BLOCK_SIZE, b + i,
					       dev->blocks) == DD_FMT_OK)
				continue;
			if (!scan->nr_bad++)
				scan->first_bad = b + i;
		}
	}
	free(buf);
	return 0;
}

/* A header that savecore marked saved, its checksum right? */
static bool header_saved(const void *block0)
{
	struct diskdump_header h;

	memcpy(&h, block0, sizeof(h));
	if (h.endian != DISKDUMP_ENDIAN_MARK || !(h.flags & DISKDUMP_FLAG_SAVED))
		return false;
	h.crc = 0;
	return dd_crc32(0, &h, sizeof(h)) == ((const struct diskdump_header *)block0)->crc;
}

enum dd_content dd_classify(const void *block0, uint64_t nr_blocks)
{
	switch (dd_fmt_block_check(block0, 0, nr_blocks)) {
	case DD_FMT_OK:
		return DD_EMPTY;
	case DD_FMT_OLD:
		return DD_OLD_FORMAT;
	case DD_FMT_BAD:
		break;
	}
	if (!memcmp(block0, DISKDUMP_HDR_MAGIC, DISKDUMP_MAGIC_LEN))
		return header_saved(block0) ? DD_SAVED : DD_DUMP;
	if (!memcmp(block0, DISKDUMP_FMT_MAGIC, DISKDUMP_MAGIC_LEN))
		return DD_DAMAGED;
	return DD_FOREIGN;
}

const char *dd_status_name(uint32_t status)
{
	switch (status) {
	case DISKDUMP_STATUS_WRITING:
		return "incomplete (the kernel stopped while writing)";
	case DISKDUMP_STATUS_COMPLETE:
		return "complete";
	case DISKDUMP_STATUS_INCOMPLETE:
		return "incomplete";
	default:
		return "unknown";
	}
}

/* Say why in @why and return -1. */
static int
dd_fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -1;
}

static bool region_ok(uint64_t start, uint64_t len, uint64_t limit)
{
	return start <= limit && len <= limit - start;
}

static int check_identity(const struct diskdump_header *h, char *why, size_t whylen)
{
	struct diskdump_header copy;
	uint32_t crc;

	if (memcmp(h->magic, DISKDUMP_HDR_MAGIC, DISKDUMP_MAGIC_LEN))
		return dd_fail(why, whylen, "no dump header signature");
	if (h->endian != DISKDUMP_ENDIAN_MARK)
		return dd_fail(why, whylen, "dump written with another byte order");
	if (h->version != DISKDUMP_HDR_VERSION)
		return dd_fail(why, whylen, "header version %u, this savecore reads %u", h->version,
			       DISKDUMP_HDR_VERSION);
	if (h->header_size != sizeof(*h))
		return dd_fail(why, whylen,
			       "header size %u, expected %zu", h->header_size, sizeof(*h));
	copy = *h;
	copy.crc = 0;
	crc = dd_crc32(0, &copy, sizeof(copy));
	if (crc != h->crc)
		return dd_fail(why, whylen,
			       "header checksum mismatch (%08x, header says %08x)", crc, h->crc);
	if (h->block_size != DISKDUMP_BLOCK_SIZE)
		return dd_fail(why, whylen, "block size %u not supported", h->block_size);
	return 0;
}

/* Every region inside the @limit blocks of the partition the kernel wrote. */
static int check_layout(const struct diskdump_header *h, uint64_t limit,
			char *why, size_t whylen)
{
	if (h->max_pfn == 0 || h->max_pfn > (1ULL << 40))
		return dd_fail(why, whylen, "implausible max_pfn %" PRIu64, (uint64_t)h->max_pfn);
	if (h->bitmap_blocks > limit ||
	    h->bitmap_blocks * DISKDUMP_BLOCK_SIZE * 8 < h->max_pfn)
		return dd_fail(why, whylen,
			       "bitmap of %" PRIu64 " blocks does not cover %" PRIu64 " pages",
			       (uint64_t)h->bitmap_blocks, (uint64_t)h->max_pfn);
	if (h->note_block != 1 || h->note_size > 16 * 1024 * 1024 ||
	    !region_ok(h->note_block, (h->note_size + DISKDUMP_BLOCK_SIZE - 1) /
		       DISKDUMP_BLOCK_SIZE, h->bitmap_block))
		return dd_fail(why, whylen,
			       "bad note area (%" PRIu64 " bytes)", (uint64_t)h->note_size);
	if (!region_ok(h->bitmap_block, 2 * h->bitmap_blocks, limit) ||
	    h->data_block != h->bitmap_block + 2 * h->bitmap_blocks)
		return dd_fail(why, whylen, "bad bitmap placement");
	if (h->nr_dump_pages > h->nr_ram_pages || h->nr_ram_pages > h->max_pfn)
		return dd_fail(why, whylen, "page counts do not add up");
	if (h->written_pages > h->nr_dump_pages ||
	    !region_ok(h->data_block, h->written_pages, limit))
		return dd_fail(why, whylen, "%" PRIu64 " written pages do not fit the partition",
			       (uint64_t)h->written_pages);
	return 0;
}

static int check_fields(const struct diskdump_header *h, char *why, size_t whylen)
{
	if (h->status < DISKDUMP_STATUS_WRITING ||
	    h->status > DISKDUMP_STATUS_INCOMPLETE)
		return dd_fail(why, whylen, "unknown status %u", h->status);
	if (h->cipher != DISKDUMP_CIPHER_NONE &&
	    h->cipher != DISKDUMP_CIPHER_CHACHA20_POLY1305)
		return dd_fail(why, whylen, "unknown cipher %u", h->cipher);
	if (h->cipher != DISKDUMP_CIPHER_NONE &&
	    (!h->wrapped_key_size || h->wrapped_key_size > DISKDUMP_WRAPPED_MAX))
		return dd_fail(why, whylen, "wrapped key of %u bytes", h->wrapped_key_size);
	return 0;
}

int dd_check_header(const struct diskdump_header *h, uint64_t dev_blocks,
		    char *why, size_t whylen)
{
	if (check_identity(h, why, whylen))
		return -1;
	if (h->partition_blocks > dev_blocks)
		return dd_fail(why, whylen,
			       "header says %" PRIu64 " blocks, the device has %" PRIu64,
			       (uint64_t)h->partition_blocks, dev_blocks);
	if (check_layout(h, h->partition_blocks, why, whylen))
		return -1;
	return check_fields(h, why, whylen);
}

static void probe_value(blkid_probe pr, const char *name, char *out, size_t len)
{
	const char *v = NULL;

	out[0] = 0;
	if (!blkid_probe_lookup_value(pr, name, &v, NULL) && v)
		snprintf(out, len, "%s", v);
}

/* The signature the probe stopped at: a superblock or a partition table. */
static void probe_signature(blkid_probe pr, struct dd_signature *s)
{
	char off[32];

	memset(s, 0, sizeof(*s));
	probe_value(pr, "TYPE", s->type, sizeof(s->type));
	if (s->type[0]) {
		probe_value(pr, "USAGE", s->usage, sizeof(s->usage));
		probe_value(pr, "SBMAGIC_OFFSET", off, sizeof(off));
	} else {
		probe_value(pr, "PTTYPE", s->type, sizeof(s->type));
		snprintf(s->usage, sizeof(s->usage), "partition table");
		probe_value(pr, "PTMAGIC_OFFSET", off, sizeof(off));
	}
	s->has_offset = off[0] != 0;
	s->offset = strtoull(off, NULL, 10);
}

static blkid_probe new_probe(int fd)
{
	blkid_probe pr = blkid_new_probe();

	if (!pr)
		return NULL;
	if (blkid_probe_set_device(pr, fd, 0, 0)) {
		blkid_free_probe(pr);
		return NULL;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
					  BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC | BLKID_PARTS_FORCE_GPT);
	return pr;
}

int dd_signatures(const struct dd_dev *dev, struct dd_signature *sigs, int max)
{
	blkid_probe pr;
	int fd, n = 0, r;

	/* buffered: libblkid reads at any offset, which O_DIRECT refuses */
	fd = dd_reopen(dev, O_RDONLY);
	if (fd < 0)
		return fd;
	/* what is on the disk, not what an earlier writer left cached */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	pr = new_probe(fd);
	if (!pr) {
		close(fd);
		return -ENOMEM;
	}
	while ((r = blkid_do_probe(pr)) == 0) {
		if (n < max)
			probe_signature(pr, &sigs[n]);
		n++;
	}
	blkid_free_probe(pr);
	close(fd);
	return r < 0 ? -EIO : n;
}

static uint64_t note_pad(uint64_t n)
{
	return (n + 3) & ~3ULL;
}

bool dd_note_next(const char *notes, size_t size, size_t *pos,
		  struct dd_note *note)
{
	uint64_t name_off, desc_off, end;
	Elf64_Nhdr nh;

	if (*pos > size || size - *pos < sizeof(nh))
		return false;
	memcpy(&nh, notes + *pos, sizeof(nh));
	name_off = *pos + sizeof(nh);
	desc_off = name_off + note_pad(nh.n_namesz);
	/* the last note's padding may be cut off */
	if (desc_off > size || size - desc_off < nh.n_descsz)
		return false;
	end = desc_off + note_pad(nh.n_descsz);
	note->name = notes + name_off;
	note->namesz = nh.n_namesz;
	note->type = nh.n_type;
	note->desc = notes + desc_off;
	note->descsz = nh.n_descsz;
	*pos = end < size ? end : size;
	return true;
}

bool dd_find_vmcoreinfo(const char *notes, size_t size, struct dd_note *note)
{
	static const char name[] = "VMCOREINFO";
	size_t pos = 0;

	while (dd_note_next(notes, size, &pos, note))
		if (note->namesz == sizeof(name) &&
		    !memcmp(note->name, name, sizeof(name)))
			return true;
	return false;
}
