#!/usr/bin/env bash
# Lab 10's part 2 on the GPU machine in one call: build mmlab, the
# micro-benchmarks the model takes its inputs from (mmlab gpu-latency: DRAM,
# L2 and L1 latency, DRAM and L2 read bandwidth), the compiled naive kernel's
# loop (SASS: are the unrolled steps' loads issued before the first FMA?),
# `mmlab lh-model` at the paper's sizes and at 2^i, i = 9..12 (both models
# beside the measured times, CSV for handouts/data/lab10-lh-h100.csv), and,
# with Nsight Compute, the kernels' L1/L2 hit rates and DRAM bytes to set
# beside the reuse analysis (models/lh_reuse.h) - a check of the analysis,
# never an input of the model (Nsight Compute empties the caches before each
# kernel); and, with the caches left as they are (the "warm" step), whether
# the inputs of a product that fits the L2 are still there from the run
# before, and what the Volkov kernel's warps wait on at one block an SM.
# Logs and CSVs go to $OUT.
# LAB10_STEPS="build latency sass lh ncu warm" runs a subset; LAB10_BUDGET_S the time.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/lab10-gpu}
mkdir -p "$out"
budget=${LAB10_BUDGET_S:-260}
steps=${LAB10_STEPS:-build latency sass lh ncu warm}
source tools/lib/steps.sh
need_gpu
{
nvidia-smi --query-gpu=name,compute_cap,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
date -u

step "build"
limited 170 make -j"$(nproc)" build/bin/mmlab > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }

if want latency; then
  step "micro-benchmarks (mmlab gpu-latency)"
  limited 30 build/bin/mmlab gpu-latency
fi
if want sass; then
  step "the naive kernel's loop as compiled (loads before FMAs?)"
  obj=build/obj/solutions/lab6/naive_coalesced.cu.o
  cuobjdump -sass "$obj" 2>&1 | grep -E "LDG|FFMA|BRA|ISETP" | head -40
fi
if want lh; then
  step "mmlab lh-model: both models beside the measured times"
  limited 90 build/bin/mmlab lh-model --sizes 544,1056,2080,4128,512,1024,2048,4096 --csv "$out/lab10-lh.csv" --quiet
fi
if want ncu; then
  step "Nsight Compute: where the kernels' global loads were served (a check of the reuse analysis)"
  metrics=gpu__time_duration.sum,dram__bytes_read.sum
  metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
  metrics+=,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
  metrics+=,smsp__inst_executed.sum
  limited 110 ncu --clock-control none --kernel-name regex:'naive_coalesced_kernel|tiled_kernel|volkov_kernel' \
    --metrics "$metrics" --csv build/bin/mmlab lh-model --sizes 2048,4096 --reps 1 --quiet > "$out/ncu.csv" 2> "$out/ncu.err"
  echo "rc=$?"; tail -3 "$out/ncu.err"; wc -l < "$out/ncu.csv"
fi
if want warm; then
  step "Nsight Compute, caches left warm, n = 1024: DRAM bytes (the inputs stay in the L2?) and warp stalls"
  metrics=gpu__time_duration.sum,dram__bytes_read.sum
  metrics+=,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
  metrics+=,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
  metrics+=,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
  metrics+=,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
  metrics+=,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio
  metrics+=,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
  metrics+=,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
  limited 60 ncu --clock-control none --cache-control none \
    --kernel-name regex:'naive_coalesced_kernel|tiled_kernel|volkov_kernel' \
    --metrics "$metrics" --csv build/bin/mmlab lh-model --sizes 1024 --reps 1 --quiet > "$out/ncu-warm.csv" 2> "$out/ncu-warm.err"
  echo "rc=$?"; tail -3 "$out/ncu-warm.err"; wc -l < "$out/ncu-warm.csv"
fi
step "done"
} 2>&1 | tee "$out/lab10-gpu.log"
