import re,collections,sys
d=collections.defaultdict(list); b=None; bins=[]
for l in open(sys.argv[1]):
    if l.startswith('=='):
        b=l.split()[1]
        if b not in bins: bins.append(b)
        continue
    m=re.match(r'(\w+) (\w+) (\d+) x (\d+) \(stride (\d+)\): ([\d.]+)',l)
    if m: d[(m[1],m[2],int(m[4]),int(m[3]),int(m[5]),b)].append(float(m[6]))
keys=sorted(set(k[:5] for k in d))
for op,dt,c,r,st in keys:
    e=4 if dt=='fp32' else 2
    byt=(4 if op.startswith('fused') else 2)*r*c*e; out=f"{op:18s} {dt} {c:7d} x{r:4d}:"
    v0=None
    for b in bins:
        v=d[(op,dt,c,r,st,b)]
        if not v: continue
        out+=f"  {b} {min(v):6.1f}-{max(v):6.1f} ({byt/min(v)/1e6:.2f} TB/s)"
        if v0 is None: v0=min(v)
        else: out+=f" {100*(min(v)/v0-1):+.1f}%"
    print(out)
