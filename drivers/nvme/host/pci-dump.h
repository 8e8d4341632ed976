/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crash dumps to NVMe namespaces (diskdump): what pci.c and pci-dump.c
 * share.  pci.c asks the controller for one I/O queue more than it uses and
 * keeps the last one for dumps; pci-dump.c creates that queue pair when a
 * dump partition is configured and polls it at panic time.
 */
#ifndef _NVME_PCI_DUMP_H
#define _NVME_PCI_DUMP_H

#include <linux/types.h>

struct device;
struct nvme_ctrl;

/**
 * struct nvme_dump_queue - where the dump queue pair lives
 * @dma_dev: the device that does DMA (the PCI function)
 * @bar: the controller registers
 * @sq_db: submission queue tail doorbell
 * @cq_db: completion queue head doorbell
 * @shadow_sq: shadow doorbell of the submission queue, or NULL
 * @shadow_cq: shadow doorbell of the completion queue, or NULL
 * @qid: the queue identifier set aside for dumps
 * @cur_qid: where pci.c keeps the one it sets aside now (a reset that
 *	grants more queues moves it)
 */
struct nvme_dump_queue {
	struct device *dma_dev;
	void __iomem *bar;
	u32 __iomem *sq_db;
	u32 __iomem *cq_db;
	__le32 *shadow_sq;
	__le32 *shadow_cq;
	const unsigned int *cur_qid;
	u16 qid;
};

#ifdef CONFIG_NVME_DUMP
#define NVME_DUMP_QUEUES	1

int nvme_pci_dump_queue(struct nvme_ctrl *ctrl, struct nvme_dump_queue *q);
void nvme_dump_ctrl_disabled(struct nvme_ctrl *ctrl);
void nvme_dump_ctrl_live(struct nvme_ctrl *ctrl);
int nvme_dump_init(void);
void nvme_dump_exit(void);
#else
#define NVME_DUMP_QUEUES	0

static inline void nvme_dump_ctrl_disabled(struct nvme_ctrl *ctrl)
{
}

static inline void nvme_dump_ctrl_live(struct nvme_ctrl *ctrl)
{
}

static inline int nvme_dump_init(void)
{
	return 0;
}

static inline void nvme_dump_exit(void)
{
}
#endif

#endif /* _NVME_PCI_DUMP_H */
