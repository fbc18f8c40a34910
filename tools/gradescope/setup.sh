#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (base image: Ubuntu 22.04). It installs what the build and the grader need
# (only what is missing), builds the instructor's tree once - so that each
# submission rebuilds only the student's files; the references are linked
# from prebuilt/lib/ (the zip has no solutions/ source), so a library made on
# a newer system than this image fails here, not in a student's run - and
# leaves a marker that
# run_autograder checks: if set-up failed, every submission gets score 0 and
# the reason, instead of a silent Gradescope error.
set -uo pipefail
root=${AUTOGRADER_ROOT:-/autograder}
src="$root/source"
log="$src/setup.log"
cd "$src" || { echo "setup.sh: no $src" >&2; exit 1; }
rm -f .setup-ok
{
  packages=(g++ make pkg-config doctest-dev libbenchmark-dev libopenblas-dev python3 bubblewrap)
  missing=()
  for p in "${packages[@]}"; do dpkg -s "$p" > /dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq "${missing[@]}" || { echo "setup: apt-get install failed"; exit 1; }
  fi
  # The instructor's tree, built once (CPU labs: CUDA=0; the zip of a GPU
  # lab asks for nvcc in lab.env and gets the CUDA build).
  # shellcheck disable=SC1091
  . ./lab.env
  make -j"$(nproc)" $([ "$MMLAB_CUDA" = 1 ] || echo CUDA=0) all || { echo "setup: the build failed"; exit 1; }
} > "$log" 2>&1
status=$?
if [ $status -eq 0 ]; then
  date -u +%FT%TZ > .setup-ok
  echo "setup.sh: ok"
else
  tail -n 20 "$log" >&2
  echo "setup.sh: FAILED (see $log); every submission will score 0 with this reason" >&2
fi
exit $status
