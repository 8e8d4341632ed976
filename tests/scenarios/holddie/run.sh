# Review 5: a CPU that panic stopped while it held die_lock (it had oopsed,
# and stays inside die(): a test hook's die notifier spins there, and the
# hook panics from the other CPU).  Then
# the dump oopses on the panicking CPU (test hook: a bad pointer after 80%
# of the pages).  oops_begin() used to spin for die_lock for ever, with
# interrupts off: no second panic, no reboot, the guest hung until the
# QEMU timeout.  The panicking CPU must take the lock over after 1 s, panic
# again and reboot, and savecore save what got written.
SMP=2
SPLATS_OK='kernel BUG at|Oops: |BUG: kernel NULL pointer dereference'
QEMU_TIMEOUT=${QEMU_TIMEOUT_OOPS:-240}
dump_scenario "ddtest=holddie"
log=$WORK/serial.log
expect_log "$log" "diskdump: test: CPU [0-9]+ oopsed and stays in die\\(\\) holding die_lock" "the hook did not hold die_lock"
held=$(sed -n 's/.*diskdump: test: CPU \([0-9]*\) oopsed and stays in die.*/\1/p' "$log" | head -n1)
expect_log "$log" "Kernel panic - not syncing: diskdump test: panic on CPU [0-9]+ while CPU $held holds die_lock" "no first panic"
cpu=$(sed -n 's/.*Kernel panic - not syncing: diskdump test: panic on CPU \([0-9]*\) while.*/\1/p' "$log" | head -n1)
expect_log "$log" "diskdump: test: dereferencing a bad pointer during the dump" "the hook did not oops"
expect_log "$log" "die_lock held by CPU $held for 1 s: taken over by the panicking CPU $cpu" "the oops did not take die_lock over"
expect_log "$log" "BUG: kernel NULL pointer dereference" "no oops on the panicking CPU"
expect_log "$log" "Kernel panic - not syncing: Fatal exception" "the oops did not panic again"
check_cut_dump 2
