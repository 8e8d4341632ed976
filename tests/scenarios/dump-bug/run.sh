# BUG() in process context, panic_on_oops: the oops becomes a panic.
SPLATS_OK='kernel BUG at [./a-z]*drivers/block/diskdump_testhooks.c|Oops: invalid opcode'
dump_scenario ddtest=bug ddmib=8 ddtrigger=bug
expect_log "$WORK/serial.log" "Oops: invalid opcode" "BUG() did not fire"
expect_log "$WORK/serial.log" "RIP: 0010:dd_test_(write|command)" "the oops is not the BUG() in process context"
check_saved_dump "Fatal exception" 1
check_dmesg "Fatal exception"
check_readers "Fatal exception" ddpattern 1 "do_trap|exc_invalid_op"
