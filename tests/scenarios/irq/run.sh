# A panic from hard interrupt context (an hrtimer callback in diskdump's
# test hook): the dump itself then runs in that context.
dump_scenario "ddtrigger=irq"
check_saved_dump "diskdump test: panic in hard interrupt context" 1
note "panic in hardirq context: the dump completed and the pattern is intact"
# the interrupt may come while any task runs
check_readers "diskdump test: panic in hard interrupt context" "[^\"]+" 1 "__hrtimer_run_queues"
