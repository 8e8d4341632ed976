#!/usr/bin/env python3
"""Check a vmcore saved by savecore against what the guest wrote before panic.

  check-vmcore.py VMCORE [--pattern LIST] [--cpus N] [--allow-missing] [--min-match N]

LIST holds one PFN (hex) per line; every 8-byte word of such a page must be
0xd15cd0de00000000 ^ its physical address.  Exit status 0 only if every check
passes; prints what it checked.
"""
import argparse
import struct
import sys

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


def notes(f, ph):
    f.seek(ph['offset'])
    data = f.read(ph['filesz'])
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('vmcore')
    ap.add_argument('--pattern')
    ap.add_argument('--cpus', type=int)
    ap.add_argument('--allow-missing', action='store_true')
    ap.add_argument('--expect-partial', action='store_true')
    ap.add_argument('--min-match', type=int, default=1)
    a = ap.parse_args()
    bad = 0
    f, e_flags, phs = parse(a.vmcore)
    if not phs or phs[0]['type'] != PT_NOTE:
        sys.exit('program header 0 is not PT_NOTE')
    loads = [p for p in phs if p['type'] == PT_LOAD]
    ns = notes(f, phs[0])
    prs = [n for n in ns if n[0] == 'CORE' and n[1] == NT_PRSTATUS]
    vmci = [n for n in ns if n[0] == 'VMCOREINFO']
    print('segments: %d PT_LOAD, %d MiB; e_flags %#x' %
          (len(loads), sum(p['filesz'] for p in loads) >> 20, e_flags))
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
    if a.expect_partial and not e_flags & 1:
        print('FAIL: a partial dump must set e_flags DUMP_ELF_INCOMPLETE')
        bad += 1
    if a.pattern:
        # the direct-map segments: vaddr - paddr is the same for all of them
        direct = sorted((p for p in loads if p['vaddr'] < 0xffffffff80000000),
                        key=lambda p: p['paddr'])
        pfns = [int(l, 16) for l in open(a.pattern) if l.strip()]
        ok = missing = wrong = 0
        for pfn in pfns:
            pa = pfn * PAGE
            seg = next((p for p in direct if p['paddr'] <= pa < p['paddr'] + p['filesz']), None)
            if not seg:
                missing += 1
                continue
            f.seek(seg['offset'] + pa - seg['paddr'])
            words = struct.unpack('<512Q', f.read(PAGE))
            if all(w == MAGIC ^ (pa + i * 8) for i, w in enumerate(words)):
                ok += 1
            else:
                wrong += 1
                if wrong <= 3:
                    print('  page %#x: first words %s' % (pfn, [hex(w) for w in words[:2]]))
        print('pattern: %d pages listed, %d match, %d wrong, %d missing' %
              (len(pfns), ok, wrong, missing))
        if wrong or ok < a.min_match or (missing and not a.allow_missing):
            print('FAIL: pattern pages')
            bad += 1
    print('vmcore check: %s' % ('FAIL' if bad else 'ok'))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
