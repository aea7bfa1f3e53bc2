# For every registers_kernel in a cuobjdump -sass listing: the SASS index of griddepcontrol.wait
# (ACQBULK) and of the first global load (LDG), and the instruction count.
import re, sys, subprocess
cur = None; idx = 0; rows = {}
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m:
        cur = m.group(1); idx = 0; rows[cur] = [None, None, 0]; continue
    if cur is None: continue
    m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
    if not m: continue
    ins = m.group(2)
    r = rows[cur]
    if r[0] is None and "ACQBULK" in ins: r[0] = idx
    if r[1] is None and re.search(r"\bLDG\b|LDG\.", ins): r[1] = idx
    idx += 1; r[2] = idx
names = [k for k in rows if "registers_kernel" in k]
dem = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.split("\n")
for k, d in zip(names, dem):
    a, l, n = rows[k]
    d = d.replace("rowwise::kernels::", "")
    print(f"wait {a} first_ldg {l} gap {None if a is None or l is None else l - a} total {n}  {d[:160]}")
