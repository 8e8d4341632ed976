# KUnit tests of crashdump mode's timers and tasklets (suite diskdump_mode),
# of the core's self check, format check and RAM list (suite diskdump) and
# of the Adaptec hooks' bounded waits (aic7xxx_dump, aic79xx_dump),
# run at boot in the guest; their KTAP output is read from the console.
SMP=2
mk_dump_disk "$WORK/dump.img" 16
mk_out_disk "$WORK/out.img" 16
run_qemu "$WORK/serial.log" "ddtest=kunit" $(scsi_disk "$WORK/dump.img")
extract_out
log=$WORK/out/kunit-dmesg.txt
[ -f "$log" ] || fail "the guest saved no kernel log"
# aic7xxx_dump and aic79xx_dump run when load-modules loads the drivers
# (no Adaptec hardware in QEMU: the chip is RAM behind the accessors).
for suite in diskdump_mode diskdump aic7xxx_dump aic79xx_dump; do
	expect_log "$log" "# Subtest: $suite\$" "the $suite KUnit suite did not run"
	expect_log "$log" "# $suite: pass:[0-9]+ fail:0 " "the $suite suite did not pass"
	note "KUnit: $(grep -oE "# $suite: pass:[0-9]+ fail:[0-9]+ skip:[0-9]+ total:[0-9]+" "$log")"
done
# cases PREFIX MIN WHAT: no case named PREFIX... failed, and MIN passed
cases() {
	local n bad
	n=$(grep -cE "^\[ *[0-9.]+\] +ok [0-9]+ $1" "$log" || true)
	bad=$(grep -E "^\[ *[0-9.]+\] +not ok [0-9]+ $1" "$log" || true)
	[ -z "$bad" ] || { grep -E "$1|Expected|ASSERT|EXPECT|-kunit" "$log" | head -40; fail "$3 KUnit cases failed: $bad"; }
	[ "$n" -ge "$2" ] || fail "only $n $3 KUnit cases passed"
}
cases dd_test_ 18 diskdump
cases 'ah[cd]_dump_test_' 5 Adaptec
# the list-full case runs in the test, not on this machine's RAM: no boot
# log may say the dump leaves RAM out
grep -q "more than [0-9]* RAM ranges" "$log" && fail "the KUnit list-full case warned as if the machine's RAM were left out"
note "no RAM-range warning in the boot log"
