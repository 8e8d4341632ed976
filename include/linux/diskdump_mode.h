/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crashdump mode: while diskdump writes a crash dump, the timers and
 * tasklets that its drivers arm are diverted to diskdump's private lists
 * (kernel/time/timer.c, kernel/softirq.c), as neither the timer wheel nor
 * the softirqs will run again; other code's stay pending, never run.
 */
#ifndef _LINUX_DISKDUMP_MODE_H
#define _LINUX_DISKDUMP_MODE_H

#include <linux/compiler.h>
#include <linux/smp.h>
#include <linux/types.h>

struct timer_list;
struct tasklet_struct;

/*
 * Declared whatever the config, so that the crashdump-mode branches in the
 * timer and softirq code compile (and fold away) with CONFIG_DISKDUMP=n.
 */
int diskdump_mod_timer(struct timer_list *timer, unsigned long expires);
int diskdump_del_timer(struct timer_list *timer, bool shutdown);
void diskdump_tasklet_schedule(struct tasklet_struct *t);

/* In kernel/time/timer.c: take a timer off the timer wheel in crashdump mode. */
int crashdump_detach_wheel_timer(struct timer_list *timer);
/* In kernel/softirq.c: hand this CPU's queued tasklets to diskdump. */
void crashdump_take_tasklets(void);

#ifdef CONFIG_DISKDUMP

extern int diskdump_mode;
extern int diskdump_cpu;

/**
 * crashdump_mode - is this CPU writing a crash dump right now?
 *
 * True on the dumping CPU from the moment diskdump takes over the panic
 * until it hands back to panic().  Timers and tasklets are diverted to
 * diskdump's private lists while it is true.  On any other CPU (which should
 * be stopped, but may not have answered the NMI) it stays false, so nothing
 * else ever touches those lists.  Outside a dump it costs one load and one
 * predicted branch; it is always inlined, as a call would cost more than
 * the test (gcc -Os does not inline a plain static inline here).
 */
static __always_inline bool crashdump_mode(void)
{
	if (likely(!READ_ONCE(diskdump_mode)))
		return false;
	return raw_smp_processor_id() == READ_ONCE(diskdump_cpu);
}

#else

static inline bool crashdump_mode(void)
{
	return false;
}

#endif /* CONFIG_DISKDUMP */

#endif /* _LINUX_DISKDUMP_MODE_H */
