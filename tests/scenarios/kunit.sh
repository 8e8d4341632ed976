# KUnit tests of the crashdump-mode timers and tasklets, run at boot in the
# guest; their KTAP output is read from the console.
SMP=2
mk_dump_disk "$WORK/dump.img" 16
mk_out_disk "$WORK/out.img" 16
run_qemu "$WORK/serial.log" "ddtest=kunit" $(scsi_disk "$WORK/dump.img")
extract_out
log=$WORK/out/kunit-dmesg.txt
[ -f "$log" ] || fail "the guest saved no kernel log"
expect_log "$log" "# Subtest: diskdump" "the diskdump KUnit suite did not run"
cases=$(grep -cE "^\[ *[0-9.]+\] +ok [0-9]+ dd_test_" "$log" || true)
bad=$(grep -E "^\[ *[0-9.]+\] +not ok [0-9]+ dd_test_" "$log" || true)
[ -z "$bad" ] || { grep -E "dd_test_|Expected|ASSERT|EXPECT" "$log" | head -40; fail "KUnit cases failed: $bad"; }
expect_log "$log" "# diskdump: pass:[0-9]+ fail:0 " "the suite did not pass"
[ "$cases" -ge 8 ] || fail "only $cases KUnit cases passed"
note "KUnit: $(grep -oE '# diskdump: pass:[0-9]+ fail:[0-9]+ skip:[0-9]+ total:[0-9]+' "$log")"
# the list-full case runs in the test, not on this machine's RAM: no boot
# log may say the dump leaves RAM out
grep -q "more than [0-9]* RAM ranges" "$log" && fail "the KUnit list-full case warned as if the machine's RAM were left out"
note "no RAM-range warning in the boot log"
