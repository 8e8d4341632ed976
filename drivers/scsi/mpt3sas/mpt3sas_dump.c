// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Crash dumps through mpt3sas (SAS2 and SAS3 MPT HBAs: SAS2008 to
 * SAS3916, the HBAs of most servers), to scsi_dump's host-template
 * contract.  Compile-tested only: QEMU models no SAS2 or SAS3 MPT adapter.
 *
 * The dump's command has an SMID of its own: the last of the three SCSI IO
 * SMIDs that the driver keeps from the block layer (can_queue is
 * scsiio_depth less three), of which only the first is ever used (by the
 * ioctl path).  It has its request frame and sense buffer, and the driver
 * finds no callback and no command for it (_base_get_cb_idx() returns
 * 0xFF past the ioctl SMID), so a stray completion of it outside a dump is
 * ignored.  The host keeps dump_copy_pages: a command is one simple SGE
 * over scsi_dump's buffer, mapped when the disk was armed, and needs no
 * chain buffer.
 *
 * At panic, with interrupts off and the other CPUs stopped, queuecommand
 * builds the SCSI IO request in that frame and posts its descriptor (one
 * 64-bit register write, no lock on 64-bit), with MSIxIndex 0, and
 * dump_poll reads the first reply descriptor post queue itself, at most
 * its depth at a time: the dump's reply completes its command, every
 * other reply is dropped (no callback, no SMID freed, no scsi_done()), an
 * address reply's frame given back to the reply free queue once, as the
 * IOC needs.  Nothing takes scsi_lookup_lock, a reply queue's busy count
 * or any lock a stopped CPU may hold; a reset (which sleeps and
 * rediscovers) is never tried: an IOC that is not operational is refused.
 * Adapters whose frames must also be cloned into BAR space (MPI endpoints)
 * and WarpDrive (which rewrites CDBs) are refused when armed.
 */

#include <linux/diskdump.h>
#include <linux/io.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include "mpt3sas_base.h"

/* The dump's SMID: kept from the block layer and unused by the driver. */
static notrace __diskdump_text u16 mpt3sas_dump_smid(struct MPT3SAS_ADAPTER *ioc)
{
	return ioc->scsiio_depth;
}

/* The dump's request frame, as mpt3sas_base_get_msg_frame() finds it. */
static notrace __diskdump_text void *mpt3sas_dump_frame(struct MPT3SAS_ADAPTER *ioc)
{
	return ioc->request + mpt3sas_dump_smid(ioc) * ioc->request_sz;
}

/* Its sense buffer (SMIDs count from 1), and that buffer's bus address. */
static notrace __diskdump_text u8 *mpt3sas_dump_sense(struct MPT3SAS_ADAPTER *ioc)
{
	return ioc->sense + (mpt3sas_dump_smid(ioc) - 1) * SCSI_SENSE_BUFFERSIZE;
}

static notrace __diskdump_text __le32
mpt3sas_dump_sense_dma(struct MPT3SAS_ADAPTER *ioc)
{
	return cpu_to_le32(ioc->sense_dma +
			   (mpt3sas_dump_smid(ioc) - 1) * SCSI_SENSE_BUFFERSIZE);
}

/* The reply queue the dump's descriptor names (MSIxIndex 0), or NULL. */
static notrace __diskdump_text struct adapter_reply_queue *
mpt3sas_dump_reply_q(struct MPT3SAS_ADAPTER *ioc)
{
	struct adapter_reply_queue *reply_q;

	list_for_each_entry(reply_q, &ioc->reply_queue_list, list)
		if (reply_q->msix_index == 0)
			return reply_q;
	return NULL;
}

/* The disk's firmware handle, or MPT3SAS_INVALID_DEVICE_HANDLE. */
static notrace __diskdump_text u16 mpt3sas_dump_handle(struct scsi_device *sdev)
{
	struct MPT3SAS_DEVICE *priv = sdev->hostdata;

	/* a hidden RAID component takes pass-through requests, not these */
	if (!priv || !priv->sas_target || priv->sas_target->deleted ||
	    priv->block ||
	    priv->sas_target->flags & MPT_TARGET_FLAGS_RAID_COMPONENT)
		return MPT3SAS_INVALID_DEVICE_HANDLE;
	return priv->sas_target->handle;
}

/* The one SGE of a command with data, in the HBA's format. */
static notrace __diskdump_text void
mpt3sas_dump_sge(struct MPT3SAS_ADAPTER *ioc, Mpi25SCSIIORequest_t *req,
		 bool to_dev, u32 len, dma_addr_t dma)
{
	Mpi25IeeeSgeChain64_t *ieee = (Mpi25IeeeSgeChain64_t *)&req->SGL;
	u32 flags = MPI2_SGE_FLAGS_SIMPLE_ELEMENT | MPI2_SGE_FLAGS_LAST_ELEMENT |
		    MPI2_SGE_FLAGS_END_OF_BUFFER | MPI2_SGE_FLAGS_END_OF_LIST;

	if (ioc->hba_mpi_version_belonged == MPI2_VERSION) {
		/* SAS2: an MPI simple SGE; the writer adds 64-bit/system */
		if (to_dev)
			flags |= MPI2_SGE_FLAGS_HOST_TO_IOC;
		ioc->base_add_sg_single(&req->SGL,
					flags << MPI2_SGE_FLAGS_SHIFT | len, dma);
		return;
	}
	/* SAS3 and later: an IEEE simple element, the last of the list */
	ieee->Flags = MPI2_IEEE_SGE_FLAGS_SIMPLE_ELEMENT |
		      MPI2_IEEE_SGE_FLAGS_SYSTEM_ADDR |
		      MPI25_IEEE_SGE_FLAGS_END_OF_LIST;
	ieee->NextChainOffset = 0;
	ieee->Length = cpu_to_le32(len);
	ieee->Address = cpu_to_le64(dma);
}

/* The SCSI IO request of @sc in the dump's frame, as scsih_qcmd() builds one. */
static notrace __diskdump_text int
mpt3sas_dump_build(struct MPT3SAS_ADAPTER *ioc, struct scsi_cmnd *sc, u16 handle)
{
	Mpi25SCSIIORequest_t *req = mpt3sas_dump_frame(ioc);
	struct MPT3SAS_DEVICE *priv = sc->device->hostdata;
	u32 control;

	if (sc->cmd_len > 16)
		return -EINVAL;
	if (sc->sc_data_direction == DMA_FROM_DEVICE)
		control = MPI2_SCSIIO_CONTROL_READ;
	else if (sc->sc_data_direction == DMA_TO_DEVICE)
		control = MPI2_SCSIIO_CONTROL_WRITE;
	else
		control = MPI2_SCSIIO_CONTROL_NODATATRANSFER;
	memset(req, 0, ioc->request_sz);
	req->Function = MPI2_FUNCTION_SCSI_IO_REQUEST;
	req->DevHandle = cpu_to_le16(handle);
	req->Control = cpu_to_le32(control | MPI2_SCSIIO_CONTROL_SIMPLEQ);
	req->IoFlags = cpu_to_le16(sc->cmd_len);
	req->MsgFlags = MPI2_SCSIIO_MSGFLAGS_SYSTEM_SENSE_ADDR;
	req->SenseBufferLength = SCSI_SENSE_BUFFERSIZE;
	req->SenseBufferLowAddress = mpt3sas_dump_sense_dma(ioc);
	req->SGLOffset0 = offsetof(Mpi25SCSIIORequest_t, SGL) / 4;
	int_to_scsilun(priv->lun, (struct scsi_lun *)req->LUN);
	memcpy(req->CDB.CDB32, sc->cmnd, sc->cmd_len);
	if (control == MPI2_SCSIIO_CONTROL_NODATATRANSFER) {
		mpt3sas_dump_sge(ioc, req, false, 0, (dma_addr_t)-1);
		return 0;
	}
	/* scsi_dump's buffer: one entry, mapped when armed */
	if (scsi_dma_map(sc) != 1)
		return -EIO;
	req->DataLength = cpu_to_le32(sg_dma_len(scsi_sglist(sc)));
	mpt3sas_dump_sge(ioc, req, control == MPI2_SCSIIO_CONTROL_WRITE,
			 sg_dma_len(scsi_sglist(sc)),
			 sg_dma_address(scsi_sglist(sc)));
	return 0;
}

/*
 * Post the dump's request: a SCSI IO descriptor naming reply queue 0, in
 * one 64-bit write (or the 32-bit atomic descriptor where the IOC takes
 * it), as _base_put_smid_scsi_io() does on 64-bit, without its lock.
 */
static notrace __diskdump_text void
mpt3sas_dump_post(struct MPT3SAS_ADAPTER *ioc, u16 smid, u16 handle)
{
	Mpi2RequestDescriptorUnion_t desc = { };
	u64 word;

	if (ioc->atomic_desc_capable) {
		/* RequestFlags, MSIxIndex 0, SMID: writel() stores it LE */
		writel(MPI2_REQ_DESCRIPT_FLAGS_SCSI_IO | (u32)smid << 16,
		       &ioc->chip->AtomicRequestDescriptorPost);
		return;
	}
	desc.SCSIIO.RequestFlags = MPI2_REQ_DESCRIPT_FLAGS_SCSI_IO;
	desc.SCSIIO.MSIxIndex = 0;
	desc.SCSIIO.SMID = cpu_to_le16(smid);
	desc.SCSIIO.LMID = 0;
	desc.SCSIIO.DevHandle = cpu_to_le16(handle);
	/* the descriptor as it lies in memory, as _base_writeq() posts it */
	memcpy(&word, &desc, sizeof(word));
	wmb();		/* the frame before the post */
	__raw_writeq(word, &ioc->chip->RequestDescriptorPostLow);
}

/**
 * mpt3sas_dump_queue - queuecommand in crashdump mode
 * @ioc: the adapter
 * @sc: scsi_dump's command
 *
 * Return: 0 once posted, SCSI_MLQUEUE_HOST_BUSY while the dump's last
 * command is still on the IOC or if this one cannot be built.
 */
notrace __diskdump_text int mpt3sas_dump_queue(struct MPT3SAS_ADAPTER *ioc,
					       struct scsi_cmnd *sc)
{
	u16 handle = mpt3sas_dump_handle(sc->device);

	if (ioc->dump_scmd || handle == MPT3SAS_INVALID_DEVICE_HANDLE)
		return SCSI_MLQUEUE_HOST_BUSY;
	if (mpt3sas_dump_build(ioc, sc, handle))
		return SCSI_MLQUEUE_HOST_BUSY;
	ioc->dump_scmd = sc;
	mpt3sas_dump_post(ioc, mpt3sas_dump_smid(ioc), handle);
	return 0;
}

/* The dump command's result from its address reply, as _scsih_io_done(). */
static notrace __diskdump_text int
mpt3sas_dump_result(struct MPT3SAS_ADAPTER *ioc, struct scsi_cmnd *sc,
		    const Mpi2SCSIIOReply_t *reply)
{
	u16 status = le16_to_cpu(reply->IOCStatus) & MPI2_IOCSTATUS_MASK;
	u8 scsi_status = reply->SCSIStatus;
	u8 state = reply->SCSIState;
	u32 xfer = le32_to_cpu(reply->TransferCount);

	if (state & MPI2_SCSI_STATE_AUTOSENSE_VALID && sc->sense_buffer)
		memcpy(sc->sense_buffer, mpt3sas_dump_sense(ioc),
		       min_t(u32, SCSI_SENSE_BUFFERSIZE,
			     le32_to_cpu(reply->SenseCount)));
	switch (status) {
	case MPI2_IOCSTATUS_SUCCESS:
	case MPI2_IOCSTATUS_SCSI_RECOVERED_ERROR:
	case MPI2_IOCSTATUS_SCSI_DATA_UNDERRUN:
		if (state & MPI2_SCSI_STATE_TERMINATED)
			return DID_RESET << 16;
		if (state & (MPI2_SCSI_STATE_AUTOSENSE_FAILED |
			     MPI2_SCSI_STATE_NO_SCSI_STATUS))
			return DID_SOFT_ERROR << 16;
		/* short, and no status to say why: try it again */
		if (status == MPI2_IOCSTATUS_SCSI_DATA_UNDERRUN &&
		    scsi_status == SAM_STAT_GOOD && xfer < scsi_bufflen(sc))
			return DID_SOFT_ERROR << 16;
		return DID_OK << 16 | scsi_status;
	case MPI2_IOCSTATUS_SCSI_DATA_OVERRUN:
	case MPI2_IOCSTATUS_SCSI_RESIDUAL_MISMATCH:
		/* as _scsih_io_done(): a short good transfer is tried again */
		if (scsi_status == SAM_STAT_GOOD && xfer < scsi_bufflen(sc))
			return DID_SOFT_ERROR << 16;
		return DID_OK << 16 | scsi_status;
	case MPI2_IOCSTATUS_SCSI_TASK_TERMINATED:
	case MPI2_IOCSTATUS_SCSI_IOC_TERMINATED:
	case MPI2_IOCSTATUS_SCSI_EXT_TERMINATED:
		return DID_RESET << 16;
	case MPI2_IOCSTATUS_BUSY:
	case MPI2_IOCSTATUS_INSUFFICIENT_RESOURCES:
		return DID_BUS_BUSY << 16;
	case MPI2_IOCSTATUS_SCSI_DEVICE_NOT_THERE:
		return DID_NO_CONNECT << 16;
	default:
		return DID_ERROR << 16;
	}
}

/* Complete the dump's command with @result. */
static notrace __diskdump_text void
mpt3sas_dump_done(struct MPT3SAS_ADAPTER *ioc, int result)
{
	struct scsi_cmnd *sc = ioc->dump_scmd;

	ioc->dump_scmd = NULL;
	sc->result = result;
	scsi_done(sc);
}

/* Give an address reply's frame back to the reply free queue. */
static notrace __diskdump_text void
mpt3sas_dump_free_reply(struct MPT3SAS_ADAPTER *ioc, u32 reply)
{
	ioc->reply_free_host_index =
		(ioc->reply_free_host_index ==
		 ioc->reply_free_queue_depth - 1) ?
		0 : ioc->reply_free_host_index + 1;
	ioc->reply_free[ioc->reply_free_host_index] = cpu_to_le32(reply);
	writel(ioc->reply_free_host_index, &ioc->chip->ReplyFreeHostIndex);
}

/* One reply descriptor: the dump's completes its command, the rest dropped. */
static notrace __diskdump_text void
mpt3sas_dump_reply(struct MPT3SAS_ADAPTER *ioc, Mpi2ReplyDescriptorsUnion_t *rd)
{
	u8 type = rd->Default.ReplyFlags & MPI2_RPY_DESCRIPT_FLAGS_TYPE_MASK;
	u16 smid = le16_to_cpu(rd->Default.DescriptorTypeDependent1);
	bool mine = ioc->dump_scmd && smid == mpt3sas_dump_smid(ioc);
	const Mpi2SCSIIOReply_t *frame;
	u32 reply;

	if (type == MPI2_RPY_DESCRIPT_FLAGS_SCSI_IO_SUCCESS ||
	    type == MPI25_RPY_DESCRIPT_FLAGS_FAST_PATH_SCSI_IO_SUCCESS ||
	    type == MPI26_RPY_DESCRIPT_FLAGS_PCIE_ENCAPSULATED_SUCCESS) {
		/* good status, everything transferred */
		if (mine)
			mpt3sas_dump_done(ioc, DID_OK << 16);
		return;
	}
	if (type != MPI2_RPY_DESCRIPT_FLAGS_ADDRESS_REPLY)
		return;
	reply = le32_to_cpu(rd->AddressReply.ReplyFrameAddress);
	if (reply > ioc->reply_dma_max_address ||
	    reply < ioc->reply_dma_min_address) {
		/* not a frame of the pool: no status to read, nothing to give back */
		if (mine)
			mpt3sas_dump_done(ioc, DID_SOFT_ERROR << 16);
		return;
	}
	if (mine) {
		frame = (void *)(ioc->reply + (reply - (u32)ioc->reply_dma));
		mpt3sas_dump_done(ioc, mpt3sas_dump_result(ioc, ioc->dump_scmd,
							   frame));
	}
	if (ioc->dump_keep_frame) {
		/* maybe given back already by the CPU stopped reading it */
		ioc->dump_keep_frame = 0;
		return;
	}
	mpt3sas_dump_free_reply(ioc, reply);
}

/* Tell the IOC how far reply queue @reply_q has been read. */
static notrace __diskdump_text void
mpt3sas_dump_ack(struct MPT3SAS_ADAPTER *ioc,
		 struct adapter_reply_queue *reply_q)
{
	if (ioc->combined_reply_queue)
		writel(reply_q->reply_post_host_index,
		       ioc->replyPostRegisterIndex[0]);
	else
		writel(reply_q->reply_post_host_index,
		       &ioc->chip->ReplyPostHostIndex);
}

/**
 * mpt3sas_dump_poll - what the interrupt handler does, for the dump
 * @sdev: the dump disk
 *
 * Reads reply queue 0, which the dump's descriptors name, at most its
 * depth of descriptors, without its busy count (a stopped CPU may have
 * left it taken; at worst it shows again a descriptor that is not the
 * dump's).
 */
notrace __diskdump_text void mpt3sas_dump_poll(struct scsi_device *sdev)
{
	struct MPT3SAS_ADAPTER *ioc = shost_priv(sdev->host);
	struct adapter_reply_queue *reply_q = mpt3sas_dump_reply_q(ioc);
	Mpi2ReplyDescriptorsUnion_t *rd;
	unsigned int n, done = 0;
	u64 word;

	if (!reply_q)
		return;
	for (n = 0; n < ioc->reply_post_queue_depth; n++) {
		rd = &reply_q->reply_post_free[reply_q->reply_post_host_index];
		word = le64_to_cpu(rd->Words);
		if (lower_32_bits(word) == U32_MAX ||
		    upper_32_bits(word) == U32_MAX ||
		    (rd->Default.ReplyFlags & MPI2_RPY_DESCRIPT_FLAGS_TYPE_MASK) ==
		    MPI2_RPY_DESCRIPT_FLAGS_UNUSED)
			break;
		mpt3sas_dump_reply(ioc, rd);
		rd->Words = cpu_to_le64(ULLONG_MAX);
		reply_q->reply_post_host_index =
			(reply_q->reply_post_host_index ==
			 ioc->reply_post_queue_depth - 1) ?
			0 : reply_q->reply_post_host_index + 1;
		done++;
	}
	if (done)
		mpt3sas_dump_ack(ioc, reply_q);
}

/* The IOC's state from its doorbell: OPERATIONAL, FAULT, ... */
static notrace __diskdump_text u32 mpt3sas_dump_ioc_state(struct MPT3SAS_ADAPTER *ioc)
{
	/* Aero and Sea read 0 at times: the driver's read retries */
	return ioc->base_readl_ext_retry(&ioc->chip->Doorbell) &
	       MPI2_IOC_STATE_MASK;
}

/**
 * mpt3sas_dump_sanity_check - can the host take the dump now?
 * @sdev: the dump disk
 *
 * Return: 0, or -EBUSY while a reset, a link reset or a PCI error
 * recovery is under way (or a stopped CPU holds the lock around them),
 * -ENODEV if the disk is gone or blocked, -EIO if the IOC is not
 * operational.
 */
notrace __diskdump_text int mpt3sas_dump_sanity_check(struct scsi_device *sdev)
{
	struct MPT3SAS_ADAPTER *ioc = shost_priv(sdev->host);
	bool busy;
	u32 state;

	/*
	 * Suspend (and hibernation's freeze) and PCI error handling block
	 * the host first; suspend then unmaps the chip and frees the reply
	 * queues, leaving ioc->chip stale.  No register is read before this.
	 */
	if (!ioc->chip_phys || ioc->shost->host_self_blocked ||
	    list_empty(&ioc->reply_queue_list)) {
		pr_emerg("%s: suspended, or its resources freed\n", ioc->name);
		return -ENODEV;
	}
	if (!spin_trylock(&ioc->ioc_reset_in_progress_lock)) {
		pr_emerg("%s: ioc_reset_in_progress_lock is held\n", ioc->name);
		return -EBUSY;
	}
	busy = ioc->shost_recovery || ioc->ioc_link_reset_in_progress ||
	       ioc->pci_error_recovery || ioc->remove_host;
	spin_unlock(&ioc->ioc_reset_in_progress_lock);
	if (busy || mutex_is_locked(&ioc->reset_in_progress_mutex)) {
		pr_emerg("%s: in a reset, a PCI error recovery or removal\n",
			 ioc->name);
		return -EBUSY;
	}
	if (mpt3sas_dump_handle(sdev) == MPT3SAS_INVALID_DEVICE_HANDLE) {
		pr_emerg("%s: the disk has no firmware handle, or is blocked\n",
			 ioc->name);
		return -ENODEV;
	}
	state = mpt3sas_dump_ioc_state(ioc);
	if (state != MPI2_IOC_STATE_OPERATIONAL) {
		pr_emerg("%s: IOC state 0x%08x, not operational\n",
			 ioc->name, state);
		return -EIO;
	}
	return 0;
}

/**
 * mpt3sas_dump_quiesce - stop the host's normal work
 * @sdev: the dump disk
 *
 * Masks the IOC's interrupts, as mpt3sas_base_mask_interrupts() does.  What
 * the block layer had in flight completes as it will, and dump_poll drops
 * it: no reset, which would sleep and rediscover.  A command of an
 * earlier dump still on the IOC is reaped once; if it is still there,
 * the host is refused.
 *
 * Return: 0, -EIO if the IOC is not operational, -EBUSY if the dump's
 * SMID is still in use.
 */
notrace __diskdump_text int mpt3sas_dump_quiesce(struct scsi_device *sdev)
{
	struct MPT3SAS_ADAPTER *ioc = shost_priv(sdev->host);
	struct adapter_reply_queue *reply_q;
	u32 him;

	ioc->mask_interrupts = 1;
	him = ioc->base_readl(&ioc->chip->HostInterruptMask);
	him |= MPI2_HIM_DIM | MPI2_HIM_RIM | MPI2_HIM_RESET_IRQ_MASK;
	writel(him, &ioc->chip->HostInterruptMask);
	ioc->base_readl(&ioc->chip->HostInterruptMask);
	if (mpt3sas_dump_ioc_state(ioc) != MPI2_IOC_STATE_OPERATIONAL)
		return -EIO;
	/*
	 * A CPU stopped inside _base_process_reply_queue() may have given
	 * back the frame of the descriptor it was on without clearing it:
	 * that frame is not given back twice (one frame of the pool's spare
	 * 64 lost).  A CPU stopped between its two updates of the free
	 * queue's index and slot is not seen.
	 */
	reply_q = mpt3sas_dump_reply_q(ioc);
	ioc->dump_keep_frame = reply_q && atomic_read(&reply_q->busy);
	mpt3sas_dump_poll(sdev);
	if (ioc->dump_scmd) {
		pr_emerg("%s: a dump command is still on the IOC\n", ioc->name);
		return -EBUSY;
	}
	return 0;
}

/**
 * mpt3sas_dump_arm - may a disk of this host be armed?
 * @sdev: the disk being armed
 *
 * Return: NULL (the host's DMA device does the dump's DMA), or
 * ERR_PTR(-EOPNOTSUPP) for an adapter the dump's path does not drive.
 */
struct device *mpt3sas_dump_arm(struct scsi_device *sdev)
{
	struct MPT3SAS_ADAPTER *ioc = shost_priv(sdev->host);
	const char *why = NULL;

	/* the ioctl path uses the first kept SMID, the dump the last */
	BUILD_BUG_ON(INTERNAL_SCSIIO_CMDS_COUNT < 2);
	if (ioc->is_mcpu_endpoint)
		why = "an MPI endpoint's frames are cloned into BAR space under a lock";
	else if (ioc->is_warpdrive)
		why = "WarpDrive's direct I/O rewrites commands";
	else if (!mpt3sas_dump_reply_q(ioc))
		why = "it has no reply queue 0";
	if (why) {
		sdev_printk(KERN_ERR, sdev, "no crash dumps through %s: %s\n",
			    ioc->name, why);
		return ERR_PTR(-EOPNOTSUPP);
	}
	return NULL;
}
