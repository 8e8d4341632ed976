# Two NUMA nodes (QEMU -numa), 256 MiB and one CPU each, and 300 MiB of
# pattern: more than node 0 has free, so the pattern spills onto node 1.
# Every page of both nodes must be in the dump, the pattern pages of both
# nodes right.  The tinyconfig test kernel had no NUMA.
# one socket a node: two nodes sharing a socket's LLC is a topology the
# kernel warns of (topology_sane)
SMP=2,sockets=2,cores=1,threads=1
MEM=512M
mk_dump_disk "$WORK/dump.img" 700
mk_out_disk "$WORK/out.img" 1200
run_qemu "$WORK/serial.log" "ddtest=numa ddmib=300" $(disk_on lsi "$WORK/dump.img") \
	-object memory-backend-ram,id=m0,size=256M -object memory-backend-ram,id=m1,size=256M \
	-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1
note "qemu ran ${QEMU_SECONDS}s for both boots"
extract_out
log=$WORK/serial.log
expect_log "$WORK/out/dmesg-boot2.txt" "Initmem setup node 1 " "the guest did not see node 1"
check_saved_dump "sysrq triggered crash" 2
# node 1 is the second 256 MiB of RAM (pfn 0x10000 up, past the PCI hole
# of a 512 MiB pc: none)
n0=0 n1=0
while read -r pfn; do
	if [ $((0x$pfn)) -ge $((0x10000)) ]; then n1=$((n1 + 1)); else n0=$((n0 + 1)); fi
done <"$WORK/out/pattern.txt"
[ "$n0" -gt 0 ] && [ "$n1" -gt 1000 ] || fail "pattern pages: $n0 on node 0, $n1 on node 1; wanted both"
note "pattern pages on node 0: $n0, on node 1: $n1 (all in the dump and right)"
