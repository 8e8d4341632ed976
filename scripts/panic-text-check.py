#!/usr/bin/env python3
"""Check that the kernel never rewrites diskdump's panic-path code.

    scripts/panic-text-check.py [--require NAME,...] VMLINUX [MODULE.ko ...]

diskdump checksums its .diskdump.text once (at init, or when a disk is
armed, for a module's) and refuses to dump if it changed.  Code the kernel
patches at run time would make it refuse for good: a static key's jump
(__jump_table) or a static call site (.static_call_sites) inside that
section.  For vmlinux the tables' entries are read (relative addresses), and
a kernel with static keys and no entry at all is refused, as a sign that
the tables were not found; for a module, their relocations.  Prints each site found and exits 1 if
there is one, 2 if a file cannot be read or a module that --require
names was not among those checked (with a .diskdump.text).
"""
import struct
import sys

TABLES = {"__jump_table": 16, ".static_call_sites": 8}
SECTION = ".diskdump.text"


def sections(data):
    """The ELF64 little-endian section headers, by name."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a little-endian ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    hdrs = []
    for i in range(shnum):
        (name, typ, _flags, addr, off, size, link, info, _align,
         entsize) = struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        hdrs.append(dict(index=i, name=name, type=typ, addr=addr, off=off,
                         size=size, link=link, info=info, entsize=entsize))
    strtab = hdrs[shstrndx]
    for h in hdrs:
        end = data.index(b"\0", strtab["off"] + h["name"])
        h["name"] = data[strtab["off"] + h["name"]:end].decode()
    return hdrs


def symbols(data, hdrs, names):
    """The values of the symbols @names in .symtab."""
    byname = {h["name"]: h for h in hdrs}
    symtab, strtab = byname.get(".symtab"), byname.get(".strtab")
    if not symtab or not strtab:
        return {}
    want = {n.encode() for n in names}
    found = {}
    for off in range(symtab["off"], symtab["off"] + symtab["size"], 24):
        name, = struct.unpack_from("<I", data, off)
        start = strtab["off"] + name
        sym = data[start:data.index(b"\0", start)]
        if sym in want:
            found[sym.decode()], = struct.unpack_from("<Q", data, off + 8)
    return found


LINKED = {"__jump_table": ("__start___jump_table", "__stop___jump_table"),
          ".static_call_sites": ("__start_static_call_sites",
                                 "__stop_static_call_sites")}


def file_offset(hdrs, addr):
    """The file offset of address @addr of a linked image."""
    for h in hdrs:
        if h["type"] != 8 and h["addr"] and h["addr"] <= addr < h["addr"] + h["size"]:
            return h["off"] + addr - h["addr"]
    raise ValueError("address %#x is in no section" % addr)


def linked_sites(data, hdrs):
    """
    Sites in a linked image (vmlinux), whose .text holds the section between
    __diskdump_text_start and _end, and whose .data the tables, between their
    __start_ and __stop_ symbols: entries hold relative addresses.
    """
    names = ["__diskdump_text_start", "__diskdump_text_end"]
    for pair in LINKED.values():
        names += pair
    syms = symbols(data, hdrs, names)
    if "__diskdump_text_start" not in syms or "__diskdump_text_end" not in syms:
        raise ValueError("no __diskdump_text_start/_end: not a diskdump kernel?")
    text = dict(addr=syms["__diskdump_text_start"],
                size=syms["__diskdump_text_end"] - syms["__diskdump_text_start"])
    found = []
    entries = 0
    if "__start___jump_table" not in syms:
        raise ValueError("no __jump_table: the check would prove nothing"
                         " (CONFIG_JUMP_LABEL?)")
    for table, (start, stop) in LINKED.items():
        if start not in syms or stop not in syms:
            continue
        entsize = TABLES[table]
        base = syms[start]
        for addr in range(base, syms[stop], entsize):
            entries += 1
            rel, = struct.unpack_from("<i", data, file_offset(hdrs, addr))
            site = addr + rel
            if text["addr"] <= site < text["addr"] + text["size"]:
                found.append((table, "%s+%#x" % (SECTION, site - text["addr"])))
    if not entries:
        raise ValueError("no static key or static call site at all: "
                         "the check would prove nothing (CONFIG_JUMP_LABEL?)")
    text["entries"] = entries
    return text, found


def module_sites(data, hdrs):
    """Sites in a module: relocations of the tables' code fields."""
    byname = {h["name"]: h for h in hdrs}
    text = byname.get(SECTION)
    if not text:
        return None, []
    found = []
    for table, entsize in TABLES.items():
        rela = byname.get(".rela" + table)
        if not rela:
            continue
        symtab = hdrs[rela["link"]]
        for off in range(0, rela["size"], 24):
            r_offset, r_info, addend = struct.unpack_from("<QQq", data, rela["off"] + off)
            if r_offset % entsize:
                continue    # not the code field
            sym = symtab["off"] + (r_info >> 32) * 24
            shndx, = struct.unpack_from("<H", data, sym + 6)
            value, = struct.unpack_from("<Q", data, sym + 8)
            if shndx == text["index"]:
                found.append((table, "%s+%#x" % (SECTION, value + addend)))
    return text, found


def main(argv):
    required = set()
    if len(argv) > 2 and argv[1] == "--require":
        required = set(argv[2].split(","))
        argv = argv[:1] + argv[3:]
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    bad = checked = entries = 0
    seen = set()
    for path in argv[1:]:
        try:
            with open(path, "rb") as f:
                data = f.read()
            hdrs = sections(data)
            is_rel = struct.unpack_from("<H", data, 0x10)[0] == 1
            text, found = (module_sites if is_rel else linked_sites)(data, hdrs)
        except (OSError, ValueError) as e:
            print("%s: %s" % (path, e), file=sys.stderr)
            return 2
        if text is None:
            continue
        checked += 1
        seen.add(path.rsplit("/", 1)[-1].rsplit(".ko", 1)[0].replace("-", "_"))
        entries += text.get("entries", 0)
        for table, where in found:
            print("%s: %s entry in %s" % (path, table, where))
            bad = 1
    if required - seen:
        print("panic-text-check: no .diskdump.text checked in %s"
              % ", ".join(sorted(required - seen)), file=sys.stderr)
        return 2
    if not bad:
        print("panic-text-check: %d files with a .diskdump.text (vmlinux: %d"
              " static key and static call sites), none in it" % (checked, entries))
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
