# The step helpers of the GPU-machine scripts (tools/gpu-check.sh,
# lab8-gpu.sh, lab10-gpu.sh, lab11-gpu.sh, lab12-gpu.sh; lab9-gpu.sh uses
# need_gpu alone): one run on a GPU machine does several steps
# inside one time budget, and a step that would run past it is cut or skipped,
# so that the call always comes back with what was measured.
# Source it after setting:
#   budget  seconds the whole script may take
#   steps   the steps asked for, space-separated (want NAME tests it)
# It sets t0 (the start) and defines left, want, step and limited.
t0=$(date +%s)
left() { echo $(( budget - ($(date +%s) - t0) )); }           # seconds left
want() { [[ " $steps " == *" $1 "* ]]; }                      # was step $1 asked for?
step() { echo; echo "== $1 (t=$(( $(date +%s) - t0 ))s, $(date -u +%T) UTC) =="; }
limited() {  # limited SECONDS CMD...: CMD with at most SECONDS, never past the budget
  local lim=$1; shift
  local l; l=$(left); [ "$l" -lt "$lim" ] && lim=$l
  [ "$lim" -le 2 ] && { echo "(skipped: out of time)"; return 124; }
  timeout "$lim" "$@"
}
# need_gpu: where no NVIDIA GPU is (no nvidia-smi, or it lists none), one line
# and exit 2 before anything is built or run (a student without a GPU who ran
# tools/lab8-gpu.sh got "nvidia-smi: command not found", then minutes of build).
need_gpu() {
  nvidia-smi -L 2>/dev/null | grep -q '^GPU ' && return 0
  echo "$(basename "$0"): no NVIDIA GPU here (nvidia-smi lists none): run it on a machine with an NVIDIA GPU and its driver (here the CPU labs run: make lab1 ... make lab5)" >&2
  exit 2
}
