#!/usr/bin/env python3
"""Check a vmcore saved by savecore against what the guest wrote before panic.

  check-vmcore.py VMCORE [--pattern LIST] [--cpus N] [--allow-missing] [--min-match N]

LIST holds one PFN (hex) per line; every 8-byte word of such a page must be
0xd15cd0de00000000 ^ its physical address.  Exit status 0 only if every check
passes; prints what it checked.
"""
import argparse
import os
import struct
import sys
import zlib

MAGIC = 0xd15cd0de00000000
PAGE = 4096
PT_LOAD, PT_NOTE, NT_PRSTATUS = 1, 4, 1


def parse(path):
    f = open(path, 'rb')
    eh = f.read(64)
    if eh[:4] != b'\x7fELF' or eh[4] != 2:
        sys.exit('not an ELF64 file')
    e_type, e_machine = struct.unpack_from('<HH', eh, 16)
    e_phoff, = struct.unpack_from('<Q', eh, 32)
    e_flags, = struct.unpack_from('<I', eh, 48)
    e_phentsize, e_phnum = struct.unpack_from('<HH', eh, 54)
    if e_type != 4 or e_machine != 62:
        sys.exit('not an x86_64 core file (type %d machine %d)' % (e_type, e_machine))
    f.seek(e_phoff)
    phs = []
    for _ in range(e_phnum):
        p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align = \
            struct.unpack('<IIQQQQQQ', f.read(e_phentsize))
        phs.append(dict(type=p_type, offset=p_offset, vaddr=p_vaddr, paddr=p_paddr,
                        filesz=p_filesz, memsz=p_memsz, align=p_align))
    return f, e_flags, phs


def parse_notes(data):
    out, off = [], 0
    while off + 12 <= len(data):
        namesz, descsz, ntype = struct.unpack_from('<III', data, off)
        off += 12
        name = data[off:off + namesz].rstrip(b'\0').decode(errors='replace')
        off += (namesz + 3) & ~3
        desc = data[off:off + descsz]
        off += (descsz + 3) & ~3
        out.append((name, ntype, desc))
    return out


def load_elf(path):
    """(summary, notes, incomplete, read_page) of an ELF vmcore."""
    f, e_flags, phs = parse(path)
    if not phs or phs[0]['type'] != PT_NOTE:
        sys.exit('program header 0 is not PT_NOTE')
    loads = [p for p in phs if p['type'] == PT_LOAD]
    f.seek(phs[0]['offset'])
    ns = parse_notes(f.read(phs[0]['filesz']))
    # the direct-map segments: vaddr - paddr is the same for all of them
    direct = sorted((p for p in loads if p['vaddr'] < 0xffffffff80000000),
                    key=lambda p: p['paddr'])

    def read_page(pfn):
        pa = pfn * PAGE
        seg = next((p for p in direct if p['paddr'] <= pa < p['paddr'] + p['filesz']), None)
        if not seg:
            return None
        f.seek(seg['offset'] + pa - seg['paddr'])
        return f.read(PAGE)
    read_page.max_pfn = max((p['paddr'] + p['filesz']) // PAGE for p in direct) if direct else 0
    summary = 'segments: %d PT_LOAD, %d MiB; e_flags %#x' % (
        len(loads), sum(p['filesz'] for p in loads) >> 20, e_flags)
    return summary, ns, bool(e_flags & 1), read_page


def load_kdump(path):
    """(summary, notes, incomplete, read_page) of a kdump-compressed file."""
    f = open(path, 'rb')
    hdr = f.read(PAGE)
    version, = struct.unpack_from('<i', hdr, 8)
    status, block_size, sub_blocks, bitmap_blocks, max_mapnr = struct.unpack_from('<IiiII', hdr, 424)
    if version != 6 or block_size != PAGE:
        sys.exit('kdump header version %d block size %d' % (version, block_size))
    f.seek(PAGE)
    sub = f.read(104)
    off_note, size_note = struct.unpack_from('<qQ', sub, 48)
    off_vmci, size_vmci = struct.unpack_from('<qQ', sub, 32)
    max_mapnr64, = struct.unpack_from('<Q', sub, 96)
    f.seek(off_note)
    ns = parse_notes(f.read(size_note))
    f.seek(off_vmci)
    if not f.read(size_vmci).startswith(b'OSRELEASE='):
        sys.exit('offset_vmcoreinfo does not point at the VMCOREINFO text')
    half = bitmap_blocks // 2 * PAGE
    f.seek((1 + sub_blocks) * PAGE)
    ram = f.read(half)
    dumpable = f.read(half)
    data_off = (1 + sub_blocks + bitmap_blocks) * PAGE
    # rank of each dumpable PFN among the set bits of the 2nd bitmap
    rank, ranks = 0, {}
    for pfn in range(max_mapnr64):
        if dumpable[pfn >> 3] >> (pfn & 7) & 1:
            if not ram[pfn >> 3] >> (pfn & 7) & 1:
                sys.exit('pfn %#x dumpable but not RAM' % pfn)
            ranks[pfn] = rank
            rank += 1

    def read_page(pfn):
        if pfn not in ranks:
            return None
        f.seek(data_off + 24 * ranks[pfn])
        offset, size, flags, _ = struct.unpack('<qIIQ', f.read(24))
        if offset <= 0 or size > PAGE:
            sys.exit('pfn %#x: bad page descriptor' % pfn)
        f.seek(offset)
        raw = f.read(size)
        if flags == 1:
            raw = zlib.decompress(raw)
        elif flags != 0:
            sys.exit('pfn %#x: compression flags %#x' % (pfn, flags))
        if len(raw) != PAGE:
            sys.exit('pfn %#x: %d bytes' % (pfn, len(raw)))
        return raw
    read_page.max_pfn = max_mapnr64
    summary = 'kdump-compressed v%d: %d dumpable pages, status %#x, %d MiB file' % (
        version, rank, status, os.path.getsize(path) >> 20)
    return summary, ns, bool(status & 8), read_page


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('vmcore')
    ap.add_argument('--pattern')
    ap.add_argument('--cpus', type=int)
    ap.add_argument('--allow-missing', action='store_true')
    ap.add_argument('--expect-partial', action='store_true')
    ap.add_argument('--min-match', type=int, default=1)
    ap.add_argument('--expect-absent', action='store_true',
                    help='every pattern page must be absent (a dump level left them out)')
    ap.add_argument('--no-zero-pages', action='store_true',
                    help='no page in the dump may be all zeroes')
    ap.add_argument('--same-as', metavar='VMCORE',
                    help='another vmcore (ELF or kdump) that must hold the same pages')
    ap.add_argument('--vmcoreinfo', metavar='KEY',
                    help='only print the VMCOREINFO value of KEY (exit 1 if absent)')
    a = ap.parse_args()
    bad = 0
    with open(a.vmcore, 'rb') as probe:
        kdump = probe.read(8) == b'KDUMP   '
    summary, ns, incomplete, read_page = (load_kdump if kdump else load_elf)(a.vmcore)
    if a.vmcoreinfo:
        for n in ns:
            if n[0] != 'VMCOREINFO':
                continue
            for line in n[2].decode(errors='replace').splitlines():
                if line.startswith(a.vmcoreinfo + '='):
                    print(line.split('=', 1)[1])
                    return 0
        return 1
    print(summary)
    prs = [n for n in ns if n[0] == 'CORE' and n[1] == NT_PRSTATUS]
    vmci = [n for n in ns if n[0] == 'VMCOREINFO']
    print('notes: %d NT_PRSTATUS, %d VMCOREINFO' % (len(prs), len(vmci)))
    for n in prs:
        pid, = struct.unpack_from('<i', n[2], 32)
        regs = struct.unpack_from('<27Q', n[2], 112)
        print('  prstatus pid %d rip %#x rsp %#x' % (pid, regs[16], regs[19]))
        if regs[16] == 0 or regs[19] == 0:
            print('FAIL: a CPU note has no rip/rsp')
            bad += 1
    if a.cpus is not None and len(prs) != a.cpus:
        print('FAIL: expected %d NT_PRSTATUS notes' % a.cpus)
        bad += 1
    if len(vmci) != 1:
        print('FAIL: expected one VMCOREINFO note')
        bad += 1
    else:
        text = vmci[0][2].decode(errors='replace')
        for key in ('OSRELEASE=', 'PAGESIZE=4096', 'SYMBOL(swapper_pg_dir)=',
                    'CRASHTIME=', 'NUMBER(phys_base)=', 'KERNELOFFSET='):
            if key not in text:
                print('FAIL: VMCOREINFO lacks %s' % key)
                bad += 1
    if a.expect_partial and not incomplete:
        print('FAIL: a partial dump must say so (ELF e_flags bit 0, kdump status 0x8)')
        bad += 1
    if a.pattern:
        pfns = [int(l, 16) for l in open(a.pattern) if l.strip()]
        ok = missing = wrong = 0
        for pfn in pfns:
            pa = pfn * PAGE
            page = read_page(pfn)
            if page is None:
                missing += 1
                continue
            words = struct.unpack('<512Q', page)
            if all(w == MAGIC ^ (pa + i * 8) for i, w in enumerate(words)):
                ok += 1
            else:
                wrong += 1
                if wrong <= 3:
                    print('  page %#x: first words %s' % (pfn, [hex(w) for w in words[:2]]))
        print('pattern: %d pages listed, %d match, %d wrong, %d missing' %
              (len(pfns), ok, wrong, missing))
        if a.expect_absent:
            if ok or wrong:
                print('FAIL: pattern pages are in the dump, the dump level should leave them out')
                bad += 1
        elif wrong or ok < a.min_match or (missing and not a.allow_missing):
            print('FAIL: pattern pages')
            bad += 1
    if a.no_zero_pages:
        zero = present = 0
        for pfn in range(read_page.max_pfn):
            page = read_page(pfn)
            if page is None:
                continue
            present += 1
            if page.count(0) == PAGE:
                zero += 1
        print('zero pages: %d of %d dumped pages' % (zero, present))
        if zero:
            print('FAIL: zero pages in the dump')
            bad += 1
    if a.same_as:
        with open(a.same_as, 'rb') as probe:
            other_kdump = probe.read(8) == b'KDUMP   '
        _, _, _, other_page = (load_kdump if other_kdump else load_elf)(a.same_as)
        same = differ = only = 0
        for pfn in range(max(read_page.max_pfn, other_page.max_pfn)):
            x, y = read_page(pfn), other_page(pfn)
            if x is None and y is None:
                continue
            if x is None or y is None:
                only += 1
            elif x == y:
                same += 1
            else:
                differ += 1
        print('same pages: %d, different: %d, in one file only: %d' % (same, differ, only))
        if differ or only or not same:
            print('FAIL: the two vmcores differ')
            bad += 1
    print('vmcore check: %s' % ('FAIL' if bad else 'ok'))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
