import re, sys, subprocess
# Print, per kernel, the program-order sequence of global loads/stores (L = LDG, C = LDG .CONSTANT, S = STG),
# with barriers (B) and warp shuffles collapsed (~), to see where the write-back's weight loads sit.
for cub in sys.argv[1:]:
    out = subprocess.run(["cuobjdump", "-sass", cub], capture_output=True, text=True).stdout
    fn = None; seq = []
    def flush():
        if fn: print(cub, fn[:90], "\n   ", "".join(seq), "\n")
    for line in out.splitlines():
        m = re.match(r"\s+Function : (\S+)", line)
        if m:
            flush(); fn = m.group(1); seq = []; continue
        m = re.search(r"/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)", line)
        if not m: continue
        op = m.group(2)
        if op.startswith("LDG"): seq.append("C" if "CONSTANT" in op else "L")
        elif op.startswith("STG"): seq.append("S")
        elif op.startswith("BAR"): seq.append("B")
        elif op.startswith("SHFL"):
            if not seq or seq[-1] != "~": seq.append("~")
        elif op.startswith("EXIT"): seq.append("|")
    flush()
