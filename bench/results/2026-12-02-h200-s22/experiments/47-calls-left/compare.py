import re, sys, collections
cur=None; data=collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    m=re.match(r"== (\w+) (\d+)", line)
    if m: cur=m.group(1); continue
    m=re.match(r"\s+(\S+)\s+(fp32|bf16)\s+(\d+) x\s+(\d+)\s+(graph\s+)?([\d.]+) us", line)
    if m:
        key=(m.group(1), m.group(2), int(m.group(3)), int(m.group(4)), bool(m.group(5)))
        val=float(m.group(6))
        pm=re.search(r"([\d.]+) % of copy", line)
        data[key][cur].append(float(pm.group(1)) if pm else val)
for key,v in data.items():
    b=v['base']; n=v['new']
    unit = "us" if key[4] else "%"
    print(f"{key[0]:12s} {key[1]} {key[2]:6d} x {key[3]:6d} {'graph' if key[4] else 'large'}: base {min(b):7.3f}-{max(b):7.3f}  new {min(n):7.3f}-{max(n):7.3f} {unit}  mean {sum(b)/len(b):7.3f} -> {sum(n)/len(n):7.3f}")
