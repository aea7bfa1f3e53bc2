import csv, gzip, sys, collections, re
f = sys.argv[1]; warps = float(sys.argv[2]) if len(sys.argv) > 2 else 1
rows = list(csv.reader(gzip.open(f, 'rt')))
hdr = rows[1]; ie = hdr.index("Instructions Executed"); src = hdr.index("Source")
ops = collections.Counter(); total = 0; lines=[]
for r in rows[2:]:
    if len(r) <= ie: continue
    try: n = int(r[ie])
    except: continue
    s = r[src].strip()
    op = re.sub(r'^@!?U?P\w+\s+', '', s).split()[0] if s else '?'
    ops[op.split('.')[0]] += n; total += n; lines.append((n, r[0], s))
print(f"total {total}  per-warp {total/warps:.1f}")
for op, n in ops.most_common(40): print(f"{op:12s} {n/warps:8.1f}")
