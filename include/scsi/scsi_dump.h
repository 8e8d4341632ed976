/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCSI disks as diskdump devices: the mid-layer side of the driver contract.
 *
 * A host driver that can dump sets dump_sanity_check, dump_quiesce and
 * dump_poll (dump_shutdown is optional) in its scsi_host_template; see
 * Documentation/diskdump.txt.
 */
#ifndef _SCSI_SCSI_DUMP_H
#define _SCSI_SCSI_DUMP_H

struct scsi_cmnd;

#ifdef CONFIG_SCSI_DUMP
void scsi_dump_done(struct scsi_cmnd *cmd);
int scsi_dump_init(void);
void scsi_dump_exit(void);
#else
static inline void scsi_dump_done(struct scsi_cmnd *cmd)
{
}

static inline int scsi_dump_init(void)
{
	return 0;
}

static inline void scsi_dump_exit(void)
{
}
#endif

#endif /* _SCSI_SCSI_DUMP_H */
