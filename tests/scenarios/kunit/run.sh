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
cases=$(grep -cE "^\[ *[0-9.]+\] +ok [0-9]+ dd_test_" "$log" || true)
bad=$(grep -E "^\[ *[0-9.]+\] +not ok [0-9]+ dd_test_" "$log" || true)
[ -z "$bad" ] || { grep -E "dd_test_|Expected|ASSERT|EXPECT" "$log" | head -40; fail "KUnit cases failed: $bad"; }
[ "$cases" -ge 18 ] || fail "only $cases KUnit cases passed"
aic=$(grep -cE "^\[ *[0-9.]+\] +ok [0-9]+ ah[cd]_dump_test_" "$log" || true)
bad=$(grep -E "^\[ *[0-9.]+\] +not ok [0-9]+ ah[cd]_dump_test_" "$log" || true)
[ -z "$bad" ] || { grep -E "ah[cd]_dump_test_|Expected|ahc-kunit|ahd-kunit" "$log" | head -40; fail "Adaptec KUnit cases failed: $bad"; }
[ "$aic" -ge 5 ] || fail "only $aic Adaptec KUnit cases passed"
# the list-full case runs in the test, not on this machine's RAM: no boot
# log may say the dump leaves RAM out
grep -q "more than [0-9]* RAM ranges" "$log" && fail "the KUnit list-full case warned as if the machine's RAM were left out"
note "no RAM-range warning in the boot log"
