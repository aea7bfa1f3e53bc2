#!/usr/bin/env python3
# sass_prof.py CSV...: per ncu source-page CSV (ncu_full.sh), instructions executed and sampled stalls
# per opcode, and the instructions with the most samples (experiment 96).
import csv,sys,collections,re
def load(f):
    rows=list(csv.reader(open(f)))
    hdr=rows[1]; data=[dict(zip(hdr,r)) for r in rows[2:] if len(r)==len(hdr)]
    return data
def num(x):
    try: return float(x.replace(',',''))
    except: return 0.0
def summary(f,top=25):
    d=load(f)
    tot_s=sum(num(r['# Samples']) for r in d); tot_i=sum(num(r['Instructions Executed']) for r in d)
    op=collections.Counter(); opi=collections.Counter(); ops=collections.Counter()
    stalls=collections.Counter()
    for r in d:
        m=re.match(r'\s*(@!?U?P\w+\s+)?(\S+)',r['Source']); o=m.group(2) if m else '?'
        opi[o]+=num(r['Instructions Executed']); ops[o]+=num(r['# Samples'])
        for k in r:
            if k.startswith('stall_') and 'Not Issued' not in k: stalls[k]+=num(r[k])
    print(f"# {f}: instr {tot_i:.0f} samples {tot_s:.0f} static {len(d)}")
    print("  stalls:", ', '.join(f"{k[6:]} {v/tot_s*100:.0f}%" for k,v in stalls.most_common(8)))
    print("  by opcode (instr executed, samples%):")
    for o,v in opi.most_common(18): print(f"    {o:22s} {v:12.0f} {ops[o]/tot_s*100:5.1f}%")
    print("  top instructions by samples:")
    for i,r in sorted(enumerate(d),key=lambda x:-num(x[1]['# Samples']))[:top]:
        print(f"    {i:5d} {num(r['# Samples'])/tot_s*100:5.1f}% ex {num(r['Instructions Executed']):9.0f} thr {r['Avg. Threads Executed']:>5s} {r['Source'].strip()[:70]}")
for f in sys.argv[1:]: summary(f)
