# A panic from the hung-task detector (khungtaskd, process context), as
# production machines have them: hung_task_panic=1, a task asleep in D
# state (a test hook).  The dump must be complete, its header naming that
# panic.  The tinyconfig test kernel had no hung-task detector.
SPLATS_OK='INFO: task ddpattern:[0-9]+ blocked for more than'
panic_scenario "ddtest=hungtask hung_task_panic=1" "hung_task_timeout_secs=2 hung_task_panic=1" \
	"INFO: task ddpattern:[0-9]+ blocked for more than [0-9]+ seconds" "hung_task: blocked tasks"
