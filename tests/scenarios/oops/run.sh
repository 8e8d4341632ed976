# An oops inside the dump (test hook: a bad pointer after 80% of the
# pages), from a sysrq panic in process context, with panic_on_oops=0 as
# Debian ships it.  Without diskdump forcing panic_on_oops, oops_end()
# kills the panicking task with the other CPUs halted and the guest hangs
# until the QEMU timeout.  It must panic again, reboot, and savecore must
# save what got written.
SPLATS_OK='BUG: kernel NULL pointer dereference|Oops: '
QEMU_TIMEOUT=${QEMU_TIMEOUT_OOPS:-240}
dump_scenario "ddtest=oops"
log=$WORK/serial.log
expect_log "$log" "GUEST: panic_on_oops=0" "the guest did not turn panic_on_oops off"
expect_log "$log" "Kernel panic - not syncing: sysrq triggered crash" "no first panic"
expect_log "$log" "diskdump: test: dereferencing a bad pointer during the dump" "the hook did not oops"
expect_log "$log" "BUG: kernel NULL pointer dereference" "no oops"
expect_log "$log" "Kernel panic - not syncing: Fatal exception" "the oops did not panic again"
check_cut_dump
