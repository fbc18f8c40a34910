#!/usr/bin/env bash
# Lab 11 on the GPU machine (an H100) in one call: build (or use build/bin
# when it was built elsewhere for sm_90 and its libraries are here), lab 11's
# tests on the reference and the shared tests, the untouched starters (must
# fail, saying why), compute-sanitizer memcheck and racecheck on the small
# shapes, the SASS of the lab's kernels (HGMMA / HMMA / FFMA counts), and the
# benchmark (lab 11's stages and cuBLAS bf16/TF32 at 1000..8192, random
# U(-1,1) inputs). Every step has a time limit inside LAB11_BUDGET_S (default
# 540 s); logs go to $OUT (at most 8 files) or build/lab11-gpu.
# LAB11_STEPS="build tests starters sanitizer sass bench" picks steps;
# LAB11_SIZES/LAB11_STAGES (first benchmark run) and LAB11_SIZES2/LAB11_STAGES2
# (second) change the benchmark.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/lab11-gpu}
mkdir -p "$out"
budget=${LAB11_BUDGET_S:-540}
steps=${LAB11_STEPS:-build tests starters sanitizer sass bench}
sizes=${LAB11_SIZES:-1000,1024,2048,4095,4096,5000,8192}
stages=${LAB11_STAGES:-lab11.wgmma,lab11.cublas_bf16}
sizes2=${LAB11_SIZES2:-4096,8192}
stages2=${LAB11_STAGES2:-lab11.wmma_bf16,lab11.mma_sync,lab11.wgmma,lab11.cublas_bf16,lab11.wgmma_tf32,lab11.cublas_tf32}
t0=$(date +%s)
left() { echo $(( budget - ($(date +%s) - t0) )); }
want() { [[ " $steps " == *" $1 "* ]]; }
step() { echo; echo "== $1 (t=$(( $(date +%s) - t0 ))s) =="; }
limited() {  # limited SECONDS CMD...: never past the budget
  local lim=$1; shift
  local l; l=$(left); [ "$l" -lt "$lim" ] && lim=$l
  [ "$lim" -le 2 ] && { echo "(skipped: out of time)"; return 124; }
  timeout "$lim" "$@"
}
export MMLAB=build/bin/mmlab
summary=()
{
nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader
date -u

if want build; then
  step "build"
  if [ -x build/bin/mmlab-tests ] && ! ldd build/bin/mmlab-tests | grep -q "not found" && build/bin/mmlab list > /dev/null 2>&1; then
    echo "using the carried build/bin (built for sm_90; $(cat build/toolchain.txt 2>/dev/null))"
  else
    ldd build/bin/mmlab-tests 2>/dev/null | grep "not found"
    rm -rf build/bin
    limited 240 make -j"$(nproc)" all CUDA_ARCH=90 > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
    grep -E "warning|C7508" "$out/build.log" | grep -v "#550-D" | head -5
  fi
fi

if want tests; then
  step "lab 11 tests (reference) and the shared tests"
  limited 150 build/bin/mmlab-tests --test-suite=gpu-lab11,shared > "$out/tests.log" 2>&1
  rc=$?
  grep -E "ERROR|is wrong|passed the|FAILED|error:" "$out/tests.log" | cut -c1-300 | head -20
  tail -3 "$out/tests.log"
  summary+=("tests: $(grep -E 'test cases:' "$out/tests.log" | tail -1 | sed 's/\[doctest\] //') (rc $rc)")
fi

if want starters; then
  step "untouched starters (must fail with a message)"
  MML_IMPL=student limited 60 build/bin/mmlab-tests --test-suite=gpu-lab11 --test-case-exclude='*big odd*' \
    > "$out/starters.log" 2>&1
  grep -E "is wrong at" "$out/starters.log" | sed 's/.*logged: //' | cut -c1-220 | sort -u | head -8
  summary+=("starters: $(grep -E 'test cases:' "$out/starters.log" | tail -1 | sed 's/\[doctest\] //')")
fi

if want sanitizer; then
  : > "$out/sanitizer.log"
  for tool in memcheck racecheck; do
    step "compute-sanitizer --tool $tool, lab 11 small shapes"
    limited 100 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 \
      build/bin/mmlab-tests --test-suite=gpu-lab11 --test-case-exclude='*big odd*' > "$out/san.tmp" 2>&1
    rc=$?
    cat "$out/san.tmp" >> "$out/sanitizer.log"
    line=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/san.tmp" | tail -1)
    cases=$(grep -E "test cases:" "$out/san.tmp" | tail -1 | sed 's/\[doctest\] //')
    echo "$line | $cases | rc $rc"
    grep -E "^=========  *(Invalid|Race|Error|Barrier)" "$out/san.tmp" | sort | uniq -c | head -5
    summary+=("$tool: $line | $cases | rc $rc")
  done
  rm -f "$out/san.tmp"
fi

if want sass; then
  step "SASS: tensor-core instructions per lab 11 kernel (cuobjdump -sass on lab 11's objects)"
  sass=$(mktemp)
  objs=$(ls build/obj/solutions/lab11/*.o build/obj/labs/lab11/*.o 2>/dev/null)
  cuobjdump -sass ${objs:-build/bin/mmlab} > "$sass" 2>&1
  awk '/Function :/ { name = $3 } name ~ /lab11/ && /HGMMA|HMMA|FFMA|UTMALDG|SYNCS/ {
         for (i = 1; i <= NF; i++) if ($i ~ /^(HGMMA|HMMA|FFMA|UTMALDG|SYNCS)/) { split($i, p, "."); n[name " " p[1]]++ } }
       END { for (k in n) print n[k], k }' "$sass" | sort -k2 | sed -E 's/_GLOBAL__N__[0-9a-f_]+_cu_[0-9a-f]+//'
  echo "instruction forms:"
  grep -oE "(HGMMA|HMMA)\.[0-9x]+\.F32\.[A-Z0-9]+" "$sass" | sort | uniq -c
  grep -m1 -E "HGMMA\.64x256x16\.F32\.BF16" "$sass" | sed 's/^ *//' | cut -c1-150
  rm -f "$sass"
fi

if want bench; then
  # Two runs, each with its peer (ratios in one run): the top of the bf16
  # ladder and cuBLAS bf16 at every size; every stage and the TF32 pair at 4096, 8192.
  step "benchmark: $stages at $sizes (kernel time between CUDA events; conversion to bf16/TF32 not timed)"
  limited 240 build/bin/mmlab run --stage "$stages" --size "$sizes" --no-baseline --json "$out/bench.json" \
    > "$out/bench.txt" 2>&1
  summary+=("bench rc $?")
  step "benchmark: $stages2 at $sizes2"
  limited 150 build/bin/mmlab run --stage "$stages2" --size "$sizes2" --no-baseline --json "$out/bench2.json" \
    >> "$out/bench.txt" 2>&1
  summary+=("bench2 rc $?")
  grep -E "^(peer|gpu) " "$out/bench.txt" | sort -u
  python3 - "$out/bench.json" "$out/bench2.json" <<'EOF' 2>&1 | tee -a "$out/bench.txt"
import json, sys
for path in sys.argv[1:]:
    try:
        d = json.load(open(path))
    except Exception as e:
        print(path, "unreadable:", e)
        continue
    rows = d["summary"]
    peer = {}
    for r in rows:
        if r["stage"] in ("lab11.cublas_bf16", "lab11.cublas_tf32") and r["passed"] and not r["skipped"]:
            peer[("tf32" if "tf32" in r["stage"] else "bf16", r["M"], r["N"], r["K"])] = r
    print("\n%-18s %6s %9s %9s %11s %10s" % ("stage", "n", "TFLOP/s", "% cuBLAS", "err/bound", "vs fp32"))
    for r in rows:
        fmt = "tf32" if "tf32" in r["stage"] else "bf16"
        p = peer.get((fmt, r["M"], r["N"], r["K"]))
        if r["skipped"] or not r["passed"]:
            why = ("skipped: " + r["skip_reason"]) if r["skipped"] else ("WRONG: " + r["failure"][:100])
            print("%-18s %6d %s" % (r["stage"], r["M"], why))
            continue
        pct = 100 * r["gflops"] / p["gflops"] if p else float("nan")
        err = r["error_vs_unrounded"] if r["error_vs_unrounded"] is not None else -1
        print("%-18s %6d %9.1f %8.1f%% %11.4f %10.2e" % (r["stage"], r["M"], r["gflops"] / 1e3, pct,
              r["worst_error_over_bound"], err))
    print("device: %s, date %s" % ((d.get("gpu") or {}).get("name"), d.get("date")))
EOF
fi

step "summary"
for s in "${summary[@]}"; do echo "$s"; done
echo "done at t=$(( $(date +%s) - t0 ))s"
} 2>&1 | tee "$out/main.log"
