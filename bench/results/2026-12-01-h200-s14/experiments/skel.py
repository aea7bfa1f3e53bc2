import re,sys
def funcs(path):
    txt=open(path).read().split("Function : ")[1:]
    out={}
    for t in txt:
        name=t.split("\n",1)[0].strip()
        ins=re.findall(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);",t)
        out[name]=ins
    return out
def short(n):
    m=re.search(r"INS0_(\w+?)E.*?Li(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELb(\d)",n); return m.group(1)[:22]+"_"+"_".join(m.group(i) for i in range(2,7))
path=sys.argv[1]; pat=sys.argv[2]; keys=sys.argv[3].split(",") if len(sys.argv)>3 else ["LDG","STG","SHFL","BAR","S2R","EXIT","BRA","LDS","STS","UBLKPF","CCTL","SYNCS","ERRBAR","MEMBAR","DEPBAR","ACQBULK","UCGABAR"]
for n,ins in funcs(path).items():
    if pat not in short(n): continue
    print(short(n), len(ins), "instructions")
    for addr,i in ins:
        op=i.split()[0] if not i.startswith("@") else i.split()[1]
        if any(op.startswith(k) for k in keys): print(addr, i[:110])
