#!/usr/bin/env bash
# Lab 12 on a GPU machine, in one call: build; lab 12's GPU tests (gpu-lab12,
# gpu-lab12-peers) with one rank per GPU; the benchmarks: SUMMA fp32 and bf16
# with the panels moved by NCCL and by the copy engines (--transport
# nccl,copy), overlap on, beside cuBLAS on one GPU and cublasXt, at 8192^3
# (checked) and 16384^3 (timing only, with several GPUs), lab 11's tile and
# overlap off at 8192^3; NCCL and MPI broadcast / allreduce times;
# compute-sanitizer memcheck on both transports (one rank:
# --always-broadcast moves every panel), after the timings so that a short
# budget keeps them; the alpha-beta-gamma model beside every SUMMA run (each
# run measures its own inputs first: model_inputs.h; it needs no GPU: mmlab
# abg-model --measured results.txt gives the same tables on any machine).
# Every step has a time limit inside LAB12_GPU_BUDGET_S (default 570 s).
# Logs go to $OUT (where set, a folder the caller collects) or build/lab12-gpu;
# results.txt holds every RESULT line (handouts/data/lab12-h100.txt is one).
# LAB12_GPU_STEPS="build tests bench panel scale comm cpu sanitizer model" picks steps (they run in that
# order; panel (one GPU: where the panels' time goes) and cpu (the CPU targets on this machine's
# quiet cores) only when named; scale (16384^3, timing only) only with several GPUs or LAB12_BIG=1);
# LAB12_RANKS (default: every GPU) sets the ranks of the GPU tests and the sanitizer;
# LAB12_NPS (default: the same) the GPU counts the 16384^3 benchmarks run on, e.g. "2,4" on a 4-GPU machine
# (the checked 8192^3 ones run on the last, the most).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/lab12-gpu}
mkdir -p "$out"
budget=${LAB12_GPU_BUDGET_S:-570}
steps=${LAB12_GPU_STEPS:-build tests bench scale comm sanitizer model}
source tools/lib/steps.sh   # t0, left, want, step, limited
need_gpu
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
nps=${LAB12_NPS:-$ranks}
most=${nps##*,}
date -u
echo "mpirun: $(command -v mpirun || echo none) $(mpirun --version 2>/dev/null | head -n1); nproc $(nproc); ranks $ranks"

if want build; then
  step "build"
  limited 240 make -j"$(nproc)" build/bin/mmlab build/bin/mmlab-nccl build/bin/mmlab-mpi build/bin/mmlab-tests \
    > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; echo "BUILD FAILED"; }
  grep -E "^configure" "$out/build.log"
  ls -la build/bin/ | grep mmlab
fi

if want tests; then
  step "lab 12 GPU tests ($ranks rank(s); the CPU ones run in CI)"
  # (line-buffered, with each case's duration: a case cut by the limit still shows)
  # (both suites on 4 H200s: gpu-lab12 45 s, gpu-lab12-peers over 55 s; 100 s cut the last cases)
  MML_LAB12_RANKS=$ranks limited "${LAB12_TESTS_S:-140}" stdbuf -oL bash tools/run-tests.sh build/bin/mmlab-tests \
    --test-suite=gpu-lab12,gpu-lab12-peers --duration=true > "$out/tests.log" 2>&1
  echo "rc=$?"; grep -E "^\[tests\]|test cases:" "$out/tests.log"; tail -n1 "$out/tests.log"
  grep -B3 -A8 "ERROR" "$out/tests.log" | head -40
fi

if want bench; then
  # Each launch checks its products against float64 on the host (the
  # randomized check: about 10 s at 8192^3 on 16 cores) and starts CUDA and
  # NCCL (a few seconds): few, full launches; mmlab nccl-gemm runs each
  # configuration on every --np. Every launch's RESULT lines are saved as it
  # ends (results.txt).
  # Checked at 8192^3 on the most GPUs only (on 2 and 4 in one launch it
  # did not end in 170 s on 4 H200s); the other GPU counts run at 16384^3
  # in the scale step.
  step "benchmarks on $most GPU(s), 8192^3 checked: SUMMA fp32/bf16 moved by NCCL and by the copy engines, beside cuBLAS and cublasXt"
  limited 170 build/bin/mmlab nccl-gemm --np "$most" --size 8192 --precision fp32,bf16 --overlap on --transport nccl,copy \
    --reps 5 --save "$results" > "$out/bench.txt" 2>&1
  echo "8192: rc $?"
  limited 30 build/bin/mmlab nccl-gemm --np "$most" --size 8192 --precision fp32 --overlap off --transport copy \
    --no-peers --reps 5 --save "$results" >> "$out/bench.txt" 2>&1
  echo "8192 overlap off (copy): rc $?"
  limited 30 build/bin/mmlab nccl-gemm --np "$most" --size 8192 --precision bf16 --tile lab11 --overlap on --transport copy \
    --no-peers --reps 5 --save "$results" >> "$out/bench.txt" 2>&1
  echo "8192 lab 11 tiles (bf16, sm_90 only, copy): rc $?"
  grep -E "^(summa|rows|cublas)|NOT RUN|^GPU:" "$out/bench.txt"
fi

if want panel; then
  # One rank, 8192^3, timing only (--no-check: the same code is checked at
  # odd shapes by the tests and at 8192^3 by the bench step, or the checked
  # default run at the end here). Each launch: cuBLAS's rate is not in it;
  # the peer is timed first and last, for its spread.
  step "one GPU, 8192^3: SUMMA's panels 1/2/4/8 (overlap on/off), --always-broadcast, the default (the model's rule), lab 11's tile"
  one() { limited 40 mpirun -np 1 "${run_as_root[@]}" --oversubscribe -x NCCL_NVLS_ENABLE build/bin/mmlab-nccl gemm \
            --size 8192 --reps 7 --warmup 2 "$@" 2>&1 | tee -a "$out/panel.txt" | grep '^RESULT' >> "$results"; }
  one --no-check --algo cublas
  for w in 8192 4096 2048 1024; do for ov in on off; do one --no-check --panel "$w" --overlap "$ov"; done; done
  for w in 8192 1024; do one --no-check --panel "$w" --always-broadcast; done
  one --no-check --algo cublas --precision bf16
  one --no-check --precision bf16
  one --no-check --precision bf16 --tile lab11
  one --no-check --precision bf16 --tile lab11 --panel 1024
  one --no-check --algo cublas
  one --reps 5   # the default, checked against float64
  grep '^RESULT' "$out/panel.txt" | awk '{ for (i = 2; i <= NF; ++i) { split($i, kv, "="); f[kv[1]] = kv[2] }
      printf "%-7s %-5s %-7s panel=%-5s steps=%-2s overlap=%-3s always=%s  %8.3f ms  comm %7.3f ms  gemm %7.3f ms  exposed %6.3f ms  check=%s\n",
             f["algo"], f["precision"], f["tile"], f["panel"], f["steps"], f["overlap"], f["always_broadcast"],
             1e3 * f["seconds"], 1e3 * f["comm_seconds"], 1e3 * f["gemm_seconds"], 1e3 * f["exposed_seconds"], f["check"];
      delete f }'
fi

if want scale && { [ "${LAB12_BIG:-0}" = 1 ] || [ "$most" -gt 1 ]; }; then
  # 16384^3 on every GPU against one GPU, timing only (--no-check: the
  # float64 check costs minutes at this size; the same code is checked at
  # 8192^3 by the bench step and at odd shapes by the tests). The model's
  # table marks these runs "timing only".
  step "16384^3, timing only: SUMMA on $nps GPU(s) (fp32, bf16; NCCL and copy) beside cuBLAS on one GPU and cublasXt"
  nccl() { local np=$1; shift; limited 60 mpirun -np "$np" "${run_as_root[@]}" --oversubscribe -x NCCL_NVLS_ENABLE \
             build/bin/mmlab-nccl gemm --size 16384 --no-check "$@" 2>&1 | tee -a "$out/bench.txt" | grep '^RESULT' >> "$results"; }
  nccl 1 --algo cublas --precision fp32 --reps 3
  nccl 1 --algo cublas --precision bf16 --reps 3
  for np in ${nps//,/ }; do
    [ "$np" -gt 1 ] || continue
    for prec in fp32 bf16; do for tr in nccl copy; do
      nccl "$np" --algo summa --precision "$prec" --overlap on --transport "$tr" --reps 3
    done; done
  done
  nccl 1 --algo cublasxt --reps 1 --warmup 0
  grep '^RESULT' "$results" | grep 'M=16384' | sed -E 's/.*(P=[0-9]+) algo=([a-z]+).* precision=([a-z0-9]+) seconds=([0-9.e-]+).*/\1 \2 \3 \4 s/'
fi

if want comm; then
  step "broadcast / allreduce: NCCL on $ranks GPU(s), MPI on 2 processes"
  limited 30 build/bin/mmlab comm-bench --engine nccl --np "$ranks" --bytes 8,65536,1048576,16777216,268435456,1073741824 \
    --save "$results" > "$out/comm.txt" 2>&1
  limited 20 build/bin/mmlab comm-bench --engine mpi --np 2 --bytes 8,65536,1048576,16777216,67108864 \
    --save "$results" >> "$out/comm.txt" 2>&1
  grep -vE "^(machine|peak|compiler|gpu)" "$out/comm.txt" | head -40
  cat "$out/comm.txt" >> "$out/bench.txt" && rm -f "$out/comm.txt"  # (at most 8 files come back)
fi

if want cpu; then
  # The CPU targets on this machine's cores, quiet (the development machine's
  # two are shared): lab 5's kernel, 1-D and SUMMA at P = 1, 2, 4, each rank
  # bound to a core of its own, and the model beside them; then the same on
  # two cores of two different physical cores (taskset; --bind-to none: the
  # 4 processes share them), the development machine's oversubscribed story.
  step "CPUs: mmlab abg-model --cpu at 2048^3, ranks bound to cores; then on 2 cores (P = 4 oversubscribed)"
  { lscpu; echo; lscpu -e; } > "$out/cpu.txt" 2>&1
  grep -E "^(Model name|Socket|Core|Thread|CPU\(s\)|NUMA node\(s\)|L[123])" "$out/cpu.txt"
  mpirun -np 4 "${run_as_root[@]}" --oversubscribe --bind-to core --map-by core --report-bindings \
    build/bin/mmlab-mpi gemm --algo summa --size 64 --reps 1 --warmup 0 2>&1 | grep -E "bound|RESULT" | cut -c1-160
  for rep in 1 2; do
    echo "== 16 cores, session $rep" >> "$out/cpu.txt"
    MML_MPIRUN_FLAGS="--bind-to core --map-by core" limited 150 build/bin/mmlab abg-model --cpu --cpu-size 2048 --reps 5 \
      > "$out/cpu-run.txt" 2>&1
    echo "16 cores, session $rep: rc $?"; sed -n '/Part 1/,/Part 2/p' "$out/cpu-run.txt"; cat "$out/cpu-run.txt" >> "$out/cpu.txt"
  done
  two=$(lscpu -p=CPU,CORE | grep -v '^#' | sort -t, -k2,2n -u | head -n2 | cut -d, -f1 | paste -sd,)
  echo "== 2 cores ($two)" >> "$out/cpu.txt"
  MML_MPIRUN_FLAGS="--bind-to none" limited 150 taskset -c "$two" build/bin/mmlab abg-model --cpu --cpu-size 2048 --reps 5 \
    > "$out/cpu-run.txt" 2>&1
  echo "2 cores ($two): rc $?"; sed -n '/Part 1/,/Part 2/p' "$out/cpu-run.txt"; cat "$out/cpu-run.txt" >> "$out/cpu.txt"
  rm -f "$out/cpu-run.txt"  # (at most 8 files come back)
fi

if want sanitizer; then
  step "compute-sanitizer memcheck on $ranks rank(s): the copy engines (fp32; bf16 with lab 11's tile, overlap off), NCCL (bf16)"
  for args in "--transport copy --precision fp32" "--transport copy --precision bf16 --tile lab11 --overlap off" \
              "--precision bf16 --overlap on"; do
    # shellcheck disable=SC2086
    limited 45 mpirun -np "$ranks" "${run_as_root[@]}" -x NCCL_NVLS_ENABLE compute-sanitizer --tool memcheck --error-exitcode 99 \
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
