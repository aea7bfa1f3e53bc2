import re,sys,collections
log=open(sys.argv[1]).read().split("== ")[1:]
data=collections.defaultdict(lambda: collections.defaultdict(list))  # key -> variant -> values
order=[]
for chunk in log:
    lines=chunk.strip().split("\n"); v=lines[0].strip()
    seen=collections.Counter()
    for l in lines[1:]:
        m=re.match(r"(\S+)\s+(\S+)\s+(.*?):\s(.*)",l)
        if not m or l.startswith("hash") or l.startswith("floor"): continue
        key0=(m.group(1),m.group(2),m.group(3))
        for tok in re.sub(r"\([^)]*\)","",m.group(4)).split():
            sh,val=tok.split(":",1); val=float(re.match(r"[\d.]+",val).group(0))
            k=key0+(sh,)
            if k not in order: order.append(k)
            data[k][v].append(val)
vs=sorted({v for k in data for v in data[k]})
print("%-40s"%"shape"+"".join("%16s"%v for v in vs))
for k in order:
    print("%-40s"%" ".join(k)+"".join("%16s"%("/".join("%.2f"%x if x<20 else "%.1f"%x for x in data[k][v])) for v in vs))
