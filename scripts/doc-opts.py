#!/usr/bin/env python3
"""Every savecore command line and option string that the documentation
quotes, through savecore's own parser (savecore --check-usage).

  scripts/doc-opts.py SAVECORE [FILE...]

Quoted means: a `code span` or an indented line of README.md; a "quoted
span" or an indented line of Documentation/diskdump.txt; a .B line (with
the .I lines after it) or a "quoted" span of the man pages; a "quoted"
string in a comment of the conffile.  A span that begins with "savecore"
and then an option or a path is a command line, up to where the sentence
goes on; a span that begins with "-" in the conffile, and every
SAVECORE_OPTS="...", is a save's options, which take no operand.
Metavariables (N, MB, ALG, FMT) stand for a valid value.  Synopses, with
their [optional] parts, are left out.  Prints "ok - ..." or "not ok - ..." a span and
exits 1 if any is refused, or if no span at all was found.
"""
import re
import subprocess
import sys

FILES = ["tools/diskdump/diskdump.default", "tools/diskdump/man/savecore.8",
         "tools/diskdump/man/diskdumpctl.8", "tools/diskdump/man/diskdumpfmt.8",
         "README.md", "Documentation/diskdump.txt"]
METAVARS = {"N": "2", "MB": "64", "ALG": "zstd", "FMT": "kdump"}
# where a command line in running text ends
STOP = re.compile(r"[|;>()`]|&&|\s(?:or|and|then|with|to|on|in)\s")


def man_text(line):
    """A man page line as it reads: no macros, fonts or escapes."""
    line = re.sub(r"^\.(B|BR|RB|I|IR|RI|BI|IB)\s+", "", line)
    line = line.replace("\\-", "-").replace("\\(em", " ")
    line = re.sub(r"\\f[BIRP]", "", line)
    return line


def spans(path, text):
    """(kind, words) of each quoted span: kind 'cmd' or 'opts'."""
    found = []
    if path.endswith(".8"):
        raw = [l for l in text.splitlines() if not l.startswith('.\\"')]
        lines = []
        for l in raw:
            if re.match(r"\.(I|IR)\s", l) and lines and lines[-1].startswith("savecore "):
                lines[-1] += " " + man_text(l)
            else:
                lines.append(man_text(l))
        text = "\n".join(lines)
        cands = re.findall(r'"([^"\n]+)"', text)
        cands += [l for l in lines if l.startswith("savecore ")]
    elif path.endswith(".md"):
        cands = re.findall(r"`([^`]+)`", text)
        cands += [l.strip() for l in text.splitlines() if l.startswith("    ")]
    elif path.endswith(".txt"):
        cands = re.findall(r'"([^"]+)"', text)
        cands += [l.strip() for l in text.splitlines() if l.startswith("\t") or l.startswith("  ")]
    else:
        cands = []
        for l in text.splitlines():
            if l.startswith("#"):
                cands += [c for c in re.findall(r'"([^"]+)"', l) if c.startswith("-")]
    for c in cands:
        c = " ".join(c.split())
        if "[" in c:
            continue
        if re.match(r"savecore (-[-A-Za-z]|/)", c):
            found.append(("cmd", STOP.split(c)[0].split()[1:]))
        elif c.startswith("-") and not path.endswith((".md", ".txt", ".8")):
            found.append(("opts", c.split()))
    for m in re.finditer(r'SAVECORE_OPTS="([^"]*)"', text):
        found.append(("opts", m.group(1).split()))
    return found


def main():
    savecore = sys.argv[1]
    files = sys.argv[2:] or FILES
    bad = total = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for kind, words in spans(path, text):
            words = [METAVARS.get(w, w) for w in words]
            if words[:1] == ["--check-usage"]:
                words = words[1:]  # it is the checker itself
            r = subprocess.run([savecore, "--check-usage", *words],
                               capture_output=True, text=True)
            shown = " ".join(words)
            why = (r.stderr.strip().splitlines() or [""])[0]
            if r.returncode == 0 and kind == "opts" and "operands: 0" not in r.stdout:
                r.returncode, why = 2, "options to add to a save hold an operand"
            total += 1
            if r.returncode:
                bad += 1
                print(f"not ok - {path}: savecore {shown}: {why}")
            else:
                print(f"ok - {path}: savecore {shown}")
    if not total:
        print("not ok - no savecore command line found in the documentation")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
