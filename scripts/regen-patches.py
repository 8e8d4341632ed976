#!/usr/bin/env python3
# Regenerate patches/*.patch and patches/series from patches/edits.py.
#   scripts/regen-patches.py PRISTINE_6.12_TREE
import os, subprocess, shutil, sys
P=sys.argv[1] if len(sys.argv) > 1 else '/tmp/k/linux-source-6.12'
S='/tmp/pp/stack'
OUT=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'patches')
shutil.rmtree(S,ignore_errors=True)
def edit(path, old, new, count=1):
    s=open(path).read()
    if s.count(old)!=count: sys.exit(f"{path}: anchor found {s.count(old)} times: {old[:60]!r}")
    open(path,'w').write(s.replace(old,new))
names=[]
def patch(name, subject, body, files, edits):
    a='/tmp/pp/a'; b='/tmp/pp/b'
    shutil.rmtree(a,ignore_errors=True); shutil.rmtree(b,ignore_errors=True)
    for f in files:
        src=f'{S}/{f}' if os.path.exists(f'{S}/{f}') else f'{P}/{f}'
        for d in (a,b):
            os.makedirs(os.path.dirname(f'{d}/{f}'),exist_ok=True); shutil.copy(src,f'{d}/{f}')
    cwd=os.getcwd(); os.chdir(b); edits(); os.chdir(cwd)
    diff=''
    for f in files:
        r=subprocess.run(['diff','-up','--label',f'a/{f}','--label',f'b/{f}',f'{a}/{f}',f'{b}/{f}'],capture_output=True,text=True)
        if not r.stdout: sys.exit(f'{name}: no change in {f}')
        diff+=r.stdout
    with open(f'{OUT}/{name}','w') as fh:
        fh.write(f"From: diskdump developers <diskdump@lists.example.org>\nSubject: [PATCH] {subject}\n\n{body.strip()}\n\nSigned-off-by: diskdump developers <diskdump@lists.example.org>\n---\n{diff}")
    names.append(name)
    for f in files:
        os.makedirs(os.path.dirname(f'{S}/{f}'),exist_ok=True); shutil.copy(f'{b}/{f}', f'{S}/{f}')

exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'patches', 'edits.py')).read())
open(f'{OUT}/series','w').write(''.join(n+'\n' for n in names))
print('\n'.join(names))
