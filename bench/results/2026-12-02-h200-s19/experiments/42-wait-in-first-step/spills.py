import re,sys,subprocess
def parse(f):
    out={};cur=None
    for l in open(f):
        m=re.search(r"Compiling entry function '(\S+)'",l)
        if m: cur=m.group(1)
        m=re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads",l)
        if m and cur: out.setdefault(cur,{})['spill']=(int(m.group(2)),int(m.group(3)))
        m=re.search(r"Used (\d+) registers",l)
        if m and cur: out.setdefault(cur,{})['regs']=int(m.group(1))
    return out
A=parse(sys.argv[1]);B=parse(sys.argv[2])
for k in A:
    if k in B and A[k]!=B[k]:
        dem=subprocess.run(['c++filt',k],capture_output=True,text=True).stdout.strip()
        m=re.search(r"registers_kernel<[^,]*, ([^,]*), (\d+), (\d+), (\d+), (\d+), (\w+)>",dem)
        print(A[k]['spill'],A[k]['regs'],'->',B[k]['spill'],B[k]['regs'], m.groups() if m else dem[:150])
