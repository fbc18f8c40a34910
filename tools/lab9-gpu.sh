#!/usr/bin/env bash
# Lab 9 on the GPU machine in one call: build, lab 9 tests (reference, then the
# untouched starter, which must fail), the latency and bandwidth
# micro-benchmarks, the paper's Experiment 1 (mmlab phvm), u_SM with Nsight
# Compute, Experiment 2 (mmlab phvm-sweep, with the paper's u_SM and with the
# measured one), compute-sanitizer, `mmlab lab 9 --solution`, `mmlab demo`, and
# MTXC (which does not fit). Every step has a time limit; logs and CSVs go to
# $OUT (at most 8 files). LAB9_STEPS="build tests phvm ..." runs a subset.
set -uo pipefail
cd "$(dirname "$0")/.."
source tools/lib/steps.sh   # need_gpu
need_gpu
out=${OUT:-build/lab9-gpu}
mkdir -p "$out"
budget=${LAB9_BUDGET_S:-285}
steps=${LAB9_STEPS:-build tests starter latency phvm kstep ncu sweep sanitizer lab demo mtxc}
t0=$(date +%s)
left() { echo $(( budget - ($(date +%s) - t0) )); }
want() { [[ " $steps " == *" $1 "* ]]; }
step() { echo; echo "== $1 (t=$(( $(date +%s) - t0 ))s) =="; }
run() {  # run LIMIT CMD...: at most LIMIT seconds, and never past the budget
  local lim=$1; shift
  local l; l=$(left); [ "$l" -lt "$lim" ] && lim=$l
  [ "$lim" -le 2 ] && { echo "(skipped: out of time)"; return 124; }
  timeout "$lim" "$@"
}
usm=0.16
{
nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader
date -u

step "build"
run 150 make -j"$(nproc)" all > "$out/tests.log" 2>&1 || { tail -30 "$out/tests.log"; exit 1; }
grep -c "warning" "$out/tests.log" | sed 's/^/build warnings: /'

if want tests; then
  step "lab 9 tests, reference"
  MMLAB=build/bin/mmlab run 60 bash tools/run-tests.sh build/bin/mmlab-tests --test-suite=lab9,gpu-lab9 >> "$out/tests.log" 2>&1
  echo "rc=$?"; tail -4 "$out/tests.log"
fi
if want starter; then
  step "lab 9 tests, untouched starter (must fail, saying why)"
  MML_IMPL=student run 30 build/bin/mmlab-tests --test-suite=gpu-lab9 2>&1 | grep -E "is wrong at|test cases" | cut -c1-260 | head -8
fi
if want latency; then
  step "micro-benchmarks"
  run 30 build/bin/mmlab gpu-latency
fi
if want phvm; then
  step "Experiment 1: mmlab phvm"
  run 80 build/bin/mmlab phvm --size MTX1,MTX2,MTX3,MTXA,MTXB --csv "$out/phvm.csv"
fi
if want kstep; then
  step "one-pass: 16-byte loads (kstep=4) against one k per step (kstep=1)"
  run 60 build/bin/mmlab sweep --stage lab9.one_pass --sweep kstep=1,4 --size MTX1,MTX2,MTX3,MTXA,MTXB --quiet 2>&1 | grep -E "lab9|stage"
fi
if want ncu; then
  step "u_SM with Nsight Compute (PHVM, MTX1): Compute (SM) Throughput"
  run 45 ncu --kernel-name regex:phvm_kernel --launch-skip 30 --launch-count 1 \
    --metrics sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    build/bin/mmlab phvm --size MTX1 --reps 1 > "$out/ncu.txt" 2>&1
  echo "rc=$?"; grep -E "sm__|dram__|rror" "$out/ncu.txt" | head -8
  v=$(awk '/sm__throughput.avg.pct_of_peak_sustained_elapsed/ {print $NF}' "$out/ncu.txt" | tail -1)
  [[ "$v" =~ ^[0-9.]+$ ]] && usm=$(awk -v p="$v" 'BEGIN { printf "%.4f", p / 100 }')
  echo "u_SM measured: $usm"
fi
if want sweep; then
  step "Experiment 2: mmlab phvm-sweep, u_SM = 0.16 (the paper's A100 value)"
  run 80 build/bin/mmlab phvm-sweep --csv "$out/sweep.csv" > "$out/sweep.txt" 2>&1
  echo "rc=$?"; grep -E "^(model inputs|  SM_NUM|bytes model|summary|WRONG)" "$out/sweep.txt"
  if [ "$usm" != 0.16 ]; then
    step "Experiment 2 again, u_SM = $usm (measured above)"
    run 80 build/bin/mmlab phvm-sweep --usm "$usm" >> "$out/sweep.txt" 2>&1
    echo "rc=$?"; grep -E "^(  SM_NUM|summary|WRONG)" "$out/sweep.txt" | tail -7
  fi
fi
if want sanitizer; then
  step "compute-sanitizer (small shapes; the default-configuration cases are left out: 10^5 threads per launch)"
  for tool in memcheck racecheck; do
    MMLAB=build/bin/mmlab run 35 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 \
      build/bin/mmlab-tests --test-suite=gpu-lab9 --test-case-exclude='*default configuration*' > "$out/sanitizer-$tool.tmp" 2>&1
    echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases:" "$out/sanitizer-$tool.tmp" | tail -3
  done
  cat "$out"/sanitizer-*.tmp > "$out/sanitizer.log"; rm -f "$out"/sanitizer-*.tmp
fi
if want lab; then
  step "mmlab lab 9 --solution (what make lab9 SOLUTION=1 times)"
  s=$(date +%s)
  run 75 build/bin/mmlab lab 9 --solution --quiet > "$out/lab9.txt" 2>&1
  echo "rc=$? in $(( $(date +%s) - s )) s"; grep -E "^(lab9|stage|target|result)" "$out/lab9.txt"
fi
if want demo; then
  step "mmlab demo (lab 9 at MTX1)"
  run 60 build/bin/mmlab demo --quiet 2>&1 | grep -E "^(stage|lab)"
fi
if want mtxc; then
  step "MTXC (does not fit: runs at the largest K that does)"
  run 120 build/bin/mmlab phvm --size MTXC --reps 3
fi
echo "done at t=$(( $(date +%s) - t0 ))s"
} 2>&1 | tee "$out/main.log"
