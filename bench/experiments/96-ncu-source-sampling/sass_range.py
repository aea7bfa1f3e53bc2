#!/usr/bin/env python3
# sass_range.py CSV FIRST LAST: instructions FIRST..LAST of an ncu source-page CSV with their
# share of the samples, executions, active threads and two main stall reasons (experiment 96).
import csv,sys
f=sys.argv[1]; a=int(sys.argv[2]); b=int(sys.argv[3])
rows=list(csv.reader(open(f))); hdr=rows[1]; d=[dict(zip(hdr,r)) for r in rows[2:] if len(r)==len(hdr)]
tot=sum(float(r['# Samples'] or 0) for r in d)
def num(x):
    try: return float(x.replace(',',''))
    except: return 0.0
for i in range(a,min(b,len(d))):
    r=d[i]; st=sorted(((num(r[k]),k[6:]) for k in r if k.startswith('stall_') and 'Not Issued' not in k),reverse=True)[:2]
    s=' '.join(f"{k}:{v:.0f}" for v,k in st if v>0)
    print(f"{i:5d} {num(r['# Samples'])/tot*100:5.1f}% ex {num(r['Instructions Executed']):9.0f} thr {r['Avg. Threads Executed']:>5s} {r['Source'].strip()[:64]:64s} {s}")
