# A disk behind an LSI SAS1068 (QEMU's mptsas1068, driver mptsas; also what
# VMware's "LSI Logic SAS" adapter presents).  Two CPUs, the other one
# reading sda2 with O_DIRECT through the block layer (throttled to 200
# requests a second), so that its commands are on the IOC at the panic:
# the dump's request goes in the frame mptsas set aside at probe; the
# reply FIFO is read by the dump itself, its reply picked out, the others
# dropped and their frames given back to the IOC.  Every page is copied
# to scsi_dump's buffer (dump_copy_pages: one SGE a command, no chain
# buffer).  sda2 must come out unchanged.  (wwn: QEMU gives the disk's SAS address from it, 0 by
# default, and mptsas adds no end device whose SAS address is 0.)
HD_OPTS=wwn=0x5000c50000000001 PAGES=copy hba_busy mptsas1068 \
	"mptsas 0000:00:18.0: ioc[0-9]+: request frame [0-9]+ set aside for crash dumps" "ioc[0-9]+: LSISAS1068"
