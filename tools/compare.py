#!/usr/bin/env python3
"""Before/after: compares two `mmlab ... --json FILE` runs, benchmark by benchmark.

  python3 tools/compare.py BEFORE.json AFTER.json [--out DIR] [--format svg|png|pdf]
  make compare BEFORE=a.json AFTER=b.json [PLOT=dir]

For every benchmark in both files (matched by name, e.g.
"lab5.blis/student/1024x1024x1024/threads:1"), the median time before and
after, the change, and whether the change is more than noise: a two-sided
Mann-Whitney U test on the repetitions (exact for small counts, which is what
a lab run has; the normal approximation above 20 repetitions). "p" is the
chance of a difference at least this large if nothing had changed; below
0.05 the change is called significant. With fewer than 3 repetitions on a
side no test is possible, and the line says so: run with --reps 5 or more.

The files are Google Benchmark's own JSON, so its compare.py
(libbenchmark-tools; it needs python3-scipy) diffs them as well:
  python3 /usr/share/benchmark/compare.py benchmarks BEFORE.json AFTER.json
--out DIR also draws DIR/compare.svg: before and after side by side
(--format png or pdf: through rsvg-convert, package librsvg2-bin).
Exit status: 0 compared, 2 bad input (one line says what).
"""
import argparse
import json
import math
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from charts import canvas, inputs, output  # noqa: E402  (tools/charts: drawing and writing)


class Usage(Exception):
    pass


def load(path):
    try:
        data = json.loads(Path(path).read_text())
    except OSError as e:
        raise Usage(f"cannot read {path} ({e.strerror})")
    except ValueError:
        raise Usage(f"{path} is not JSON: give the file that mmlab ... --json FILE wrote")
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise Usage(f"{path} has no \"benchmarks\" list: write it with mmlab run/lab/demo --json FILE "
                    f"(files from before 2026-11-24 used another format)")
    runs = {}
    for b in data["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration":
            continue
        name = b.get("run_name") or b.get("name")
        runs.setdefault(name, []).append(float(b["real_time"]) * unit_seconds(b.get("time_unit", "s")))
    return data, runs


def unit_seconds(unit):
    return {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}.get(unit, 1.0)


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def u_statistic(a, b):
    """Mann-Whitney U of sample a against b (ties count one half)."""
    u = 0.0
    for x in a:
        for y in b:
            u += 1.0 if x > y else 0.5 if x == y else 0.0
    return u


def u_test_p(a, b):
    """Two-sided p-value of the Mann-Whitney U test; None when a side has fewer than 3 values."""
    n1, n2 = len(a), len(b)
    if n1 < 3 or n2 < 3:
        return None
    u = u_statistic(a, b)
    mean = n1 * n2 / 2.0
    if n1 + n2 <= 20:
        # Exact: how many of the C(n1+n2, n1) orderings give each U (no ties:
        # timings in floating point practically never tie).
        counts = [[[0] * (n1 * n2 + 1) for _ in range(n2 + 1)] for _ in range(n1 + 1)]
        for i in range(n1 + 1):
            for j in range(n2 + 1):
                if i == 0 or j == 0:
                    counts[i][j][0] = 1
                    continue
                for k in range(i * j + 1):
                    # the largest value belongs to a (adds j to U) or to b (adds 0)
                    counts[i][j][k] = (counts[i - 1][j][k - j] if k >= j else 0) + counts[i][j - 1][k]
        dist = counts[n1][n2]
        total = sum(dist)
        extreme = abs(u - mean)
        tail = sum(c for k, c in enumerate(dist) if abs(k - mean) >= extreme - 1e-9)
        return min(1.0, tail / total)
    sd = math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12.0)
    z = (abs(u - mean) - 0.5) / sd
    return min(1.0, math.erfc(z / math.sqrt(2)))


def fmt_time(s):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s:.3g} s"


def compare(before, after):
    rows = []
    for name in before:
        if name not in after:
            continue
        a, b = before[name], after[name]
        ma, mb = median(a), median(b)
        p = u_test_p(a, b)
        change = (mb - ma) / ma if ma > 0 else float("nan")
        if p is None:
            verdict = "no test: fewer than 3 repetitions (--reps 5)"
        elif p < 0.05:
            verdict = ("faster" if mb < ma else "slower") + f" (significant, p = {p:.3f})"
        else:
            verdict = f"no significant change (p = {p:.2f})"
        rows.append({"name": name, "before": ma, "after": mb, "change": change, "p": p, "verdict": verdict,
                     "n": (len(a), len(b))})
    return rows


def report(rows, only_before, only_after):
    width = max([len(r["name"]) for r in rows] + [9])
    print(f"{'benchmark':<{width}}  {'before':>10}  {'after':>10}  {'change':>8}  {'speedup':>7}  verdict")
    for r in rows:
        speedup = r["before"] / r["after"] if r["after"] > 0 else float("nan")
        print(f"{r['name']:<{width}}  {fmt_time(r['before']):>10}  {fmt_time(r['after']):>10}  "
              f"{100 * r['change']:>+7.1f}%  {speedup:>6.2f}x  {r['verdict']}")
    for name in only_before:
        print(f"{name:<{width}}  only in BEFORE")
    for name in only_after:
        print(f"{name:<{width}}  only in AFTER")
    print("\nmedian of the repetitions (wall clock per call; GPU: kernel time); change = (after - before) / before; "
          "p: two-sided Mann-Whitney U test on the repetitions.")


def chart(rows, title):
    """Horizontal bars: before (grey) and after (blue or red) per benchmark, time on a log axis."""
    svg = canvas.Svg()
    canvas.titles(svg, title, ["median time per call, before (grey) and after; shorter is faster"])
    left, right, top = 560, canvas.WIDTH - 60, 130
    bottom = canvas.HEIGHT - 70
    times = [t for r in rows for t in (r["before"], r["after"]) if t > 0]
    axis = canvas.LogAxis(min(times) / 1.5, max(times) * 1.5, left, right)
    band = (bottom - top) / max(len(rows), 1)
    bar = min(28, band * 0.36)
    for v, labelled in axis.ticks():
        svg.line(axis(v), top, axis(v), bottom, stroke="#dddddd", width=1)
        if labelled:
            svg.text(axis(v), bottom + 26, fmt_time(v), 16, anchor="middle")
    for i, r in enumerate(rows):
        y = top + i * band + band / 2
        name = r["name"] if len(r["name"]) <= 44 else r["name"][:43] + "…"
        svg.text(left - 12, y + 6, name, 16, anchor="end")
        svg.rect(left, y - bar - 1, axis(r["before"]) - left, bar, fill="#b8b8b8")
        colour = "#2b6cb0" if r["after"] <= r["before"] else "#c53030"
        svg.rect(left, y + 1, axis(r["after"]) - left, bar, fill=colour)
        svg.text(axis(max(r["before"], r["after"])) + 8, y + 6, f"{100 * r['change']:+.1f}%", 16,
                 weight="bold" if r["p"] is not None and r["p"] < 0.05 else "normal")
    return svg.finish(title)


def main(argv):
    p = argparse.ArgumentParser(description="compare two mmlab --json runs")
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--out", help="folder for compare.svg (or .png/.pdf with --format)")
    p.add_argument("--format", default="svg", choices=["svg", "png", "pdf"])
    a = p.parse_args(argv)
    try:
        _, before = load(a.before)
        _, after = load(a.after)
        rows = compare(before, after)
        if not rows:
            raise Usage("the two files have no benchmark in common (compare runs of the same stages and sizes)")
        report(rows, [n for n in before if n not in after], [n for n in after if n not in before])
        if a.out:
            drawn = {"compare.svg": chart(rows, f"before: {os.path.basename(a.before)}, after: {os.path.basename(a.after)}")}
            for path in output.write_all(a.out, output.converted(drawn, a.format)):
                print(f"wrote {path}")
    except (Usage, inputs.Usage) as e:
        print(f"compare.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
