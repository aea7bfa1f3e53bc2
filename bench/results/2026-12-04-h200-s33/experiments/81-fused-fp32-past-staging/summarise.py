import re,collections,sys
d=collections.defaultdict(list); b=None
for l in open(sys.argv[1]):
    if l.startswith('=='): b=l.split()[1]; continue
    m=re.match(r'fused_add_rms_norm fp32 (\d+) x (\d+) \(stride (\d+)\): ([\d.]+)',l)
    if m: d[(int(m[2]),int(m[1]),int(m[3]),b)].append(float(m[4]))
keys=sorted(set(k[:3] for k in d))
for c,r,st in keys:
    o=d[(c,r,st,'p81old')]; n=d[(c,r,st,'p81new')]
    byt=4*r*c*4
    print(f"{c:7d} rows {r:4d} stride {st:7d}: old {min(o):7.1f}-{max(o):7.1f} ({byt/min(o)/1e6:.2f} TB/s)  new {min(n):7.1f}-{max(n):7.1f} ({byt/min(n)/1e6:.2f})  {100*(min(n)/min(o)-1):+.1f}%")
