# What drgn makes of a dump: run as "drgn -c VMCORE -s VMLINUX readers.py".
# Prints lines the scenarios check: the crashed thread's frames, the task
# count, whether the printk records hold the panic line, and how many
# threads' stacks unwind.
from drgn.helpers.linux.pid import for_each_task
from drgn.helpers.linux.printk import get_printk_records

crashed = prog.crashed_thread()
print("drgn crashed:", crashed.tid, " ".join(str(f.name) for f in crashed.stack_trace()))
print("drgn tasks:", sum(1 for _ in for_each_task(prog)))
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
