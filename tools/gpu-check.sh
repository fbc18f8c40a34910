#!/usr/bin/env bash
# One call on the GPU machine: build, GPU tests, the same tests under
# compute-sanitizer (memcheck and racecheck), then the GPU benchmarks; a short
# table last. Logs go to $OUT (the device tool brings them back) or build/.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/gpu-check}
mkdir -p "$out"
nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
date -u | tee -a "$out/gpu.txt"

echo "== build =="
make -j"$(nproc)" all > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }

echo "== all tests (CPU and GPU) =="
MMLAB=build/bin/mmlab bash tools/run-tests.sh build/bin/mmlab-tests > "$out/tests.log" 2>&1
tests_rc=$?
tail -3 "$out/tests.log"

sanitize_rc=0
for tool in memcheck racecheck; do
  echo "== compute-sanitizer $tool on the GPU tests =="
  MMLAB=build/bin/mmlab compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 \
    build/bin/mmlab-tests --test-suite='gpu-*' > "$out/sanitizer-$tool.log" 2>&1
  rc=$?
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases:" "$out/sanitizer-$tool.log" | tail -3
  [ $rc -eq 0 ] || sanitize_rc=$rc
done

echo "== GPU benchmarks =="
bench_rc=0
for size in 1024 4096 8192; do
  build/bin/mmlab run --lab 8 --size $size --quiet --json "$out/bench-$size.json" \
    > "$out/bench-$size.txt" 2>&1 || bench_rc=$?
done
for size in 1024 4096 8192; do cat "$out/bench-$size.txt"; done | grep -E "^(stage|lab)" | sort -u -k1,3

echo "== summary: tests rc=$tests_rc, sanitizer rc=$sanitize_rc, benchmarks rc=$bench_rc =="
[ $tests_rc -eq 0 ] && [ $sanitize_rc -eq 0 ] && [ $bench_rc -eq 0 ]
