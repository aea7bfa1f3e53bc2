import re,sys
def parse(f):
    d={}; cur=None
    for line in open(f):
        m=re.search(r"Compiling entry function '(\S+)'",line)
        if m: cur=m.group(1); continue
        m=re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads",line)
        if m and cur: d.setdefault(cur,{})['sp']=(int(m.group(1)),int(m.group(2)))
        m=re.search(r"Used (\d+) registers",line)
        if m and cur: d.setdefault(cur,{})['r']=int(m.group(1))
    return d
a=parse(sys.argv[1]); b=parse(sys.argv[2])
import subprocess
for k in sorted(a):
    if k in b and a[k].get('sp')!=b[k].get('sp'):
        name=subprocess.run(['c++filt',k],capture_output=True,text=True).stdout.strip()
        name=re.sub(r"rowwise::kernels::","",name); name=re.sub(r"\(.*","",name)
        print(a[k].get('r'),a[k]['sp'],'->',b[k].get('r'),b[k]['sp'],name)
