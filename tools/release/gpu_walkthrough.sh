#!/usr/bin/env bash
# A new user's first steps on a GPU machine, in one call (the developers'
# check of issues 26, 33 and 34; not shipped in the release):
#   1. make demo on a fresh tree, timed: the first run's build on every core
#      (the CUDA labs included) and the demo (skipped with WALK_DEMO=0)
#   2. make student-release, then in the release, as a student:
#   3. make lab8 with the untouched starter: its tests must fail, saying what
#      to do (the first build of a student's tree, timed)
#   4. make lab8 with lab 8 solved (the reference's sources in the starter's
#      place, paths and namespace renamed, as a student's own would be): the
#      tests pass, the table, the target's verdict
#   5. the release's tools/lab8-gpu.sh (tests and benchmark; WALK_LAB8_GPU=0:
#      not, when the whole script runs in a call of its own)
# Each step has a time limit inside WALK_BUDGET_S (default 560 s). The summary
# goes to stdout and $OUT/walkthrough.txt, every log to $OUT/walkthrough-logs.tgz
# (or build/walkthrough without OUT).
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
out=${OUT:-build/walkthrough}
mkdir -p "$out"
budget=${WALK_BUDGET_S:-560}
source tools/lib/steps.sh   # t0, left, step, limited, need_gpu
need_gpu
logs=$(mktemp -d)
summary=()
say() { echo "$*"; summary+=("$*"); }
timed() {  # timed NAME SECONDS CMD...: CMD under a limit, its log in $logs/NAME.log, its exit and times said
  local name=$1 lim=$2; shift 2
  local TIMEFORMAT="%R s wall, %U s user, %S s sys"
  { time { limited "$lim" "$@" > "$logs/$name.log" 2>&1; echo $? > "$logs/$name.rc"; }; } 2> "$logs/$name.time"
  local rc; rc=$(cat "$logs/$name.rc")
  say "$name: exit $rc, $(tail -n 1 "$logs/$name.time")"
  return "$rc"
}

{ nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader; date -u; nproc; } | tee "$logs/machine.txt"
export NO_INSTALL=1  # the GPU machine reaches no package registry: find, never install

if [ "${WALK_DEMO:-1}" = 1 ]; then
  step "1. make demo on a fresh tree (no build/ yet: the first run)"
  rm -rf build/obj build/bin build/lib build/config.mk
  timed first-make-demo 300 make demo
  grep -E "^(lab|  lab)[0-9]+\.|^stage|TARGET|error" "$logs/first-make-demo.log" | head -40
fi

step "2. make student-release"
rel=$(mktemp -d)/release
timed student-release 200 make --no-print-directory student-release OUT="$rel" || { tail -20 "$logs/student-release.log"; }

if [ -d "$rel" ]; then
  cd "$rel"
  step "3. make lab8 in the release, the untouched starter"
  timed release-lab8-starter 240 make lab8
  tail -n 4 "$logs/release-lab8-starter.log"
  grep -E "make lab8:|TODO|handouts" "$logs/release-lab8-starter.log" | head -5

  step "4. make lab8 with lab 8 solved (the reference's sources as the student's)"
  for f in "$repo"/solutions/lab8/*.cu "$repo"/solutions/lab8/*_impl.cuh; do
    sed -e 's|solutions/lab8/|labs/lab8/|g' -e 's|namespace reference::lab8|namespace student::lab8|g' "$f" > "labs/lab8/$(basename "$f")"
  done
  timed release-lab8-solved 240 make lab8
  grep -E "passed|^lab8\.|TARGET|INCONCLUSIVE|peak|its runs|gpu " "$logs/release-lab8-solved.log" | head -40

  if [ "${WALK_LAB8_GPU:-1}" = 1 ]; then
    step "5. the release's tools/lab8-gpu.sh (tests, benchmark)"
    OUT="$logs/lab8-gpu" LAB8_GPU_STEPS="tests bench" LAB8_GPU_BUDGET_S=$(( $(left) - 10 )) \
      timed release-lab8-gpu $(( $(left) - 5 )) bash tools/lab8-gpu.sh
    tail -n 20 "$logs/release-lab8-gpu.log"
  fi
  cd "$repo"
fi

step "summary"
printf '%s\n' "${summary[@]}" | tee "$out/walkthrough.txt"
tar -C "$logs" -czf "$out/walkthrough-logs.tgz" .
