# lsi53c895a with swiotlb=force: every DMA mapping is bounced through the
# software IO TLB, the dump's own at panic included (sym53c8xx maps each
# command's buffer in queuecommand), and swiotlb takes an area's lock with
# interrupts off for each map and unmap.  The other CPU reads sdb1 (as in
# lsi-busy) in two loops, and once memory is filled it also maps and
# unmaps a page for the host with interrupts off 1 ms at a time (a test
# hook), holding an area's lock much of the time, when the panic comes: it
# must be parked outside those locks, the dump complete through the bounce
# buffers, sdb1 unchanged.
BUSY_TEST=mapbusy BUSY_SEPARATE=1 BUSY_APPEND=swiotlb=force busy_scenario -device lsi53c895a,id=scsi0 -device scsi-hd,drive=dd0,bus=scsi0.0,scsi-id=0 \
	-device scsi-hd,drive=dd1,bus=scsi0.0,scsi-id=1
log=$WORK/serial.log
expect_log "$log" "Kernel command line: .* swiotlb=force" "swiotlb=force is not on the command line"
# (pr_info: in dmesg, not on the console; without the option no line at all)
expect_log "$WORK/out/dmesg-boot2.txt" "software IO TLB: area num [0-9]+" "swiotlb was not set up"
expect_log "$log" "scsi_dump_test: CPU [0-9]+ maps and unmaps for host 0 1 ms at a time, with no IOMMU" \
	"the other CPU did not map for host 0"
grep -q "not parked in" "$log" && fail "the mapping CPU was not parked"
check_saved_dump "sysrq triggered crash" 2
check_direct copy
[ "$(part_sum "$BUSY_IMG" "$BUSY_PART")" = "$SUM2" ] || fail "the partition read during the crash changed"
note "$(grep -o 'GUEST: reader passes before the crash: [0-9]*' "$log"); $(grep -o 'software IO TLB: area num.*' "$WORK/out/dmesg-boot2.txt"); sdb1 unchanged"
