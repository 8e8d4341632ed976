# What drgn makes of a dump: run as "drgn -c VMCORE -s VMLINUX readers.py".
# Prints lines the scenarios check: the crashed thread's frames, the task
# count, whether the printk records hold the panic line, and how many
# threads' stacks unwind.
import re

from drgn.helpers.linux.pid import for_each_task
from drgn.helpers.linux.printk import get_printk_records

crashed = prog.crashed_thread()
print("drgn crashed:", crashed.tid, " ".join(str(f.name) for f in crashed.stack_trace()))
tasks = [t.comm.string_().decode() for t in for_each_task(prog)]
print("drgn tasks:", len(tasks))
# the workqueues' pool workers come and go with the load; the rest do not
print("drgn tasks less pool workers:",
      sum(1 for c in tasks if not re.fullmatch(r"kworker/u?[0-9]+:[0-9]+H?", c)))
records = get_printk_records(prog)
print("drgn printk:", len(records),
      "panic" if any(b"Kernel panic - not syncing" in r.text for r in records) else "no-panic")
good = bad = 0
for thread in prog.threads():
    try:
        thread.stack_trace()
        good += 1
    except Exception as e:  # noqa: BLE001 - any failure is a thread without a stack
        bad += 1
        print("drgn no stack:", thread.tid, e)
print("drgn stacks:", good, "unwound,", bad, "failed")
