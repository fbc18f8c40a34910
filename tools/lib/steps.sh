# The step helpers of the GPU-machine scripts (tools/gpu-check.sh,
# lab8-gpu.sh, lab11-gpu.sh, lab12-gpu.sh): one device call runs several steps
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
