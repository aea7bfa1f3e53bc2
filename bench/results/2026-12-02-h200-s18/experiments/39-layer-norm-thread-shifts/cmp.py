import sys
def parse(fs):
    d={}
    for f in fs:
        for l in open(f):
            p=l.split()
            if not p or p[0] not in ('small','large','err'): continue
            key=(p[0],p[1],p[2],p[3])
            val=float(p[6]) if p[0]=='large' else float(p[4])
            d.setdefault(key,[]).append(val)
    return d
A=parse(sys.argv[1].split(','));B=parse(sys.argv[2].split(','))
med=lambda a: sorted(a)[len(a)//2]
for k in A:
    a=A[k];b=B.get(k,[float('nan')])
    if k[0]=='err': print(*k, '%.2e -> %.2e'%(a[0],b[0]))
    elif k[0]=='small': print(*k, '%.2f -> %.2f'%(min(a),min(b)), '  ', ' '.join('%.2f'%x for x in a),'|',' '.join('%.2f'%x for x in b))
    else: print(*k, '%.1f -> %.1f'%(max(a),max(b)), '  ', ' '.join('%.1f'%x for x in a),'|',' '.join('%.1f'%x for x in b))
