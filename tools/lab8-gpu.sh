#!/usr/bin/env bash
# Lab 8 on a GPU machine, in one call: build; lab 8's GPU tests (gpu-lab8)
# and the wave model's (lab8-given); the benchmark of lab8.double_buffer,
# lab8.async_copy, lab8.autotile and lab8.streamk against cuBLAS FP32 in one run at square, odd and
# rectangular shapes (kernel time, CUDA events, Google Benchmark's median);
# mmlab tune at the shapes where the model splits K or picks small tiles;
# compute-sanitizer memcheck and racecheck on stage 5's, 6's and 8's tests at small shapes.
# Each step has a time limit inside LAB8_GPU_BUDGET_S (default 560 s), in
# that order of priority. Logs go to $OUT (where set, a folder the caller collects)
# or build/lab8-gpu. LAB8_GPU_STEPS="build tests bench tune sanitizer" picks steps.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/lab8-gpu}
mkdir -p "$out"
budget=${LAB8_GPU_BUDGET_S:-560}
steps=${LAB8_GPU_STEPS:-build tests bench tune sanitizer}
source tools/lib/steps.sh   # t0, left, want, step, limited
need_gpu
export MMLAB=build/bin/mmlab
export NO_INSTALL=1
summary=()

{ nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.max.sm --format=csv,noheader; date -u; } |
  tee "$out/gpu.txt"

if want build; then
  step "build"
  limited 240 make -j"$(nproc)" build/bin/mmlab build/bin/mmlab-tests > "$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; exit 1; }
fi

if want tests; then
  step "tests: gpu-lab8, lab8-given"
  limited 150 build/bin/mmlab-tests --test-suite='gpu-lab8,lab8-given' > "$out/tests.log" 2>&1
  rc=$?; grep -E "test cases:" "$out/tests.log" | tail -1; grep -B2 -A8 "ERROR" "$out/tests.log" | head -30
  summary+=("tests: $(grep -E 'test cases:' "$out/tests.log" | tail -1 | sed 's/\[doctest\] //') (rc $rc)")
fi

if want bench; then
  step "benchmark: lab8.double_buffer, lab8.async_copy, lab8.autotile and lab8.streamk vs cuBLAS FP32, one run (kernel time, median of 3)"
  shapes=1000,1024,2047,2048,4095,4096,5000,8192,8192x256x8192,256x8192x4096,8192x1024x8192,1024x8192x8192
  limited 260 build/bin/mmlab run --stage lab8.double_buffer,lab8.async_copy,lab8.autotile,lab8.streamk,lab8.cublas --size $shapes --reps 3 \
    --no-baseline --json "$out/bench.json" > "$out/bench.txt" 2>&1
  rc=$?; summary+=("bench rc $rc")
  grep -E "^lab8" "$out/bench.txt" | cut -c1-120
  python3 - "$out/bench.json" <<'PY' | tee "$out/ratios.txt"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {}
for r in d["summary"]:
    if r.get("skipped") or not r.get("passed"):
        continue
    rows.setdefault((r["M"], r["N"], r["K"]), {})[r["stage"]] = r
print("%-16s %11s %11s %11s %11s %11s %9s %9s %9s %9s" % ("shape", "cuBLAS", "dbl_buffer", "async_copy", "autotile",
      "streamk", "db/cuBLAS", "ac/cuBLAS", "at/cuBLAS", "sk/cuBLAS"))
for shape, st in rows.items():
    c = st.get("lab8.cublas"); db = st.get("lab8.double_buffer"); ac = st.get("lab8.async_copy")
    at = st.get("lab8.autotile"); sk = st.get("lab8.streamk")
    if not c:
        continue
    t = lambda r: r["median_s"] if r else float("nan")
    print("%-16s %9.1fus %9.1fus %9.1fus %9.1fus %9.1fus %8.1f%% %8.1f%% %8.1f%% %8.1f%%" % ("x".join(map(str, shape)),
          1e6 * t(c), 1e6 * t(db), 1e6 * t(ac), 1e6 * t(at), 1e6 * t(sk), 100 * t(c) / t(db), 100 * t(c) / t(ac),
          100 * t(c) / t(at), 100 * t(c) / t(sk)))
PY
fi

if want tune; then
  step "mmlab tune (reference): every tile x split beside the model"
  limited 90 build/bin/mmlab tune --size 1000 --reps 10 > "$out/tune.txt" 2>&1
  summary+=("tune 1000 rc $?")
  limited 150 build/bin/mmlab tune --size 256x8192x4096,8192x256x8192,5000,4096 --split 1,2,3,4,6,8 --reps 5 \
    >> "$out/tune.txt" 2>&1
  summary+=("tune more rc $?")
  grep -vE "^\[tune\]|^(GPU|model|timed) +:" "$out/tune.txt"
fi

if want sanitizer; then
  for tool in memcheck racecheck; do
    step "compute-sanitizer --tool $tool, lab8.async_copy, lab8.autotile and lab8.streamk tests at small shapes"
    limited 100 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 \
      build/bin/mmlab-tests --test-suite=gpu-lab8 --test-case='*async_copy*,*autotile*,*streamk*' --test-case-exclude='*big odd*,*same bits*' \
      > "$out/$tool.log" 2>&1
    rc=$?
    line=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/$tool.log" | tail -1)
    cases=$(grep -E "test cases:" "$out/$tool.log" | tail -1 | sed 's/\[doctest\] //')
    echo "$line | $cases | rc $rc"
    summary+=("$tool: $line | $cases | rc $rc")
  done
fi

step "summary"
printf '%s\n' "${summary[@]}"
