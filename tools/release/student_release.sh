#!/usr/bin/env bash
# make student-release OUT=dir: the tree a course publishes to its students.
#
#   in it      starters (labs/, labs/common/), the harness, cpu/, gpu/, peers/,
#              models/, the tests, the handouts, the Makefile and make/, the autograding
#              workflow (GitHub Actions), and README.md: the students' own
#              (tools/release/README.student.md: what to run in what order,
#              the first build's time, where help is), not the repository's
#   not in it  solutions/ (the answers), the grader (tools/grade.py,
#              tools/grading/) and its tests, tests of the references' internals,
#              ARCHITECTURE.md (the developers' map, which names all of these),
#              .ci/ (the repository's CI: make test-all, the instructors' tiers),
#              docs/instructors.md (the instructors' page), HANDOFF.md (notes between sessions)
# No file of it may name a path it lacks (tests/release/release_paths.py).
#   instead    prebuilt/lib/libmmlab-reference.a (and -gpu.a where nvcc is here):
#              the reference solutions compiled, so that make labN still shows
#              the reference rows; prebuilt/include/solutions/: their headers,
#              which hold declarations only (checked here: a header with a
#              function body stops the release);
#              prebuilt/lib/libmmlab-given.a: the code a later lab is given
#              compiled because it is an earlier lab's answer (the Makefile's
#              GIVEN_COMPILED: lab 3's recursion, which lab 4 runs; declared
#              in labs/common/)
#
# The CPU libraries are built for plain x86-64 (-O3, no -march): lab 5's
# reference picks AVX2 or AVX-512 at run time, so it runs on any x86-64 with
# AVX2 at full speed. The GPU library holds machine code for sm_80 and sm_90
# and PTX for newer GPUs. Without nvcc the GPU references are left out and
# their rows say "the reference is not in this build".
#
# With LAB=N, the release is the template repository of lab N's assignment
# (each student's repository is made from it: handouts/grading.md, "GitHub
# Classroom"): .github/workflows/classroom.yml runs its test cases
# (tools/classroom/workflow.py).
#
# Usage: tools/release/student_release.sh OUT [LAB]   (OUT must not exist, or be empty)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

die() { echo "student-release: $*" >&2; exit 2; }
out=${1:-}
lab=${2:-}
[ -n "$out" ] || die "no OUT given: make student-release OUT=<new folder> [LAB=<N>]"
if [ -n "$lab" ] && ! awk -F'|' -v n="$lab" '/^ *[0-9]/ { gsub(/[ \t]/, "", $1); if ($1 == n) found = 1 } END { exit !found }' labs/catalog.txt; then
  die "there is no lab '$lab' (labs/catalog.txt lists them)"
fi
if [ -e "$out" ] && { [ ! -d "$out" ] || [ -n "$(ls -A "$out")" ]; }; then
  die "OUT=$out exists and is not an empty folder: name a new one (nothing was written)"
fi
parent=$(dirname "$out")
[ -d "$parent" ] && [ -w "$parent" ] || die "cannot write into $parent (OUT=$out): make it exist and be writable"
[ -d solutions ] || die "no solutions/ here: run it in the instructors' repository, not in a release"

# What is left out, as path prefixes (everything else that git tracks ships).
left_out=(solutions/ tools/grade.py tools/grading/ tools/release/ tests/grading/ tests/golden/ tests/reference/
          tests/release/ tests/gradescope/ tests/test_grading.cpp tests/test_golden.cpp tests/test_release.cpp
          tests/test_grading_sandbox.cpp handouts/grading.md tools/gradescope/ tools/grade-gpu-check.sh ARCHITECTURE.md .ci/
          docs/instructors.md HANDOFF.md)
# The measurement history behind the handouts (handouts/data/labN/: dated runs, reference versions students
# never see) is the maintainers'; the flat data files beside it ship (the harness reads some), and so do the plots.
for d in handouts/data/lab*/; do left_out+=("$d"); done

scratch=$(mktemp -d)
staging=$(mktemp -d "$parent/.student-release.XXXXXX")  # beside OUT: renamed into place at the end
cleanup() { rm -rf "$scratch" "$staging"; }
trap cleanup EXIT

# 1. The references, built apart from any build of the user's.
echo "student-release: building the reference libraries (a few minutes) ..." >&2
# On every core: a make of its own (none of a calling make's flags or job
# slots), one job per core.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -j"$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)" \
  BUILD="$scratch/build" OPT=-O3 ARCH= CUDA_ARCHS="80 90" reference-libs given-lib >&2 ||
  die "building the reference libraries failed (see above)"

# 2. The files.
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  mapfile -t files < <(git ls-files)
else
  mapfile -t files < <(find . -type f -not -path './build/*' -not -path './.git/*' | sed 's|^\./||')
fi
for f in "${files[@]}"; do
  skip=0
  for p in "${left_out[@]}"; do [[ "$f" == "$p"* ]] && skip=1; done
  [ $skip = 1 ] && continue
  [ -f "$f" ] || continue  # deleted in the working tree
  mkdir -p "$staging/$(dirname "$f")"
  cp -p "$f" "$staging/$f"
done

cp tools/release/README.student.md "$staging/README.md"

# 3. The references' API: solution headers, declarations only.
while IFS= read -r h; do
  case "$h" in *_impl.h|*_impl.cuh) continue ;; esac
  # A function body: ')' then '{' on the same line (after const/noexcept/override),
  # or a line that returns or opens a body on its own after a signature.
  if grep -nE '\)\s*(const)?\s*(noexcept)?\s*(override)?\s*\{|^\s*return\b|\binline\b' "$h" > "$scratch/bodies"; then
    die "$h holds code, not only declarations (line $(head -n1 "$scratch/bodies" | cut -d: -f1)): move the body to a .cpp (or name the header *_impl.h) - no release written"
  fi
  mkdir -p "$staging/prebuilt/include/$(dirname "$h")"
  cp -p "$h" "$staging/prebuilt/include/$h"
done < <(find solutions -name '*.h' -o -name '*.cuh' | sort)
mkdir -p "$staging/prebuilt/lib"
cp "$scratch/build/lib/"*.a "$staging/prebuilt/lib/"
gpu_note="the GPU references are left out (no nvcc where this release was made): the GPU labs' reference rows say so"
[ -f "$staging/prebuilt/lib/libmmlab-reference-gpu.a" ] && gpu_note="libmmlab-reference-gpu.a: the GPU labs' references, for sm_80 and sm_90, PTX for newer GPUs"
cat > "$staging/prebuilt/README.md" <<MD
# The reference solutions, prebuilt

\`make labN\` shows the reference beside your code. The references come from
here, compiled; their source is not part of this release.

- \`lib/libmmlab-reference.a\`: the CPU labs' references, built for any x86-64
  (lab 5's picks AVX2 or AVX-512 at run time).
- $gpu_note.
- \`lib/libmmlab-given.a\`: code a later lab is given compiled, because it is
  an earlier lab's answer (the header in \`labs/common/\` that declares it says
  so: lab 4 runs lab 3's Strassen recursion). It is linked also with
  NO_REFERENCE=1: it is not a reference, the later lab needs it to link.
- \`include/solutions/\`: the headers that declare them (declarations only).

Made by the instructors' \`make student-release\` on $(date -u +%Y-%m-%d) from $(git rev-parse --short HEAD 2>/dev/null || echo "a checkout without git").
MD

# 4. With LAB: the autograding workflow of that lab (from the built test cases).
if [ -n "$lab" ]; then
  make -s --no-print-directory all >&2 || die "building the tests (for the autograding workflow) failed"
  mkdir -p "$staging/.github/workflows"
  python3 tools/classroom/workflow.py "$lab" build/bin/mmlab-tests > "$staging/.github/workflows/classroom.yml" ||
    die "writing the autograding workflow of lab $lab failed"
fi

# 5. In place, all at once (no half-written OUT).
[ -d "$out" ] && rmdir "$out"
mv "$staging" "$out"
echo "student-release: wrote $out ($(find "$out" -type f | wc -l) files, $(du -sh "$out" | cut -f1)); $(ls "$out/prebuilt/lib" | tr '\n' ' ')" >&2
