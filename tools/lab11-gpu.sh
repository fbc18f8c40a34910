#!/usr/bin/env bash
# Lab 11 on the GPU machine (an H100) in one call: build (or use build/bin
# when it was built elsewhere for sm_90 and its libraries are here, or in
# build/hostlibs), lab 11's tests on the reference with lab 10's roofline
# tests (its tensor-core ceilings), mmlab mma-rate (mma.sync's ceiling), the
# benchmark (lab11.wgmma and cuBLAS bf16 at 1000..8192 and two rectangles;
# every stage at 4096; random U(-1,1) inputs), lab 10's roofline with the
# tensor-core ceilings, the SASS of the lab's kernels (HGMMA / HMMA / FFMA
# counts), the top of the ladder again with L2 flushed before each timed run
# (cold), compute-sanitizer memcheck and racecheck on the small shapes, and
# the untouched starters (must fail, saying why) - in that order, most needed
# first. The SM clock and power are sampled all along (clocks.csv). Every
# step has a time limit inside LAB11_BUDGET_S (default 540 s); logs go to
# $OUT (at most 8 files) or build/lab11-gpu.
# LAB11_STEPS="build tests rate bench roofline sass cold sanitizer starters"
# picks steps; LAB11_SIZES/LAB11_STAGES (first benchmark run),
# LAB11_SIZES2/LAB11_STAGES2 (second; LAB11_SIZES2=none: no second) and LAB11_COLD_SIZES (the cold run, the
# first run's stages) change the benchmark; LAB11_TESTS the test cases
# (doctest's --test-case filter; LAB11_SAN_TESTS those under the sanitizers),
# LAB11_SANITIZERS the tools, LAB11_REPS the
# benchmark's repetitions.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/lab11-gpu}
mkdir -p "$out"
budget=${LAB11_BUDGET_S:-540}
steps=${LAB11_STEPS:-build tests rate bench roofline sass cold sanitizer starters}
sizes=${LAB11_SIZES:-1000,1024,2047,2048,4095,4096,5000,8192,8192x1024x4096,1024x8192x4096}
stages=${LAB11_STAGES:-lab11.wgmma,lab11.wgmma_streamk,lab11.cublas_bf16}
cold_sizes=${LAB11_COLD_SIZES:-1000,4096,5000}
tests=${LAB11_TESTS:-*}
sanitizers=${LAB11_SANITIZERS:-memcheck racecheck}
san_tests=${LAB11_SAN_TESTS:-$tests}
sizes2=${LAB11_SIZES2:-4096}
stages2=${LAB11_STAGES2:-lab11.wmma_bf16,lab11.mma_sync,lab11.wgmma,lab11.cublas_bf16,lab11.wgmma_tf32,lab11.cublas_tf32}
source tools/lib/steps.sh   # t0, left, want, step, limited
need_gpu
export MMLAB=build/bin/mmlab
[ -d build/hostlibs ] && export LD_LIBRARY_PATH="$PWD/build/hostlibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
summary=()
# The ratios table of mmlab's --json files: each row against its peer (cuBLAS
# bf16 or TF32, cuBLASLt FP8) of the same run and shape.
table() {
  python3 - "$@" <<'EOF' 2>&1
import json, sys
for path in sys.argv[1:]:
    try:
        d = json.load(open(path))
    except Exception as e:
        print(path, "unreadable:", e)
        continue
    rows = d["summary"]
    peer = {}
    fmt_of = lambda stage: "tf32" if "tf32" in stage else "fp8" if "fp8" in stage else "bf16"
    for r in rows:
        if r["stage"] in ("lab11.cublas_bf16", "lab11.cublas_tf32", "lab11.cublaslt_fp8") and r["passed"] and not r["skipped"]:
            peer[fmt_of(r["stage"]), r["M"], r["N"], r["K"]] = r
    print("\n%-18s %16s %11s %9s %9s %11s %10s" % ("stage", "M x N x K", "kernel", "TFLOP/s", "% peer", "err/bound", "vs fp32"))
    for r in rows:
        p = peer.get((fmt_of(r["stage"]), r["M"], r["N"], r["K"]))
        if r["skipped"] or not r["passed"]:
            why = ("skipped: " + r["skip_reason"]) if r["skipped"] else ("WRONG: " + r["failure"][:100])
            print("%-18s %16s %s" % (r["stage"], "%dx%dx%d" % (r["M"], r["N"], r["K"]), why))
            continue
        pct = 100 * r["gflops"] / p["gflops"] if p else float("nan")
        err = r["error_vs_unrounded"] if r["error_vs_unrounded"] is not None else -1
        t = r.get("median_s") or 0
        print("%-18s %16s %9.1f%s %9.1f %8.1f%% %11.4f %10.2e" % (r["stage"], "%dx%dx%d" % (r["M"], r["N"], r["K"]),
              t * 1e6 if t < 1e-2 else t * 1e3, "us" if t < 1e-2 else "ms", r["gflops"] / 1e3, pct,
              r["worst_error_over_bound"], err))
    print("device: %s, date %s" % ((d.get("gpu") or {}).get("name"), d.get("date")))
EOF
}
# The SM clock and power every half second while the steps run: the tensor
# cores' ceilings are at the clock the device reports; what it holds under
# load is here. (Stopped by its own id at the end.)
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader -lms 500 \
  > "$out/clocks.csv" 2>&1 &
sampler=$!
{
nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader
date -u

if want build; then
  step "build"
  if [ -x build/bin/mmlab-tests ] && ! ldd build/bin/mmlab-tests | grep -q "not found" && build/bin/mmlab list > /dev/null 2>&1; then
    echo "using the carried build/bin (built for sm_90; $(cat build/toolchain.txt build/nvcc.txt 2>/dev/null | tr "\n" " "))"
  else
    ldd build/bin/mmlab-tests 2>/dev/null | grep "not found"
    rm -rf build/bin
    limited 240 make -j"$(nproc)" build/bin/mmlab build/bin/mmlab-tests CUDA_ARCH=90 > build/lab11-build.log 2>&1 ||
      { tail -30 build/lab11-build.log; kill "$sampler"; exit 1; }
    grep -E "warning|C7508" build/lab11-build.log | grep -v "#550-D" | head -5
  fi
fi

if want tests; then
  step "lab 11 tests (reference), lab 10's tensor-core ceilings and roofline rows"
  limited 150 build/bin/mmlab-tests --test-suite=gpu-lab11,lab10-given --test-case="$tests" > "$out/tests.log" 2>&1
  rc=$?
  grep -E "ERROR|is wrong|passed the|FAILED|error:" "$out/tests.log" | cut -c1-300 | head -20
  tail -3 "$out/tests.log"
  summary+=("tests gpu-lab11,lab10-given: $(grep -E 'test cases:' "$out/tests.log" | tail -1 | sed 's/\[doctest\] //') (rc $rc)")
  limited 60 build/bin/mmlab-tests --test-suite=gpu-reference-lab10 --test-case='roofline*' > "$out/tests.tmp" 2>&1
  rc=$?
  cat "$out/tests.tmp" >> "$out/tests.log"
  grep -E "ERROR|FAILED|error:" "$out/tests.tmp" | cut -c1-300 | head -10
  summary+=("tests gpu-reference-lab10 roofline*: $(grep -E 'test cases:' "$out/tests.tmp" | tail -1 | sed 's/\[doctest\] //') (rc $rc)")
  rm -f "$out/tests.tmp"
fi

if want rate; then
  step "mmlab mma-rate: mma.sync with operands in registers, no memory traffic"
  limited 30 build/bin/mmlab mma-rate
  summary+=("mma-rate rc $?")
fi

if want bench; then
  # Two runs, each with its peer (ratios in one run): the top of the bf16
  # ladder and cuBLAS bf16 at every size; every stage and the TF32 pair at 4096.
  step "benchmark: $stages at $sizes (kernel time between CUDA events; conversion to bf16/TF32 not timed)"
  limited 200 build/bin/mmlab run --stage "$stages" --size "$sizes" --no-baseline ${LAB11_REPS:+--reps $LAB11_REPS} \
    --json "$out/bench.json" \
    > "$out/bench.txt" 2>&1
  summary+=("bench rc $?")
  if [ "$sizes2" != none ]; then
    step "benchmark: $stages2 at $sizes2"
    limited 100 build/bin/mmlab run --stage "$stages2" --size "$sizes2" --no-baseline --json "$out/bench2.json" \
      >> "$out/bench.txt" 2>&1
    summary+=("bench2 rc $?")
  fi
  grep -E "^(peer|gpu|gpu L2) " "$out/bench.txt" | sort -u
  table "$out/bench.json" $([ "$sizes2" != none ] && echo "$out/bench2.json") | tee -a "$out/bench.txt"
fi

if want roofline; then
  # Lab 10's roofline: lab 6-8 and 11 stages and cuBLAS at 4096^3, each under
  # the ceiling of the units it runs on (FP32, bf16 or TF32 tensor cores).
  step "lab 10 roofline with the tensor-core ceilings (CPU part at 300^3, GPU at 4096^3)"
  limited 120 build/bin/mmlab roofline --size 300 --gpu-size 4096 --quiet --csv "$out/roofline.csv" \
    > build/lab11-roofline.txt 2>&1
  rc=$?
  grep -E "^GPU|^     |^GPU +lab|not timed|WRONG|^bound" build/lab11-roofline.txt
  summary+=("roofline rc $rc")
fi

if want sass; then
  step "SASS: tensor-core instructions per lab 11 kernel (cuobjdump -sass on lab 11's objects)"
  sass=$(mktemp)
  objs=$(ls build/obj/solutions/lab11/*.o build/obj/labs/lab11/*.o build/obj/gpu/mma_rate.cu.o 2>/dev/null)
  cuobjdump=$(command -v cuobjdump || echo "${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump")
  for o in ${objs:-build/bin/mmlab}; do "$cuobjdump" -sass "$o"; done > "$sass" 2>&1  # (one file a call)
  grep -q "Function :" "$sass" || { echo "no SASS from $cuobjdump on: ${objs:-build/bin/mmlab}"; head -5 "$sass"; }
  awk '/Function :/ { name = $3 } name ~ /lab11|mma_sync_rate/ && /HGMMA|HMMA|FFMA|UTMALDG|SYNCS|LDSM|LDGSTS|BAR/ {
         for (i = 1; i <= NF; i++) if ($i ~ /^(HGMMA|HMMA|FFMA|UTMALDG|SYNCS|LDSM|LDGSTS|BAR)/) { split($i, p, "."); n[name " " p[1]]++ } }
       END { for (k in n) print n[k], k }' "$sass" | sort -k2 | sed -E 's/_GLOBAL__N__[0-9a-f_]+_cu_[0-9a-f]+//'
  echo "instruction forms:"
  grep -oE "(HGMMA|HMMA)\.[0-9x]+\.F32\.[A-Z0-9]+" "$sass" | sort | uniq -c
  grep -m1 -E "HGMMA\.64x256x16\.F32\.BF16" "$sass" | sed 's/^ *//' | cut -c1-150
  # The instructions of mma_sync's k-loop by kind (one k-tile: 128 HMMA a warp; the rest is its overhead)
  echo "lab11.mma_sync (reference) SASS, every instruction by opcode:"
  awk '/Function :/ { name = $3 } name ~ /mma_sync_kernel/ && name !~ /student/ && /^ +\/\*[0-9a-f]+\*\// {
         for (i = 1; i <= NF; i++) if ($i ~ /^[A-Z][A-Z0-9_]+(\.|$)/ && $i !~ /^R[0-9]/) { split($i, p, "."); n[p[1]]++; break } }
       END { for (k in n) printf "%s %d; ", k, n[k]; print "" }' "$sass"
  cp "$sass" "$out/sass.txt"  # the whole disassembly, to read at leisure
  rm -f "$sass"
fi

if want cold; then
  step "benchmark, cold L2 (--l2 flush: a buffer of twice the L2 written before each timed run): $stages at $cold_sizes"
  limited 100 build/bin/mmlab run --stage "$stages" --size "$cold_sizes" --no-baseline --l2 flush ${LAB11_REPS:+--reps $LAB11_REPS} \
    --json "$out/cold.json" > "$out/cold.txt" 2>&1
  summary+=("cold rc $?")
  grep -E "^gpu L2" "$out/cold.txt" | head -1
  table "$out/cold.json" | tee -a "$out/cold.txt"
fi

if want sanitizer; then
  : > "$out/sanitizer.log"
  for tool in $sanitizers; do
    step "compute-sanitizer --tool $tool, lab 11 small shapes"
    limited 100 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 \
      build/bin/mmlab-tests --test-suite=gpu-lab11 --test-case="$san_tests" --test-case-exclude='*big odd*' > "$out/san.tmp" 2>&1
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

if want starters; then
  step "untouched starters (must fail with a message)"
  MML_IMPL=student limited 60 build/bin/mmlab-tests --test-suite=gpu-lab11 --test-case-exclude='*big odd*' \
    > build/lab11-starters.log 2>&1
  { echo; echo "== untouched starters"; cat build/lab11-starters.log; } >> "$out/tests.log"
  grep -E "is wrong at" build/lab11-starters.log | sed 's/.*logged: //' | cut -c1-220 | sort -u | head -8
  summary+=("starters: $(grep -E 'test cases:' build/lab11-starters.log | tail -1 | sed 's/\[doctest\] //')")
fi

step "summary"
for s in "${summary[@]}"; do echo "$s"; done
echo "done at t=$(( $(date +%s) - t0 ))s"
} 2>&1 | tee "$out/main.log"
kill "$sampler" 2>/dev/null
awk -F', ' 'NR > 1 && $2 + 0 > 0 { n++; c += $2; if ($2 + 0 < lo || !lo) lo = $2 + 0; if ($2 + 0 > hi) hi = $2 + 0 }
            END { if (n) printf "SM clock while the steps ran: %d samples, %d..%d MHz, mean %.0f (clocks.csv)\n", n, lo, hi, c / n }' \
  "$out/clocks.csv" | tee -a "$out/main.log"
