# An NMI from outside, as a server's NMI button sends it (QMP inject-nmi to
# every CPU), with unknown_nmi_panic: the panic and the dump run in NMI
# context, and the second CPU, itself in its NMI handler, is still stopped
# and its registers saved.
SMP=2
mk_dump_disk "$WORK/dump.img" 300
mk_out_disk "$WORK/out.img" 700
python3 tests/qmp-when.py "$WORK/serial.log" "ddpattern: waiting to be crashed" \
	"$WORK/qmp.sock" inject-nmi >"$WORK/qmp.txt" 2>&1 &
qmp_pid=$!
run_qemu "$WORK/serial.log" "ddtrigger=wait unknown_nmi_panic" $(scsi_disk "$WORK/dump.img") \
	-qmp "unix:$WORK/qmp.sock,server=on,wait=off"
wait $qmp_pid || { cat "$WORK/qmp.txt"; fail "the NMI was not injected"; }
note "qemu ran ${QEMU_SECONDS}s; $(cat "$WORK/qmp.txt")"
extract_out
expect_log "$WORK/serial.log" "NMI received for unknown reason" "the guest did not see the NMI"
check_saved_dump "NMI: Not continuing" 2
# gdb 16 names the frame of default_do_nmi, inlined into exc_nmi in some
# builds, after unknown_nmi_error: either is the NMI handler below the panic.
check_readers "NMI: Not continuing" "[^\"]+" 2 "default_do_nmi|unknown_nmi_error"
# Review 16: the panic path runs on the panicking CPU's 8 KiB NMI stack.
check_nmi_stack "$(the_vmcore)"
