# A panic from the soft-lockup detector, as production machines have them:
# softlockup_panic=1, a CPU spinning with preemption off in the kernel (a
# test hook).  The detector panics from its hrtimer interrupt on that CPU;
# the dump must be complete, its header naming that panic.  The tinyconfig
# test kernel had no lockup detector: this could not be tested before.
SPLATS_OK='BUG: soft lockup'
dump_scenario "ddtest=softlockup softlockup_panic=1"
log=$WORK/serial.log
expect_log "$log" "GUEST: watchdog_thresh=2 softlockup_panic=1" "the guest did not set the detector up"
expect_log "$log" "watchdog: BUG: soft lockup - CPU#0 stuck for [0-9]+s" "no soft lockup reported"
expect_log "$log" "Kernel panic - not syncing: softlockup: hung tasks" "the detector did not panic"
check_saved_dump "softlockup: hung tasks" 1
