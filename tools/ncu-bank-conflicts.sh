#!/usr/bin/env bash
# Lab 7: count shared-memory bank conflicts with Nsight Compute (ncu) for the
# tiled kernel and the two transposed-B kernels (float[32][32] vs [32][33]).
#   usage: tools/ncu-bank-conflicts.sh [SIZE]      (default 512; needs a GPU, ncu, make all)
# Profiles ONE launch of each reference kernel (the harness's verification
# run; the timed runs after it are not profiled). --clock-control none leaves
# the GPU's clocks as they are (ncu would otherwise lock them to base clock).
# ncu needs permission to read the GPU's counters: root, or an admin setting
# (ERR_NVGPUCTRPERM: see handouts/lab7.md).
set -uo pipefail
cd "$(dirname "$0")/.."
size=${1:-512}
mmlab=${MMLAB:-build/bin/mmlab}
command -v ncu >/dev/null || { echo "ncu (Nsight Compute) not found: install the CUDA toolkit's nsight-compute"; exit 1; }
[ -x "$mmlab" ] || { echo "$mmlab not built: run make all first"; exit 1; }

# Per kernel: shared loads and stores (instructions), wavefronts (the passes
# the shared-memory pipe needed), and bank conflicts (extra wavefronts).
metrics=smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics+=,gpu__time_duration.sum

for stage in lab7.tiled32 lab7.transposed_b lab7.transposed_b_padded; do
  echo "== $stage at $size^3 =="
  ncu --clock-control none --launch-count 1 --kernel-name regex:'tiled_kernel|transposed_b_kernel' \
      --metrics "$metrics" "$mmlab" run --stage "$stage" --size "$size" --reps 1 --quiet 2>&1 |
    grep -E "^\s+(smsp__|l1tex__|gpu__)|==ERROR==|==WARNING==|Kernel|kernel" | grep -v "^==PROF=="
done
