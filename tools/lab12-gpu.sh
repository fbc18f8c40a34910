#!/usr/bin/env bash
# Lab 12 on a GPU machine, in one call: build; lab 12's GPU tests (gpu-lab12,
# gpu-lab12-peers) with one rank per GPU; the benchmarks: SUMMA with and
# without overlap, fp32 and bf16 (cuBLAS tiles) and lab 8's kernel, beside
# cuBLAS on one GPU and cublasXt, at 8192^3 (and 16384^3); NCCL and MPI
# broadcast / allreduce times; compute-sanitizer memcheck on the NCCL path
# (one rank: --always-broadcast sends every panel through NCCL), after the
# timings so that a short budget keeps them; the alpha-beta-gamma model from
# what was just measured (it needs no GPU: mmlab abg-model --measured
# results.txt gives the same table on any machine).
# Every step has a time limit inside LAB12_GPU_BUDGET_S (default 480 s).
# Logs go to $OUT (the device tool brings them back) or build/lab12-gpu;
# results.txt holds every RESULT line (handouts/data/lab12-h100.txt is one).
# LAB12_GPU_STEPS="build tests bench scale comm sanitizer model" picks steps (they run in that order;
# scale, 16384^3 timing only, only when named);
# LAB12_RANKS (default: every GPU) sets the ranks of the GPU tests and benchmarks;
# 16384^3 runs with several GPUs, or with LAB12_BIG=1 (it needs minutes: see bench).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/lab12-gpu}
mkdir -p "$out"
budget=${LAB12_GPU_BUDGET_S:-480}
steps=${LAB12_GPU_STEPS:-build tests bench comm sanitizer model}
source tools/lib/steps.sh   # t0, left, want, step, limited
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}   # NVLink multicast stays off on shared machines
export MMLAB=build/bin/mmlab
export NO_INSTALL=1   # configure: nothing can be fetched on the GPU machines; say what is missing instead
run_as_root=(); [ "$(id -u)" = 0 ] && run_as_root=(--allow-run-as-root)
results="$out/results.txt"
: > "$results"
{
nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.max.sm --format=csv,noheader
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
ranks=${LAB12_RANKS:-$gpus}
date -u
echo "mpirun: $(command -v mpirun || echo none) $(mpirun --version 2>/dev/null | head -n1); nproc $(nproc); ranks $ranks"

if want build; then
  step "build"
  limited 240 make -j"$(nproc)" all > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; echo "BUILD FAILED"; }
  grep -E "^configure" "$out/build.log"
  ls -la build/bin/ | grep mmlab
fi

if want tests; then
  step "lab 12 GPU tests ($ranks rank(s); the CPU ones run in CI)"
  # (line-buffered, with each case's duration: a case cut by the limit still shows)
  MML_LAB12_RANKS=$ranks limited "${LAB12_TESTS_S:-150}" stdbuf -oL bash tools/run-tests.sh build/bin/mmlab-tests \
    --test-suite=gpu-lab12,gpu-lab12-peers --duration=true > "$out/tests.log" 2>&1
  echo "rc=$?"; grep -E "^\[tests\]|test cases:" "$out/tests.log"; tail -n1 "$out/tests.log"
  grep -B3 -A8 "ERROR" "$out/tests.log" | head -40
fi

if want bench; then
  # Each launch checks its products against float64 on the host (the
  # randomized check: about 10 s at 8192^3 on 16 cores, 8x that at 16384^3)
  # and starts CUDA and NCCL (a few seconds): few, full launches. Every
  # launch's RESULT lines are saved as it ends (results.txt).
  step "benchmarks on $ranks GPU(s): SUMMA (overlap on/off, fp32/bf16) beside cuBLAS and cublasXt at 8192^3"
  limited 170 build/bin/mmlab nccl-gemm --np "$ranks" --size 8192 --precision fp32,bf16 --overlap on,off --reps 5 \
    --save "$results" > "$out/bench.txt" 2>&1
  echo "8192: rc $?"
  limited 50 build/bin/mmlab nccl-gemm --np "$ranks" --size 8192 --precision fp32 --overlap on --always-broadcast \
    --no-peers --reps 5 --save "$results" >> "$out/bench.txt" 2>&1
  echo "8192 always-broadcast: rc $?"
  limited 40 build/bin/mmlab nccl-gemm --np "$ranks" --size 8192 --tile lab8 --overlap on --no-peers --reps 3 \
    --save "$results" >> "$out/bench.txt" 2>&1
  echo "8192 lab 8 tiles: rc $?"
  if [ "${LAB12_BIG:-0}" = 1 ] || [ "$ranks" -gt 1 ]; then
    limited 200 build/bin/mmlab nccl-gemm --np "$ranks" --size 16384 --precision fp32,bf16 --overlap on,off --reps 3 \
      --save "$results" >> "$out/bench.txt" 2>&1
    echo "16384: rc $?"
  fi
  grep -E "^(summa|rows|cublas)|NOT RUN|^GPU:" "$out/bench.txt"
fi

if want scale; then
  # 16384^3 on every GPU against one GPU, timing only (--no-check: the
  # float64 check costs minutes at this size; the same code is checked at
  # 8192^3 by the bench step and at odd shapes by the tests).
  step "16384^3, timing only: SUMMA on $ranks GPU(s) (fp32 overlap on/off, bf16) beside cuBLAS on one GPU and cublasXt"
  nccl() { local np=$1; shift; limited 60 mpirun -np "$np" "${run_as_root[@]}" --oversubscribe -x NCCL_NVLS_ENABLE \
             build/bin/mmlab-nccl gemm --size 16384 --no-check "$@" 2>&1 | tee -a "$out/bench.txt" | grep '^RESULT' >> "$results"; }
  nccl 1 --algo cublas --precision fp32 --reps 3
  nccl "$ranks" --algo summa --precision fp32 --overlap on --reps 3
  nccl "$ranks" --algo summa --precision fp32 --overlap off --reps 3
  nccl 1 --algo cublas --precision bf16 --reps 3
  nccl "$ranks" --algo summa --precision bf16 --overlap on --reps 3
  nccl 1 --algo cublasxt --reps 1 --warmup 0
  grep '^RESULT' "$results" | grep 'M=16384' | sed -E 's/.*(P=[0-9]+) algo=([a-z]+).* overlap=([a-z]+).* precision=([a-z0-9]+).* seconds=([0-9.e-]+).*/\1 \2 \3 \4 \5 s/'
fi

if want comm; then
  step "broadcast / allreduce: NCCL on $ranks GPU(s), MPI on 2 processes"
  limited 40 build/bin/mmlab comm-bench --engine nccl --np "$ranks" --bytes 8,65536,1048576,16777216,268435456,1073741824 \
    --save "$results" > "$out/comm.txt" 2>&1
  limited 40 build/bin/mmlab comm-bench --engine mpi --np 2 --bytes 8,65536,1048576,16777216,67108864 \
    --save "$results" >> "$out/comm.txt" 2>&1
  grep -vE "^(machine|peak|compiler|gpu)" "$out/comm.txt" | head -40
  cat "$out/comm.txt" >> "$out/bench.txt" && rm -f "$out/comm.txt"  # (at most 8 files come back)
fi

if want sanitizer; then
  step "compute-sanitizer memcheck, the NCCL path on $ranks rank(s) (fp32 with overlap, bf16 without, lab 8's tiles)"
  for args in "--precision fp32 --overlap on" "--precision bf16 --overlap off" "--tile lab8"; do
    # shellcheck disable=SC2086
    limited 90 mpirun -np "$ranks" "${run_as_root[@]}" -x NCCL_NVLS_ENABLE compute-sanitizer --tool memcheck --error-exitcode 99 \
      --print-limit 10 build/bin/mmlab-nccl gemm --always-broadcast --size 1,37x29x1,127x129x131,300x200x100 \
      --panel 7 --reps 1 --warmup 0 $args >> "$out/sanitizer.log" 2>&1
    rc=$?
    echo "[$args] rc $rc | $(grep -E 'ERROR SUMMARY: [0-9]+ error' "$out/sanitizer.log" | tail -n1)"
  done
  # memcheck reports memory errors and, by default, CUDA API calls that
  # failed. Seen on the H100 (2026-11-24): 36 API errors per run, all
  # cudaErrorNoKernelImageForDevice from cudaFuncGetAttributes inside
  # libnccl.so.2 (ncclCommInitRank / ncclCommSplit probing its kernels), and
  # no memory error. Both counted apart:
  echo "memory errors (Invalid ... / out of bounds / uninitialized): $(grep -cE 'Invalid (__global__|__shared__|__local__)|out of bounds|[Uu]ninitialized' "$out/sanitizer.log")"
  echo "CUDA API errors: $(grep -c 'Program hit' "$out/sanitizer.log"), raised in: $(grep -A6 'Program hit' "$out/sanitizer.log" | grep -o 'in lib[A-Za-z0-9_.]*' | sort | uniq -c | tr '\n' ' ')"
  echo "checks: $(grep -o 'check=[A-Za-z]*' "$out/sanitizer.log" | sort | uniq -c | tr '\n' ' ')"
fi

if want model; then
  step "the alpha-beta-gamma model, 1 to 512 GPUs, from what was measured above"
  limited 30 build/bin/mmlab abg-model --measured "$results" --csv "$out/model.csv" > "$out/model.txt" 2>&1
  limited 30 build/bin/mmlab abg-model --measured "$results" --precision bf16 >> "$out/model.txt" 2>&1
  cat "$out/model.txt"
fi
step "done"
} 2>&1 | tee "$out/run.log"
