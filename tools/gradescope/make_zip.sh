#!/usr/bin/env bash
# make gradescope LAB=N [OUT=dir] [PERF=1]: writes OUT/autograder_labN.zip,
# the autograder to upload to a Gradescope programming assignment:
#   setup.sh          Gradescope's image set-up (Ubuntu 22.04): packages, one build
#   run_autograder    grades /autograder/submission, always writes results.json
#   the repository    as committed plus the working tree (git ls-files),
#                     solutions/ included (the grader times the reference in its
#                     own process; submissions are built without it), and
#                     lab.env naming the lab
# Gradescope unpacks the zip into /autograder/source and copies run_autograder
# to /autograder/run_autograder.
# Nothing is written unless everything checks out.
set -euo pipefail
cd "$(dirname "$0")/../.."
die() { echo "gradescope: $*" >&2; exit 2; }
lab=${1:-}
out=${2:-.}
perf=${3:-0}
[ -n "$lab" ] || die "no LAB given: make gradescope LAB=<N> [OUT=<folder>]"
row=$(awk -F'|' -v n="$lab" '/^ *[0-9]/ { gsub(/[ \t]/, "", $1); gsub(/[ \t]/, "", $2); if ($1 == n) print $2 }' labs/catalog.txt)
[ -n "$row" ] || die "there is no lab '$lab': the labs are $(awk -F'|' '/^ *[0-9]/ { gsub(/[ \t]/, "", $1); printf "%s ", $1 }' labs/catalog.txt)(labs/catalog.txt)"
cuda=0
if [ "$row" = gpu ]; then
  command -v nvcc > /dev/null || [ -x /usr/local/cuda/bin/nvcc ] ||
    die "lab $lab is a GPU lab and this machine has no nvcc: its autograder needs the CUDA toolkit (and Gradescope a GPU runner); make it on a machine with CUDA"
  cuda=1
fi
mkdir -p "$out" 2>/dev/null && [ -w "$out" ] || die "cannot write into OUT=$out: make it a writable folder"
zip_path="$out/autograder_lab$lab.zip"
command -v python3 > /dev/null || die "python3 is needed to write the zip: sudo apt-get install python3"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
tree="$stage/tree"
mkdir -p "$tree"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    [ -f "$f" ] || continue
    mkdir -p "$tree/$(dirname "$f")" && cp -p "$f" "$tree/$f"
  done
else
  tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C "$tree"
fi
cp tools/gradescope/setup.sh tools/gradescope/run_autograder "$tree/"
chmod +x "$tree/setup.sh" "$tree/run_autograder"
printf 'MMLAB_LAB=%s\nMMLAB_CUDA=%s\nMMLAB_PERF=%s\n' "$lab" "$cuda" "$perf" > "$tree/lab.env"
( cd "$tree" && python3 -m zipfile -c "$stage/autograder.zip" $(ls -A) )
mv "$stage/autograder.zip" "$zip_path.tmp" && mv "$zip_path.tmp" "$zip_path"
echo "gradescope: wrote $zip_path ($(du -h "$zip_path" | cut -f1)); upload it as the assignment's autograder (handouts/grading.md, 'Gradescope')" >&2
