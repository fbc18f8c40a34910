#!/usr/bin/env bash
# make gradescope LAB=N [OUT=dir] [PERF=1]: writes OUT/autograder_labN.zip,
# the autograder to upload to a Gradescope programming assignment:
#   setup.sh          Gradescope's image set-up (Ubuntu 22.04): packages, one build
#   run_autograder    grades /autograder/submission, always writes results.json
#   the repository    as committed plus the working tree (git ls-files),
#                     WITHOUT solutions/ and tests/reference/ (the reference's
#                     source never leaves this machine): the references come
#                     prebuilt instead, as in a student release
#                     (tools/release/student_release.sh): prebuilt/lib/*.a,
#                     compiled here for plain x86-64, and prebuilt/include/
#                     solutions/, their headers (declarations only)
#   lab.env           the lab, CUDA, --perf, and the sandbox level
#                     (MMLAB_GRADESCOPE_SANDBOX=bwrap|unshare|net|none,
#                     default bwrap; handouts/grading.md, "Gradescope")
# Gradescope unpacks the zip into /autograder/source and copies run_autograder
# to /autograder/run_autograder.
# Nothing is written unless everything checks out.
set -euo pipefail
cd "$(dirname "$0")/../.."
die() { echo "gradescope: $*" >&2; exit 2; }
lab=${1:-}
out=${2:-.}
perf=${3:-0}
sandbox=${MMLAB_GRADESCOPE_SANDBOX:-bwrap}
case "$sandbox" in bwrap|unshare|net|none) ;;
  *) die "MMLAB_GRADESCOPE_SANDBOX=$sandbox: it is one of bwrap (the default), unshare, net, none (handouts/grading.md, 'Gradescope')" ;;
esac
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
[ -d solutions ] || die "no solutions/ here: run it in the instructors' repository"
# 1. The references compiled, apart from any build of the user's, as the
# student release does (plain x86-64, -O3): the zip carries objects, not source.
echo "gradescope: building the reference libraries (a few minutes) ..." >&2
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -j"$(nproc)" \
  BUILD="$stage/build" OPT=-O3 ARCH= CUDA_ARCHS="80 90" $([ "$cuda" = 1 ] || echo CUDA=0) \
  reference-libs given-lib >&2 || die "building the reference libraries failed (see above)"
# 2. The files, less the reference's source and the tests of its internals.
copy() { mkdir -p "$tree/$(dirname "$1")" && cp -p "$1" "$tree/$1"; }
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    [ -f "$f" ] || continue
    case "$f" in solutions/*|tests/reference/*|build/*) continue ;; esac
    copy "$f"
  done
else
  tar --exclude=./build --exclude=./.git --exclude=./solutions --exclude=./tests/reference -cf - . | tar -xf - -C "$tree"
fi
# 3. Their API, declarations only (the same check as the student release).
while IFS= read -r h; do
  case "$h" in *_impl.h|*_impl.cuh) continue ;; esac
  if grep -qE '\)\s*(const)?\s*(noexcept)?\s*(override)?\s*\{|^\s*return\b|\binline\b' "$h"; then
    die "$h holds code, not only declarations: move the body to a .cpp (or name the header *_impl.h) - no zip written"
  fi
  mkdir -p "$tree/prebuilt/include/$(dirname "$h")" && cp -p "$h" "$tree/prebuilt/include/$h"
done < <(find solutions -name '*.h' -o -name '*.cuh' | sort)
mkdir -p "$tree/prebuilt/lib" && cp "$stage/build/lib/"*.a "$tree/prebuilt/lib/"
cp tools/gradescope/setup.sh tools/gradescope/run_autograder "$tree/"
chmod +x "$tree/setup.sh" "$tree/run_autograder"
printf 'MMLAB_LAB=%s\nMMLAB_CUDA=%s\nMMLAB_PERF=%s\nMMLAB_GRADESCOPE_SANDBOX=%s\n' "$lab" "$cuda" "$perf" "$sandbox" > "$tree/lab.env"
# Nothing of the reference's source may ship (tests/gradescope checks it too).
leak=$(cd "$tree" && find . -path ./prebuilt/include -prune -o \( -path '*solutions/*' -name '*.c*' \) -print | head -n1)
[ -z "$leak" ] || die "a reference source file reached the zip ($leak): no zip written"
( cd "$tree" && python3 -m zipfile -c "$stage/autograder.zip" $(ls -A) )
mv "$stage/autograder.zip" "$zip_path.tmp" && mv "$zip_path.tmp" "$zip_path"
echo "gradescope: wrote $zip_path ($(du -h "$zip_path" | cut -f1), $(find "$tree" -type f | wc -l) files, sandbox $sandbox); upload it as the assignment's autograder (handouts/grading.md, 'Gradescope')" >&2
