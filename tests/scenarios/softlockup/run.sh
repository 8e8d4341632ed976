# A panic from the soft-lockup detector, as production machines have them:
# softlockup_panic=1, a CPU spinning with preemption off in the kernel (a
# test hook).  The detector panics from its hrtimer interrupt on that CPU;
# the dump must be complete, its header naming that panic.  The tinyconfig
# test kernel had no lockup detector: this could not be tested before.
SPLATS_OK='BUG: soft lockup'
panic_scenario "ddtest=softlockup softlockup_panic=1" "watchdog_thresh=2 softlockup_panic=1" \
	"watchdog: BUG: soft lockup - CPU#0 stuck for [0-9]+s" "softlockup: hung tasks"
