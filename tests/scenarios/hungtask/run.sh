# A panic from the hung-task detector (khungtaskd, process context), as
# production machines have them: hung_task_panic=1, a task asleep in D
# state (a test hook).  The dump must be complete, its header naming that
# panic.  The tinyconfig test kernel had no hung-task detector.
SPLATS_OK='INFO: task ddpattern:[0-9]+ blocked for more than'
dump_scenario "ddtest=hungtask hung_task_panic=1"
log=$WORK/serial.log
expect_log "$log" "GUEST: hung_task_timeout_secs=2 hung_task_panic=1" "the guest did not set the detector up"
expect_log "$log" "INFO: task ddpattern:[0-9]+ blocked for more than [0-9]+ seconds" "no hung task reported"
expect_log "$log" "Kernel panic - not syncing: hung_task: blocked tasks" "the detector did not panic"
check_saved_dump "hung_task: blocked tasks" 1
