#!/usr/bin/env bash
# Build and test matmul-lab against the Google Benchmark and doctest versions
# that other distributions ship, on this machine, without installing anything:
# the Ubuntu packages are downloaded once into a cache, unpacked there (dpkg -x),
# and put in front of the system's own through CPATH / LIBRARY_PATH.
#
#   bash tools/check-package-versions.sh [jammy] [noble]    (default: both)
#
#   jammy  Ubuntu 22.04: Google Benchmark 1.6.1, doctest 2.4.8 (the oldest we
#          support). Full check: build, the CPU test suites, a --json run read
#          back by make compare.
#   noble  Ubuntu 24.04: Google Benchmark 1.8.3, doctest 2.4.11. Its library
#          needs glibc 2.38, newer than Debian 12's, so here only every source
#          file is compiled against its headers (API changes show up there);
#          the GPU machines run Ubuntu 24.04 and build everything for real.
# The machine's own packages (Debian 12: 1.7.1 and 2.4.9) are what `make test`
# uses. Why not in `make test`: it needs the Ubuntu archive (network), which a
# CI machine or a course's machine need not reach. Run it when you touch the
# build, the test reporters or the benchmark output.
#
# Environment: MMLAB_PKG_CACHE (default ~/.cache/mmlab-packages), JOBS (make -j).
set -euo pipefail
cd "$(dirname "$0")/.."

cache=${MMLAB_PKG_CACHE:-$HOME/.cache/mmlab-packages}
jobs=${JOBS:-$(nproc)}
archive=http://archive.ubuntu.com/ubuntu
releases=("$@")
[ ${#releases[@]} -eq 0 ] && releases=(jammy noble)

die() { echo "check-package-versions: $*" >&2; exit 1; }
command -v dpkg >/dev/null || die "needs dpkg (to unpack the .deb files); run it on Debian or Ubuntu"
command -v curl >/dev/null || die "needs curl (sudo apt-get install curl)"

# fetch RELEASE: download and unpack doctest-dev and libbenchmark-dev (+ its
# library) of that release into $cache/RELEASE/root; prints the root.
fetch() {
  local rel=$1 dir=$cache/$1
  if [ -f "$dir/root/.complete" ]; then echo "$dir/root"; return; fi
  mkdir -p "$dir/debs" "$dir/root"
  curl -fsS "$archive/dists/$rel/universe/binary-amd64/Packages.xz" -o "$dir/Packages.xz" \
    || die "cannot reach $archive for $rel (no network?): nothing was checked"
  local files
  files=$(xz -dc "$dir/Packages.xz" | awk '
    /^Package: / { pkg = $2 }
    /^Filename: / && (pkg == "doctest-dev" || pkg == "libbenchmark-dev" || pkg ~ /^libbenchmark1/) { print $2 }')
  [ "$(echo "$files" | wc -l)" -ge 3 ] || die "$rel: doctest-dev / libbenchmark-dev not found in its package index"
  local f
  for f in $files; do
    curl -fsS "$archive/$f" -o "$dir/debs/$(basename "$f")" || die "download failed: $archive/$f"
    dpkg -x "$dir/debs/$(basename "$f")" "$dir/root"
  done
  touch "$dir/root/.complete"
  echo "$dir/root"
}

# The versions a compiler actually sees through CPATH (so a check can never
# quietly test the system's headers instead).
seen_versions() {
  printf '#include <doctest/doctest.h>\nDOCTEST_VERSION_MAJOR.DOCTEST_VERSION_MINOR.DOCTEST_VERSION_PATCH\n' |
    g++ -E -x c++ - 2>/dev/null | tail -n1 | tr -d ' '
}

status=0
for rel in "${releases[@]}"; do
  case $rel in jammy|noble) ;; *) die "unknown release '$rel': use jammy (Ubuntu 22.04) or noble (Ubuntu 24.04)";; esac
  root=$(fetch "$rel")
  export CPATH=$root/usr/include LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu
  export LD_LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  doctest_seen=$(seen_versions)
  bench_seen=$(ls "$root"/usr/lib/x86_64-linux-gnu/libbenchmark.so.1.* | sed 's/.*\.so\.//')
  echo "== $rel: doctest $doctest_seen, Google Benchmark $bench_seen (from $root)"
  build=build/pkg-$rel
  if [ "$rel" = noble ]; then
    # Compile only: every object of the harness, the tests and the labs.
    if NO_INSTALL=1 make -s -j"$jobs" BUILD="$build" CUDA=0 objects >"$build.log" 2>&1; then
      echo "   compile: ok ($(find "$build" -name '*.o' | wc -l) objects)"
    else
      echo "   compile: FAILED (log: $build.log)"; tail -n 20 "$build.log"; status=1
    fi
    continue
  fi
  # -L on the compiler itself: it must come before the system's library
  # folder, which gcc searches before LIBRARY_PATH.
  libdir=$root/usr/lib/x86_64-linux-gnu
  if ! NO_INSTALL=1 make -s -j"$jobs" BUILD="$build" CUDA=0 CXX="g++ -L$libdir -Wl,-rpath,$libdir" all >"$build.log" 2>&1; then
    echo "   build: FAILED (log: $build.log)"; tail -n 20 "$build.log"; status=1; continue
  fi
  linked=$(ldd "$build/bin/mmlab" | awk '/libbenchmark/ { print $3 }')
  [[ "$linked" == "$root"* ]] || { echo "   build: links $linked, not $rel's library"; status=1; continue; }
  echo "   build: ok (mmlab runs with $linked)"
  # The CPU suites with doctest's console reporter and with our own 'check'
  # reporter (make check), whose reporter interface changed across 2.4.x.
  if "$build/bin/mmlab-tests" --test-suite=lab1,lab2,lab3,lab10 --no-version=true >"$build.tests.log" 2>&1 \
     && "$build/bin/mmlab-tests" --test-suite=lab1 --reporters=check --no-version=true >>"$build.tests.log" 2>&1; then
    echo "   tests: $(grep -E 'test cases:' "$build.tests.log" | head -n1 | tr -s ' ')"
  else
    echo "   tests: FAILED (log: $build.tests.log)"; tail -n 20 "$build.tests.log"; status=1
  fi
  # Google Benchmark's JSON from our --json, read back by make compare.
  tmp=$(mktemp -d)
  if "$build/bin/mmlab" run --stage lab1.ikj,lab2.transposed --size 128 --no-baseline --quiet --json "$tmp/a.json" >/dev/null \
     && "$build/bin/mmlab" run --stage lab1.ikj,lab2.transposed --size 128 --no-baseline --quiet --json "$tmp/b.json" >/dev/null \
     && make -s BUILD="$build" compare BEFORE="$tmp/a.json" AFTER="$tmp/b.json" >"$build.compare.log" 2>&1; then
    echo "   --json + make compare: ok"
  else
    echo "   --json + make compare: FAILED (log: $build.compare.log)"; status=1
  fi
  rm -rf "$tmp"
done
exit $status
