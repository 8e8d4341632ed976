# How deep each CPU's NMI and double-fault stacks went since boot, from a
# dump: run as "drgn -c VMCORE -s VMLINUX ist-stacks.py".  The IST stacks
# are per-CPU memory that starts as zeros and is only ever used from the top
# down, so the lowest word that is not zero marks the deepest use (a frame
# of zeros below it would hide at most itself).  Prints, a line each,
# "ist: cpu N NAME used BYTES of SIZE near F1,F2,F3": the functions whose
# addresses are nearest that mark; first "ist: panic_cpu N".  A page of the
# stack is read as the dump wrote it: use after that is not seen.
from drgn import SymbolKind, sizeof
from drgn.helpers.linux.cpumask import for_each_present_cpu
from drgn.helpers.linux.percpu import per_cpu


def deepest_functions(data, low):
    """The first three functions named by words from offset low up."""
    near = []
    for off in range(low, len(data), 8):
        word = int.from_bytes(data[off:off + 8], "little")
        try:
            sym = prog.symbol(word)
        except LookupError:
            continue
        if sym.kind == SymbolKind.FUNC and sym.name not in near:
            near.append(sym.name)
        if len(near) == 3:
            break
    return near


print("ist: panic_cpu", prog["panic_cpu"].counter.value_())
try:
    estacks = prog.variable("exception_stacks", "arch/x86/mm/cpu_entry_area.c")
except LookupError:
    estacks = prog["exception_stacks"]
for cpu in for_each_present_cpu(prog):
    stacks = per_cpu(estacks, cpu)
    for name in ("NMI_stack", "DF_stack"):
        stack = getattr(stacks, name)
        size = sizeof(stack)
        data = prog.read(stack.address_of_().value_(), size)
        low = next((off for off in range(0, size, 8) if any(data[off:off + 8])), size)
        print(f"ist: cpu {cpu} {name} used {size - low} of {size} near",
              ",".join(deepest_functions(data, low)) or "-")
