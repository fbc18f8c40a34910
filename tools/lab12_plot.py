#!/usr/bin/env python3
"""Lab 12's chart: parallel efficiency against the number of GPUs, from the
CSV of `mmlab abg-model --csv FILE` (the alpha-beta-gamma model, 1 to 512
GPUs), with the measured runs as points where the CSV has them.

    python3 tools/lab12_plot.py --out plots model.csv [--title T]

Writes plots/lab12-scaling.svg: one line per algorithm (1-D, SUMMA without and
with overlap) for strong scaling, SUMMA with overlap for weak scaling (dashed),
the GPUs on a log2 axis, nodes of 8 GPUs marked. Uses tools/charts/canvas.py's drawing
helpers (standard library only). Bad input: one line naming the problem, exit 2.
"""
import argparse
import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from charts import canvas  # noqa: E402  (tools/charts/canvas.py: Svg, titles, sizes and colours)

COLUMNS = ("scenario", "precision", "algorithm", "P", "nodes", "grid", "n", "predicted_s", "predicted_tflops",
           "predicted_efficiency", "measured_s", "measured_efficiency")
SERIES = [  # (scenario, algorithm, colour, dash, label)
    ("strong", "1-D", "#D55E00", None, "1-D, strong (n fixed)"),
    ("strong", "SUMMA serial", "#E69F00", None, "SUMMA without overlap, strong"),
    ("strong", "SUMMA overlap", "#0072B2", None, "SUMMA with overlap, strong"),
    ("weak", "SUMMA overlap", "#009E73", "12,8", "SUMMA with overlap, weak (n x sqrt(P))"),
]


class Usage(Exception):
    pass


def load(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise Usage(f"cannot read {path}: {e.strerror}")
    if not rows or any(c not in rows[0] for c in COLUMNS):
        raise Usage(f"{path} is not mmlab abg-model --csv output (columns: {', '.join(COLUMNS)})")
    try:
        for r in rows:
            r["P"] = int(r["P"])
            r["predicted_efficiency"] = float(r["predicted_efficiency"])
            r["measured_efficiency"] = float(r["measured_efficiency"]) if r["measured_efficiency"] else None
    except ValueError:
        raise Usage(f"{path}: a number is not a number")
    return rows


def chart(rows, title):
    svg = canvas.Svg()
    strong_n = next((r["n"] for r in rows if r["scenario"] == "strong"), "?")
    canvas.titles(svg, title, [f"alpha-beta-gamma model ({rows[0]['precision']}): strong scaling at n = {strong_n}, "
                             f"weak scaling at n = {strong_n} x sqrt(P); nodes of 8 GPUs; points: measured"])
    left, right, top, bottom = 150, canvas.WIDTH - 470, 140, canvas.HEIGHT - 110
    ps = sorted({r["P"] for r in rows})
    lo, hi = math.log2(min(ps)), math.log2(max(ps))
    x = lambda p: left + (math.log2(p) - lo) / max(hi - lo, 1) * (right - left)  # noqa: E731
    y = lambda e: bottom - min(max(e, 0.0), 1.05) / 1.05 * (bottom - top)  # noqa: E731
    for e in [i / 10 for i in range(0, 11)]:
        svg.line(left, y(e), right, y(e), stroke=canvas.GRID if e in (0.0, 0.5, 1.0) else canvas.MINOR_GRID, width=1)
        svg.text(left - 12, y(e) + 8, f"{e:.0%}", canvas.TICK_PX, anchor="end")
    for p in ps:
        svg.line(x(p), top, x(p), bottom, stroke=canvas.MINOR_GRID, width=1)
        svg.text(x(p), bottom + 30, str(p), canvas.TICK_PX, anchor="middle")
    if max(ps) > 8:  # where the network starts
        svg.line(x(8) + (x(16) - x(8)) / 2, top, x(8) + (x(16) - x(8)) / 2, bottom, stroke=canvas.SKIP, width=2, dash="6,6")
        svg.text(x(8) + (x(16) - x(8)) / 2 + 8, top + 24, "network between nodes", canvas.LABEL_PX, fill=canvas.SKIP)
    svg.text((left + right) / 2, canvas.HEIGHT - 40, "GPUs (log2)", canvas.AXIS_PX, anchor="middle")
    svg.text(50, (top + bottom) / 2, "parallel efficiency  T1 / (P TP)", canvas.AXIS_PX, anchor="middle", rotate=-90)
    legend_y = top + 10
    for scenario, algo, colour, dash, label in SERIES:
        pts = sorted((r["P"], r["predicted_efficiency"]) for r in rows if r["scenario"] == scenario and r["algorithm"] == algo)
        if not pts:
            continue
        svg.polyline([(x(p), y(e)) for p, e in pts], colour, width=4, dash=dash)
        for p, e in pts:
            svg.circle(x(p), y(e), 4, colour, stroke=colour, width=1)
        meas = [(r["P"], r["measured_efficiency"]) for r in rows
                if r["scenario"] == scenario and r["algorithm"] == algo and r["measured_efficiency"] is not None]
        for p, e in meas:
            svg.circle(x(p), y(e), 11, "#ffffff", stroke=colour, width=4)
            svg.text(x(p) + 16, y(e) - 12, f"measured {e:.0%}", canvas.LABEL_PX, halo=True)
        svg.line(right + 30, legend_y, right + 80, legend_y, stroke=colour, width=4, dash=dash)
        svg.text(right + 90, legend_y + 7, label, canvas.LABEL_PX)
        legend_y += 36
    svg.circle(right + 55, legend_y, 11, "#ffffff", stroke=canvas.INK, width=4)
    svg.text(right + 90, legend_y + 7, "measured (where a run exists)", canvas.LABEL_PX)
    return svg.finish(title)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="mmlab abg-model --csv output")
    ap.add_argument("--out", default="plots", help="folder for lab12-scaling.svg (default plots)")
    ap.add_argument("--title", default="Lab 12: when does adding a GPU stop paying?")
    a = ap.parse_args(argv)
    try:
        rows = load(a.csv)
        os.makedirs(a.out, exist_ok=True)
        path = os.path.join(a.out, "lab12-scaling.svg")
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(chart(rows, a.title))
        os.replace(path + ".tmp", path)
    except Usage as e:
        print(f"lab12_plot.py: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"lab12_plot.py: cannot write into {a.out}: {e.strerror}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
