#!/usr/bin/env bash
# Whether the device code of every op is unchanged against a git revision: compiles one
# translation unit that instantiates softmax, log_softmax, layer_norm, rms_norm and
# fused_add_rms_norm for fp32, fp16 and bf16 (W = T and W = float) to PTX for sm_90, once with the
# revision's include/ and once with the working tree's, and compares the two byte for byte.
# No GPU needed: a change that leaves the PTX identical (host validation, comments, a refactor)
# keeps the last device verification valid; any other needs the GPU tests and the sweep again.
#
# Usage: scripts/ptx_same.sh REV        exit 0: identical; 1: different; 2: usage or build error
#        OPS="softmax rms_norm" scripts/ptx_same.sh REV   only those ops (default: all five), e.g.
#        to show that a change to one op left the others' device code as it was
#        ENTRIES=1 scripts/ptx_same.sh REV   compare kernel by kernel (PTX split at each `.globl`):
#        exit 0 when every kernel present in both is identical, listing the kernels only one has
#        (a change that adds kernel instances and leaves the existing ones as they were);
#        PTX_KEEP=DIR keeps the two PTX files there
#        With ENTRIES=1, mangled names are compared demangled and without rowwise's inline ABI
#        namespace (include/rowwise/abi.hpp), whose name carries the version and target list:
#        it renames every kernel without changing its code.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rev=${1:?usage: scripts/ptx_same.sh REV}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git archive "$rev" include | tar x -C "$work" || exit 2
ops=${OPS:-softmax log_softmax layer_norm rms_norm fused_add_rms_norm}
declare -A call=(
  [softmax]='(void)rowwise::softmax(in, out, s);'
  [log_softmax]='(void)rowwise::log_softmax(in, out, s);'
  [layer_norm]='(void)rowwise::layer_norm(in, out, v, v, 1e-5f, s, stats, stats + 4);'
  [rms_norm]='(void)rowwise::rms_norm(in, out, v, 1e-6f, s);'
  [fused_add_rms_norm]='(void)rowwise::fused_add_rms_norm(rowwise::matrix(a, 4, 64), out, v, 1e-6f, s);'
)
body=""
for op in $ops; do
  [[ -n "${call[$op]:-}" ]] || { echo "ptx_same.sh: unknown op '$op'" >&2; exit 2; }
  body+="  ${call[$op]}"$'\n'
done
cat > "$work/all_ops.cu" <<CU
#include <rowwise/rowwise.cuh>
template <class T, class W>
void all(T* a, T* b, const W* w, float* stats, cudaStream_t s) {
  auto in = rowwise::matrix<const T>(a, 4, 64);
  auto out = rowwise::matrix(b, 4, 64);
  auto v = rowwise::vector(w, 64);
  (void)in; (void)out; (void)v; (void)stats;
${body}}
template void all<float, float>(float*, float*, const float*, float*, cudaStream_t);
template void all<__half, __half>(__half*, __half*, const __half*, float*, cudaStream_t);
template void all<__half, float>(__half*, __half*, const float*, float*, cudaStream_t);
template void all<__nv_bfloat16, __nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16*, const __nv_bfloat16*, float*, cudaStream_t);
template void all<__nv_bfloat16, float>(__nv_bfloat16*, __nv_bfloat16*, const float*, float*, cudaStream_t);
CU
nvcc=${CUDACXX:-nvcc}
"$nvcc" -std=c++17 -arch=sm_90 -ptx -I "$work/include" "$work/all_ops.cu" -o "$work/rev.ptx" || exit 2 &
"$nvcc" -std=c++17 -arch=sm_90 -ptx -I include "$work/all_ops.cu" -o "$work/tree.ptx" || exit 2
wait $! || exit 2
[[ -n "${PTX_KEEP:-}" ]] && mkdir -p "$PTX_KEEP" && cp "$work/rev.ptx" "$work/tree.ptx" "$PTX_KEEP/"
if [[ "${ENTRIES:-0}" == 1 ]]; then
  python3 - "$work/rev.ptx" "$work/tree.ptx" "$rev" <<'PY' || exit 1
import re, subprocess, sys
# Mangled names (kernels, their parameters, device functions) demangled, with the inline ABI
# namespace dropped: removing one component from a mangled name renumbers its substitutions, so
# only the demangled forms compare.
def demangle_all(paths):
    names = set()
    for path in paths:
        names.update(re.findall(r'_Z[A-Za-z0-9_]+', open(path).read()))
    bases = sorted({re.sub(r'_param_\d+$', '', n) for n in names})
    out = subprocess.run(['c++filt'], input='\n'.join(bases), capture_output=True, text=True, check=True).stdout
    plain = {b: re.sub(r'rowwise::abi_[0-9a-z_]+::', 'rowwise::', d) for b, d in zip(bases, out.split('\n'))}
    def name(m):
        n = m.group(0)
        b = re.sub(r'_param_\d+$', '', n)
        return plain.get(b, b) + n[len(b):]
    return lambda line: re.sub(r'_Z[A-Za-z0-9_]+', name, line)
unmangle = demangle_all(sys.argv[1:3])
# Names numbered across the translation unit (basic-block labels carry the function's ordinal,
# internal helpers a counter) change when a kernel is added before them: number them apart. The
# compiler's list of demoted shared variables (comments, one per kernel) is dropped.
def normal(line):
    line = unmangle(line)
    if re.match(r'// \S+ has been demoted$', line.strip()): return ''
    line = re.sub(r'\$L__BB\d+_', '$L__BB_', line)
    return re.sub(r'(__internal_|__unnamed_|\$str\$?)\d+', r'\1N', line)
def kernels(path):
    # Each kernel from its `.globl` on, less what lies outside every function (module-scope
    # declarations, such as the dynamic shared memory's `.extern .shared`): PTX puts those before
    # the first function, so they would count as the first kernel's and move with it. They are
    # compared apart, as one entry.
    out, name, module, header, depth = {}, None, [], [], 0
    for line in map(normal, open(path)):
        m = re.match(r'\s*// \.globl\s+(.+?)\s*$', line)
        if m:
            name = m.group(1)
            out.setdefault(name, [line])
            continue
        if depth == 0:
            if header or re.search(r'\.(entry|func)\b', line):
                header.append(line)
                if '{' in line:
                    out.setdefault(name or '(functions before any kernel)', []).extend(header)
                    depth, header = line.count('{') - line.count('}'), []
                elif line.rstrip().endswith(';'):
                    module.extend(header)  # a prototype
                    header = []
            elif line.strip():
                module.append(line)
            continue
        out[name or '(functions before any kernel)'].append(line)
        depth += line.count('{') - line.count('}')
    out = {k: ''.join(v) for k, v in out.items()}
    out['(module-scope declarations)'] = ''.join(sorted(module))
    return out
rev, tree = kernels(sys.argv[1]), kernels(sys.argv[2])
common = sorted(set(rev) & set(tree))
differ = [k for k in common if rev[k] != tree[k]]
for k in sorted(set(tree) - set(rev)): print('ptx_same.sh: only in the working tree:', k)
for k in sorted(set(rev) - set(tree)): print('ptx_same.sh: only in %s: %s' % (sys.argv[3], k))
for k in differ: print('ptx_same.sh: differs:', k)
print('ptx_same.sh: %d kernels in both, %d differ; %d only in the tree, %d only in %s'
      % (len(common), len(differ), len(set(tree) - set(rev)), len(set(rev) - set(tree)), sys.argv[3]))
sys.exit(1 if differ else 0)
PY
  exit 0
fi
if cmp -s "$work/rev.ptx" "$work/tree.ptx"; then
  echo "ptx_same.sh: identical to $rev for: $ops ($(wc -c < "$work/tree.ptx") bytes of PTX)"
else
  echo "ptx_same.sh: the device code differs from $rev for: $ops"
  exit 1
fi
