import re,collections,sys
d=collections.defaultdict(list); b=None; bins=[]
for l in open(sys.argv[1]):
    if l.startswith('=='):
        b=l.split()[1]
        if b not in bins: bins.append(b)
        continue
    m=re.match(r'fused_add_rms_norm fp32 (\d+) x (\d+) \(stride (\d+)\): ([\d.]+)',l)
    if m: d[(int(m[2]),int(m[1]),int(m[3]),b)].append(float(m[4]))
keys=sorted(set(k[:3] for k in d))
for c,r,st in keys:
    byt=4*r*c*4; out=f"{c:7d} x{r:4d}:"
    for b in bins:
        v=d[(c,r,st,b)]; out+=f"  {b} {min(v):6.1f}-{max(v):6.1f} ({byt/min(v)/1e6:.2f})"
    print(out)
