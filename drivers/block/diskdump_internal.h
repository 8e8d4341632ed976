/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What diskdump's own files share, and nothing else does.
 *
 *   diskdump.c           configuration, self check, the panic-time writer
 *   diskdump_mode.c      crashdump mode: jiffies, timers and tasklets while
 *                        dumping, for drivers that keep calling add_timer()
 *   diskdump_testhooks.c fault injection through debugfs (DISKDUMP_TEST)
 */
#ifndef _DISKDUMP_INTERNAL_H
#define _DISKDUMP_INTERNAL_H

#include <linux/diskdump.h>
#include <linux/types.h>

struct block_device;

/* What crashdump mode counted during a dump, for its header and console. */
struct dd_mode_stats {
	u64 timers_run;		/* dump drivers' timer callbacks run */
	u64 timers_ignored;	/* armings of other code's timers: never run */
	void *first_ignored;	/* the first of those timers' functions */
	u64 tasklets_run;	/* dump drivers' tasklets run */
	u64 tasklets_ignored;	/* other code's tasklets queued: never run */
	void *first_ignored_tasklet;	/* the first of those tasklets' functions */
	bool irqs_seen_on;	/* a dump driver turned interrupts on */
};

/* diskdump_mode.c */
void dd_mode_enter(void);
void dd_mode_leave(void);
const struct dd_mode_stats *dd_mode_counts(void);
void dd_mode_shelve(unsigned int *timers, unsigned int *tasklets);

/* diskdump.c: is @fn the code of a dump driver (whose timers run)? */
bool dd_is_dump_code(unsigned long fn);

#ifdef CONFIG_DISKDUMP_TEST
/* diskdump_testhooks.c */
void dd_test_fault_point(void);
void dd_test_quiesce_point(void);
void dd_test_add_point(struct block_device *bdev);
/* diskdump.c: a byte the self check covers */
u8 *dd_test_config_byte(void);
u8 *dd_test_priv_byte(const char **whose);
u8 *dd_test_module_code_byte(const char *name);
u8 *dd_test_core_code_byte(void);
#else
static inline void dd_test_fault_point(void)
{
}

static inline void dd_test_quiesce_point(void)
{
}

static inline void dd_test_add_point(struct block_device *bdev)
{
}
#endif

#endif /* _DISKDUMP_INTERNAL_H */
