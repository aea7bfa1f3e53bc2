import re,sys,collections,statistics
d=collections.defaultdict(list)
cur=None
for l in open(sys.argv[1]):
    m=re.match(r'== (\w+) (\d+)',l)
    if m: cur=m.group(1); continue
    m=re.match(r'(graph|large) (\w+)\s+(\d+) x\s+(\d+)\s+([\d.]+) us(?:\s+([\d.]+) %)?',l)
    if m:
        k=(m.group(1),m.group(2),int(m.group(3)),int(m.group(4)))
        d[(cur,k)].append(float(m.group(6) if m.group(1)=='large' else m.group(5)))
keys=sorted({k for (_,k) in d}, key=lambda k:(k[0],k[1],k[3],k[2]))
vs=sorted({v for (v,_) in d})
print('%-6s %-5s %6s %6s '%('kind','dt','rows','cols')+' '.join('%22s'%v for v in vs))
for k in keys:
    print('%-6s %-5s %6d %6d '%k+' '.join('%22s'%('%.3f [%.3f..%.3f]'%(statistics.median(d[(v,k)]),min(d[(v,k)]),max(d[(v,k)]))) for v in vs))
