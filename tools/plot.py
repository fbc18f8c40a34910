#!/usr/bin/env python3
"""Charts for projecting: turns mmlab's --json output (and lab 10's roofline
CSV) into self-contained SVG files. Python 3 standard library only, so it runs
wherever the labs run (no matplotlib to install).

usage: python3 tools/plot.py [--chart NAMES] [--out DIR] [--format F] [--shape S] [--title T] [--machine T] FILE...

  FILE          mmlab run/lab/demo --json output (.json), or the CSV of
                `mmlab roofline --csv` (lab 10); several files are combined
  --chart NAMES comma-separated: progression, sizes, roofline (default: every
                chart the files hold data for)
  --out DIR     where the SVGs go (default: the current folder; made if missing):
                DIR/progression.svg, DIR/sizes.svg, DIR/roofline.svg
  --format F    svg (default), png or pdf: png and pdf are converted from the
                SVG by rsvg-convert (Debian/Ubuntu package librsvg2-bin)
  --shape S     progression at this shape only (1000 or MxNxK); default: each
                stage at the largest shape it ran at
  --title T     replaces the first line of every chart's title
  --machine T   the machine, for the roofline's title (the CSV does not record
                it; by default the machine of the JSON files given with it)

Charts:
  progression   GFLOP/s per stage (log scale), the ladder from the triple loop
                up, the measured peak(s) as dashed lines; failed and skipped
                stages are drawn as such, never as empty bars
  sizes         GFLOP/s against the size n for every stage run at two or more
                sizes (log-log; n = cube root of M*N*K for non-square shapes)
  roofline      lab 10: each (device, threads, ceiling) roof from the CSV's
                peak and bandwidth (a GPU has one per ceiling: FP32, bf16 and
                TF32 tensor cores), and the stages as points (filled:
                compulsory traffic; open: a tile model's traffic)

Bad input: one line on stderr naming the problem and the fix, exit 2, and no
file written. Every SVG is drawn in memory first, then written to a temporary
file beside its destination and renamed into place.
"""

import csv
import datetime
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

CHARTS = ("progression", "sizes", "roofline")
ROOF_COLUMNS = ("device", "stage", "M", "N", "K", "threads", "model", "flop_per_byte", "gflops",
                "peak_gflops", "bandwidth_gbs")

# 16:9, sized for a projector: text sizes are in SVG pixels of a 1600x900 canvas.
WIDTH, HEIGHT = 1600, 900
FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
TITLE_PX, SUBTITLE_PX, AXIS_PX, TICK_PX, LABEL_PX = 34, 21, 26, 22, 20
INK, GRID, MINOR_GRID, FAIL, SKIP = "#000000", "#b0b0b0", "#e4e4e4", "#c00000", "#606060"
# Okabe-Ito, colour-blind safe, one colour per lab (lab 10 has no stages of its own).
# Okabe-Ito's yellow is too light for text on white: lab 9 gets a dark gold instead.
LAB_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#332288",
               "#8C564B", "#A07800", "#777777"]


class Usage(Exception):
    """Bad input: one line, exit 2."""


# ------------------------------------------------------------------ reading

def load(path):
    """('json', dict) or ('csv', rows): our JSON or lab 10's roofline CSV, checked."""
    if not os.path.exists(path):
        raise Usage(f"{path}: no such file; give the file that `mmlab run/lab/demo --json FILE` or "
                    f"`mmlab roofline --csv FILE` wrote")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise Usage(f"{path}: cannot read it ({getattr(e, 'strerror', None) or e}); check the path and its permissions")
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise Usage(f"{path}: not valid JSON ({e.msg}, line {e.lineno}); was the mmlab run interrupted? run it again")
        summary = data.get("summary")
        if not isinstance(summary, list) or not all(isinstance(r, dict) and "stage" in r and "gflops" in r
                                                    for r in summary):
            raise Usage(f"{path}: JSON without mmlab's \"summary\" rows; give the file of `mmlab run/lab/demo --json FILE`")
        if not summary:
            raise Usage(f"{path}: the summary has no rows (nothing was run); run mmlab with --stage or --lab")
        data["_path"] = path
        return "json", data
    rows = list(csv.reader(text.splitlines()))
    if not rows or any(c not in rows[0] for c in ROOF_COLUMNS):
        raise Usage(f"{path}: neither mmlab JSON nor lab 10's roofline CSV (its header names "
                    f"{','.join(ROOF_COLUMNS[:3])}...); give `mmlab run --json FILE` or `mmlab roofline --csv FILE` output")
    head = rows[0]
    out = []
    for n, r in enumerate(rows[1:], start=2):
        if not r:
            continue
        if len(r) != len(head):
            raise Usage(f"{path}: line {n} has {len(r)} fields, the header {len(head)}; write the CSV again "
                        f"with `mmlab roofline --csv FILE`")
        row = dict(zip(head, r))
        try:
            for k in ("M", "N", "K", "threads"):
                row[k] = int(row[k])
            for k in ("flop_per_byte", "gflops", "peak_gflops", "bandwidth_gbs"):
                row[k] = float(row[k])
        except ValueError:
            raise Usage(f"{path}: line {n} has a field that is not a number; write the CSV again with "
                        f"`mmlab roofline --csv FILE`")
        row["_path"] = path
        out.append(row)
    if not out:
        raise Usage(f"{path}: the roofline CSV has no rows; run `mmlab roofline --csv FILE` again")
    return "csv", out


def num(x):
    """A JSON number, or None for null/missing/not finite."""
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def shape_text(m, n, k):
    return f"{m}³" if m == n == k else f"{m}×{n}×{k}"


def parse_shape(text):
    try:
        dims = [int(p) for p in text.lower().split("x")]
    except ValueError:
        dims = []
    if len(dims) == 1:
        dims *= 3
    if len(dims) != 3 or min(dims) < 1:
        raise Usage(f"--shape {text}: not a shape; write 1000 (square) or MxNxK, e.g. 300x200x100")
    return tuple(dims)


def fmt(v):
    """A value for a label: three significant digits, no exponent."""
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def lab_colour(stage):
    try:
        lab = int(stage.split(".")[0].replace("lab", ""))
    except ValueError:
        return INK
    return LAB_COLOURS[(lab - 1) % len(LAB_COLOURS)]


def run_date(data):
    """The run's date: the JSON's "date" (UTC), else the file's modification time."""
    d = data.get("date")
    if isinstance(d, str) and len(d) >= 10:
        return d[:10] + (" " + d[11:16] + " UTC" if len(d) >= 16 else "")
    t = datetime.datetime.fromtimestamp(os.path.getmtime(data["_path"]), datetime.timezone.utc)
    return t.strftime("%Y-%m-%d %H:%M UTC (file date)")


def machine_text(data):
    m = data.get("machine") or {}
    parts = []
    if m.get("cpu"):
        cores = m.get("logical_cores")
        parts.append(f"{m['cpu']}" + (f", {cores} cores" if cores else "") + (f", {m['simd']}" if m.get("simd") else ""))
    g = data.get("gpu")
    if isinstance(g, dict) and g.get("name"):
        parts.append(g["name"])
    return " + ".join(parts) or "unknown machine"


def devices_of(rows, data):
    devs = {r.get("device") for r in rows}
    if devs <= {"cpu", "gpu"}:
        return devs
    return {"cpu"} if not data.get("gpu") else {"cpu", "gpu"}


def timed_text(devs):
    parts = []
    if "cpu" in devs:
        parts.append("CPU: median wall-clock time of one call" + ("" if "gpu" in devs else ", inputs in memory"))
    if "gpu" in devs:
        parts.append("GPU: median kernel time between CUDA events" + ("" if "cpu" in devs else ", inputs on the device"))
    return "; ".join(parts) + "; GFLOP/s = 2·M·N·K / time"


# ------------------------------------------------------------------ SVG

def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def text_width(s, px):
    """Rough width of s in DejaVu Sans at px (for layout: labels that fit, no overlaps)."""
    return len(str(s)) * px * 0.60


class Svg:
    def __init__(self):
        self.parts = []

    def add(self, s):
        self.parts.append(s)

    def text(self, x, y, s, px, anchor="start", weight="normal", fill=INK, rotate=None, baseline=None, halo=False):
        extra = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate is not None else ""
        if halo:  # a white outline under the glyphs keeps a label readable over grid and lines
            extra += ' stroke="#ffffff" stroke-width="5" stroke-linejoin="round" paint-order="stroke"'
        base = f' dominant-baseline="{baseline}"' if baseline else ""
        self.add(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{px}" text-anchor="{anchor}" '
                 f'font-weight="{weight}" fill="{fill}"{base}{extra}>{esc(s)}</text>')

    def line(self, x1, y1, x2, y2, stroke=INK, width=2, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" '
                 f'stroke-width="{width}"{d}/>')

    def rect(self, x, y, w, h, fill, stroke="none", width=0, extra=""):
        self.add(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" height="{max(h, 0):.1f}" fill="{fill}" '
                 f'stroke="{stroke}" stroke-width="{width}"{extra}/>')

    def polyline(self, pts, stroke, width=3, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        p = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        self.add(f'<polyline points="{p}" fill="none" stroke="{stroke}" stroke-width="{width}"{d}/>')

    def circle(self, x, y, r, fill, stroke=INK, width=2):
        self.add(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{fill}" stroke="{stroke}" stroke-width="{width}"/>')

    def finish(self, title):
        head = (f'<?xml version="1.0" encoding="UTF-8"?>\n'
                f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
                f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="{FONT}">\n<title>{esc(title)}</title>\n'
                f'<defs><pattern id="hatch" width="12" height="12" patternUnits="userSpaceOnUse" '
                f'patternTransform="rotate(45)"><rect width="12" height="12" fill="#ffe5e5"/>'
                f'<line x1="0" y1="0" x2="0" y2="12" stroke="{FAIL}" stroke-width="4"/></pattern></defs>\n'
                f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>\n')
        return head + "\n".join(self.parts) + "\n</svg>\n"


def titles(svg, title, subtitles):
    svg.text(WIDTH / 2, 46, title, TITLE_PX, anchor="middle", weight="bold")
    for i, s in enumerate(subtitles):  # smaller type for a line that would not fit
        px = min(SUBTITLE_PX, int((WIDTH - 40) / (0.6 * max(len(s), 1))))
        svg.text(WIDTH / 2, 80 + i * 28, s, px, anchor="middle")


class LogAxis:
    """A log10 axis mapping [lo, hi] (values) to [p0, p1] (pixels). The ends are the data's range
    with a margin, not whole decades: a projected chart has no room to waste."""

    def __init__(self, lo, hi, p0, p1):
        if hi / lo < 3:  # at least a factor of 3, so that some ticks fall inside
            mid = math.sqrt(lo * hi)
            lo, hi = mid / math.sqrt(3), mid * math.sqrt(3)
        self.lo, self.hi = lo, hi
        self.p0, self.p1 = p0, p1

    def __call__(self, v):
        v = min(max(v, self.lo), self.hi)
        f = (math.log10(v) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        return self.p0 + f * (self.p1 - self.p0)

    def ticks(self):
        """(value, labelled) pairs inside the axis: 1-2-...-9 per decade; the decades labelled,
        and 2 and 5 too when the axis spans less than three decades."""
        few = math.log10(self.hi / self.lo) < 3
        out = []
        for e in range(math.floor(math.log10(self.lo)), math.ceil(math.log10(self.hi)) + 1):
            for m in range(1, 10):
                v = m * 10.0 ** e
                if self.lo <= v <= self.hi:
                    out.append((v, m == 1 or (few and m in (2, 5))))
        return out


def tick_text(v):
    if v >= 1:
        return f"{v:,.0f}"
    return f"{v:g}"


def spread(items, gap):
    """items: [key, desired position]; returns {key: position} with neighbours at least gap apart,
    as close to the desired positions as a simple push-apart gets."""
    items = sorted(items, key=lambda t: t[1])
    pos = [p for _, p in items]
    for _ in range(50):
        moved = False
        for i in range(1, len(pos)):
            if pos[i] - pos[i - 1] < gap:
                push = (gap - (pos[i] - pos[i - 1])) / 2
                pos[i - 1] -= push
                pos[i] += push
                moved = True
        if not moved:
            break
    return {k: p for (k, _), p in zip(items, pos)}


# ------------------------------------------------------------------ progression

def progression(jsons, shape, title):
    rows = []  # (label, row, data, file index)
    multi = len(jsons) > 1
    for fi, data in enumerate(jsons):
        summary = data["summary"]
        if shape:
            chosen = [r for r in summary if (r.get("M"), r.get("N"), r.get("K")) == shape]
        else:  # each stage (version, threads) at the largest shape it ran at
            best = {}
            for r in summary:
                key = (r["stage"], r.get("version"), r.get("threads"))
                size = (r.get("M") or 0) * (r.get("N") or 0) * (r.get("K") or 0)
                if key not in best or size > best[key][0]:
                    best[key] = (size, r)
            chosen = [r for r in summary if best[(r["stage"], r.get("version"), r.get("threads"))][1] is r]
        for r in chosen:
            rows.append((r, data, fi))
    if not rows:
        have = sorted({shape_text(r.get("M"), r.get("N"), r.get("K")) for d in jsons for r in d["summary"]})
        raise Usage(f"--shape {shape_text(*shape)}: no stage ran at that shape; the files have {', '.join(have)}")
    shapes = {(r.get("M"), r.get("N"), r.get("K")) for r, _, _ in rows}
    versions = {r.get("version") for r, _, _ in rows}
    threads = {r.get("threads") for r, _, _ in rows}
    labels = []
    for r, _, fi in rows:
        s = r["stage"]
        if len(versions) > 1:
            s += f" ({r.get('version')})"
        if len(threads) > 1 and (r.get("threads") or 1) > 1:
            s += f", {r['threads']} thr"
        if len(shapes) > 1:
            s += f"  {shape_text(r.get('M'), r.get('N'), r.get('K'))}"
        if multi:
            s = f"[{fi + 1}] " + s
        labels.append(s)

    # Peaks: % of peak is in the summary, so peak = gflops / percent * 100, per (device, threads).
    peaks = {}
    for r, data, fi in rows:
        g, p = num(r.get("gflops")), num(r.get("percent_of_peak"))
        if r.get("passed") and not r.get("skipped") and g and p and p > 0:
            dev = r.get("device") or ("gpu" if r["stage"].split(".")[0] in ("lab6", "lab7", "lab8", "lab9") else "cpu")
            key = (fi, dev, 1 if dev == "gpu" else r.get("threads") or 1)
            peaks.setdefault(key, []).append(g / p * 100)
    peak_lines = []
    for vals in peaks.values():
        vals.sort()
    median = {key: vals[len(vals) // 2] for key, vals in peaks.items()}
    for (fi, dev, t), v in sorted(median.items()):
        what = "GPU FP32 peak (spec)" if dev == "gpu" else f"CPU peak, {t} thread{'s' if t > 1 else ''} (measured)"
        # More threads doing fewer FMAs/s than one: other programs held cores
        # during the run, and every threaded bar is low with it. Say so.
        one = median.get((fi, dev, 1))
        if dev == "cpu" and t > 1 and one and v < 0.9 * one:
            what += ", below 1 thread's: the machine was busy, threaded bars are low"
        peak_lines.append(((f"[{fi + 1}] " if multi else "") + what, v))

    good = [num(r.get("gflops")) for r, _, _ in rows if r.get("passed") and not r.get("skipped") and num(r.get("gflops"))]
    top = max(good + [v for _, v in peak_lines] + [1.0])
    low = min(good + [top / 10])

    # the stage names left of the bars, in at most 40% of the width (smaller type for long names)
    longest = max(len(s) for s in labels)
    left = min(40 + text_width("x" * longest, LABEL_PX + 2), WIDTH * 0.4)
    right = WIDTH - 60
    # below the title, len(jsons) + 1 subtitle lines and one line per peak label
    y0 = 80 + 28 * (len(jsons) + 1) + 26 * len(peak_lines) + 14
    bottom = HEIGHT - 110
    axis = LogAxis(low / 2.5, top * 1.6, left, right)
    band = (bottom - y0) / len(rows)
    bar_h = min(band * 0.72, 56)
    label_px = min(LABEL_PX + 2, max(12, int(band * 0.62)), int((left - 40) / (0.6 * longest)))

    svg = Svg()
    first = title or "GFLOP/s per stage: the progression"
    if shape:
        first += f" at {shape_text(*shape)}"
    elif len(shapes) == 1:
        first += f" at {shape_text(*next(iter(shapes)))}"
    subs = [f"{'[' + str(i + 1) + '] ' if multi else ''}{machine_text(d)}, {run_date(d)}, `mmlab {d.get('command', '?')}`"
            for i, d in enumerate(jsons)]
    subs.append(timed_text(set().union(*(devices_of([r for r, dd, _ in rows if dd is d], d) for d in jsons))) +
                "; log scale")
    titles(svg, first, subs)

    # grid and ticks
    for v, major in axis.ticks():
        x = axis(v)
        svg.line(x, y0 - 10, x, bottom, GRID if major else MINOR_GRID, 2 if major else 1)
        if major:
            svg.text(x, bottom + 32, tick_text(v), TICK_PX, anchor="middle")
    svg.line(left, bottom, right, bottom, INK, 2)
    svg.line(left, y0 - 10, left, bottom, INK, 2)
    svg.text((left + right) / 2, bottom + 70, "GFLOP/s (log scale; more is better)", AXIS_PX, anchor="middle",
             weight="bold")

    for i, ((r, _, _), label) in enumerate(zip(rows, labels)):
        yc = y0 + band * (i + 0.5)
        svg.text(left - 14, yc, label, label_px, anchor="end", baseline="central",
                 fill=lab_colour(r["stage"]), weight="bold")
        g = num(r.get("gflops"))
        if r.get("skipped"):
            reason = r.get("skip_reason") or "no reason given"
            svg.rect(left, yc - bar_h / 2, right - left, bar_h, "none", SKIP, 2, ' stroke-dasharray="8 6"')
            svg.text(left + 14, yc, f"SKIPPED: {reason}"[:110], label_px, baseline="central", fill=SKIP, weight="bold")
            continue
        if not r.get("passed") or not g:
            why = r.get("failure") or "the check failed"
            svg.rect(left, yc - bar_h / 2, right - left, bar_h, "url(#hatch)", FAIL, 2)
            svg.text(left + 14, yc, f"FAILED: {why}"[:110], label_px, baseline="central", fill=FAIL, weight="bold")
            continue
        x = axis(g)
        svg.rect(left, yc - bar_h / 2, x - left, bar_h, lab_colour(r["stage"]), INK, 1)
        sp = num(r.get("speedup_vs_baseline"))
        if r["stage"] == "lab1.ijk":
            val = fmt(g) + "  (the baseline)"
        else:
            val = fmt(g) + (f"  ({fmt(sp)}× ijk)" if sp else "")
        if x + 10 + text_width(val, label_px) < right:
            svg.text(x + 10, yc, val, label_px, baseline="central", weight="bold", halo=True)
        else:
            svg.text(x - 10, yc, val, label_px, anchor="end", baseline="central", weight="bold", halo=True)

    # peak lines, each with its label on a row of its own above the bars, ending at the line
    # (starting there where the label would run off the left edge)
    for i, (what, v) in enumerate(peak_lines):
        x = axis(v)
        svg.line(x, y0 - 14, x, bottom, INK, 3, "12 8")
        row_y = y0 - 22 - 26 * (len(peak_lines) - 1 - i)
        label = f"{what}: {fmt(v)}"
        if x - text_width(label, SUBTITLE_PX) < 10:
            svg.text(x, row_y, label, SUBTITLE_PX, weight="bold")
        else:
            svg.text(x, row_y, label, SUBTITLE_PX, anchor="end", weight="bold")
    return svg.finish(first)


# ------------------------------------------------------------------ sizes

def sizes(jsons, title):
    multi = len(jsons) > 1
    series = {}  # key -> list of (n, row)
    for fi, data in enumerate(jsons):
        for r in data["summary"]:
            key = (fi, r["stage"], r.get("version"), r.get("threads"))
            series.setdefault(key, [])
            n = ((r.get("M") or 1) * (r.get("N") or 1) * (r.get("K") or 1)) ** (1 / 3)
            series[key].append((n, r))
    series = {k: v for k, v in series.items() if len({round(n, 3) for n, _ in v}) >= 2}
    if not series:
        raise Usage("sizes: every stage ran at one size only; for this chart run several "
                    "(make demo SIZE=250,500,1000 PLOT=dir, or mmlab ... --size 250,500,1000 --json FILE)")
    versions = {k[2] for k in series}
    good = [(n, num(r.get("gflops"))) for v in series.values() for n, r in v
            if r.get("passed") and not r.get("skipped") and num(r.get("gflops"))]
    if not good:
        raise Usage("sizes: every row failed or was skipped; nothing to plot (mmlab's table says why)")
    nonsquare = any(not (r.get("M") == r.get("N") == r.get("K")) for v in series.values() for _, r in v)

    left, right, y0, bottom = 130, WIDTH - 330, 150 + 28 * len(jsons), HEIGHT - 110
    xs = LogAxis(min(n for n, _ in good) / 1.25, max(n for n, _ in good) * 1.25, left, right)
    ys = LogAxis(min(g for _, g in good) / 1.6, max(g for _, g in good) * 1.6, bottom, y0)

    svg = Svg()
    first = title or "GFLOP/s against the matrix size, every stage"
    subs = [f"{'[' + str(i + 1) + '] ' if multi else ''}{machine_text(d)}, {run_date(d)}, `mmlab {d.get('command', '?')}`"
            for i, d in enumerate(jsons)]
    subs.append(timed_text(set().union(*(devices_of(d["summary"], d) for d in jsons))) + "; log-log")
    titles(svg, first, subs)

    for v, major in ys.ticks():
        y = ys(v)
        svg.line(left, y, right, y, GRID if major else MINOR_GRID, 2 if major else 1)
        if major:
            svg.text(left - 12, y, tick_text(v), TICK_PX, anchor="end", baseline="central")
    sizes_seen = sorted({round(n) for n, _ in good})
    for n in sizes_seen:
        x = xs(n)
        svg.line(x, y0, x, bottom, MINOR_GRID, 1)
        svg.text(x, bottom + 32, f"{n}", TICK_PX, anchor="middle")
    svg.line(left, bottom, right, bottom, INK, 2)
    svg.line(left, y0, left, bottom, INK, 2)
    svg.text((left + right) / 2, bottom + 72,
             "matrix size n (log scale" + ("; n = cube root of M·N·K" if nonsquare else "; n×n times n×n") + ")",
             AXIS_PX, anchor="middle", weight="bold")
    svg.text(40, (y0 + bottom) / 2, "GFLOP/s (log scale)", AXIS_PX, anchor="middle", weight="bold", rotate=-90)

    # colours: by lab, but two stages of one lab need two looks -> dash patterns
    dashes = [None, "14 8", "4 6", "20 6 4 6"]
    used = {}
    ends = []
    skipped_notes = []
    point_labels = []
    for key, pts in series.items():
        fi, stage, version, threads = key
        colour = lab_colour(stage)
        dash = dashes[used.get(colour, 0) % len(dashes)]
        used[colour] = used.get(colour, 0) + 1
        pts = sorted(pts, key=lambda t: t[0])
        ok = [(n, num(r.get("gflops"))) for n, r in pts if r.get("passed") and not r.get("skipped") and num(r.get("gflops"))]
        if len(ok) >= 2:
            svg.polyline([(xs(n), ys(g)) for n, g in ok], colour, 4, dash)
        for n, r in pts:
            g = num(r.get("gflops"))
            if r.get("skipped"):
                skipped_notes.append(f"{stage} at {shape_text(r.get('M'), r.get('N'), r.get('K'))}: skipped "
                                     f"({r.get('skip_reason') or 'no reason given'})")
            elif not r.get("passed") or not g:
                x = xs(n)
                svg.line(x - 10, bottom - 30, x + 10, bottom - 10, FAIL, 5)
                svg.line(x - 10, bottom - 10, x + 10, bottom - 30, FAIL, 5)
                skipped_notes.append(f"{stage} at {shape_text(r.get('M'), r.get('N'), r.get('K'))}: FAILED "
                                     f"({r.get('failure') or 'check failed'}) - the red ×")
            else:
                svg.circle(xs(n), ys(g), 7, colour, "#ffffff", 2)
                point_labels.append((xs(n), ys(g), fmt(g), colour))
        if ok:
            name = ("[%d] " % (fi + 1) if multi else "") + stage + (f" ({version})" if len(versions) > 1 else "") + \
                   (f", {threads} thr" if (threads or 1) > 1 else "")
            ends.append((name, ys(ok[-1][1]), colour, dash))

    # value labels: above each point, pushed apart within a column of one size
    by_x = {}
    for i, (x, y, s, c) in enumerate(point_labels):
        by_x.setdefault(round(x), []).append(i)
    for col in by_x.values():
        pos = spread([(i, point_labels[i][1] - 16) for i in col], LABEL_PX * 0.95)
        for i in col:
            x, y, s, c = point_labels[i]
            svg.text(x + 12, pos[i], s, LABEL_PX - 2, weight="bold", fill=INK, halo=True)

    # direct labels at the right end of each line (no legend to decode)
    pos = spread([(i, y) for i, (_, y, _, _) in enumerate(ends)], LABEL_PX + 4)
    for i, (name, y, colour, dash) in enumerate(ends):
        svg.line(right + 12, pos[i], right + 52, pos[i], colour, 5, dash)
        svg.text(right + 60, pos[i], name, LABEL_PX, baseline="central", weight="bold", fill=colour)
    for i, note in enumerate(skipped_notes[:3]):
        svg.text(left, HEIGHT - 12 - 22 * (min(len(skipped_notes), 3) - 1 - i), note[:140], 16, fill=FAIL)
    return svg.finish(first)


# ------------------------------------------------------------------ roofline

def place_labels(svg, labels, left, right, top, bottom, px=LABEL_PX - 2):
    """Point labels [(x, y, text, colour)] placed greedily, top to bottom: beside
    the point (right, else left), else moved up or down by whole lines, at the
    first place where the label's box overlaps no label placed before it and
    no point; a moved label gets a thin leader line to its point."""
    h = px + 4
    points = [(x - 10, y - 10, x + 10, y + 10) for x, y, _, _ in labels]
    placed = []

    def free(box):
        if box[0] < left or box[2] > right or box[1] < top or box[3] > bottom:
            return False
        return not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3]
                       for b in placed + points)

    for x, y, text, colour in sorted(labels, key=lambda t: t[1]):
        w = text_width(text, px)
        choice = None
        for step in range(0, 12):
            for dy in ([0] if step == 0 else [-step * h, step * h]):
                for side in (1, -1):
                    x0 = x + 16 if side > 0 else x - 16 - w
                    box = (x0, y + dy - h / 2, x0 + w, y + dy + h / 2)
                    if free(box):
                        choice = (side, dy, box)
                        break
                if choice:
                    break
            if choice:
                break
        if not choice:  # nowhere free: beside the point, on top of whatever is there
            x0 = x + 16 if x + 16 + w < right else x - 16 - w
            choice = (1 if x0 > x else -1, 0, (x0, y - h / 2, x0 + w, y + h / 2))
        side, dy, box = choice
        placed.append(box)
        if dy:
            svg.line(x, y, box[0] if side > 0 else box[2], y + dy, colour, 1)
        if side > 0:
            svg.text(box[0], y + dy, text, px, baseline="central", weight="bold", fill=colour, halo=True)
        else:
            svg.text(box[2], y + dy, text, px, anchor="end", baseline="central", weight="bold", fill=colour,
                     halo=True)


def roofline(csv_files, title, machine):
    rows = [r for rows in csv_files for r in rows]
    roofs = {}
    for r in rows:  # `ceiling` (FP32, bf16/TF32 tensor cores): in CSVs written since 2026-11-24
        roofs.setdefault((r["device"], r["threads"], r["peak_gflops"], r["bandwidth_gbs"], r.get("ceiling", "")), None)
    ais = [r["flop_per_byte"] for r in rows if r["flop_per_byte"] > 0]
    gs = [r["gflops"] for r in rows if r["gflops"] > 0]
    if not ais or not gs:
        raise Usage("roofline: no row has a positive FLOP/byte and GFLOP/s; run `mmlab roofline --csv FILE` again")
    ridges = [p / b for _, _, p, b, _ in roofs if b > 0]
    left, right, bottom = 130, WIDTH - 60, HEIGHT - 110
    y0 = 178 + 30 * len(roofs)
    xs = LogAxis(min(ais + ridges) / 3, max(ais + ridges) * 5, left, right)
    ys = LogAxis(min(gs) / 2, max(gs + [p for _, _, p, _, _ in roofs]) * 2, bottom, y0)

    svg = Svg()
    first = title or "The roofline: measured GFLOP/s against arithmetic intensity"
    paths = sorted({r["_path"] for r in rows})
    dates = sorted({datetime.datetime.fromtimestamp(os.path.getmtime(p), datetime.timezone.utc).strftime("%Y-%m-%d")
                    for p in paths})
    titles(svg, first, [
        (machine or "the CSV does not name the machine: give the run's JSON too, or --machine TEXT") + "; " +
        "CPU: median wall-clock time of one call; GPU: kernel time between CUDA events",
        f"lab 10, `mmlab roofline --csv` ({', '.join(os.path.basename(p) for p in paths)}, written {', '.join(dates)}); "
        "roof = min(peak, FLOP/byte × read bandwidth)",
        "filled: FLOP/byte of the compulsory traffic (each matrix moved once); open: of a tile model's traffic"])

    for v, major in ys.ticks():
        y = ys(v)
        svg.line(left, y, right, y, GRID if major else MINOR_GRID, 2 if major else 1)
        if major:
            svg.text(left - 12, y, tick_text(v), TICK_PX, anchor="end", baseline="central")
    for v, major in xs.ticks():
        x = xs(v)
        svg.line(x, y0, x, bottom, GRID if major else MINOR_GRID, 2 if major else 1)
        if major:
            svg.text(x, bottom + 32, tick_text(v), TICK_PX, anchor="middle")
    svg.line(left, bottom, right, bottom, INK, 2)
    svg.line(left, y0, left, bottom, INK, 2)
    svg.text((left + right) / 2, bottom + 72, "arithmetic intensity, FLOP/byte (log scale)", AXIS_PX,
             anchor="middle", weight="bold")
    svg.text(40, (y0 + bottom) / 2, "GFLOP/s (log scale)", AXIS_PX, anchor="middle", weight="bold", rotate=-90)

    roof_colours = ["#000000", "#555555", "#7a0000", "#00407a"]
    roof_dash = [None, "14 8", "4 6", "20 6 4 6"]
    roof_list = sorted(roofs)
    # the roofs' legend: between the titles and the plot, where it hides nothing
    legend = []
    for i, (dev, t, peak, bw, ceiling) in enumerate(roof_list):
        c, d = roof_colours[i % 4], roof_dash[i % 4]
        ridge = peak / bw if bw > 0 else xs.lo
        start = max(xs.lo, ys.lo / bw) if bw > 0 else xs.lo  # where the slope enters the plot
        pts = [(xs(start), ys(bw * start)), (xs(ridge), ys(peak)), (xs(xs.hi), ys(peak))]
        svg.polyline(pts, c, 4, d)
        who = f"{dev}, {t} thread{'s' if t > 1 else ''}" if dev.upper() == "CPU" else dev
        if dev.upper() != "CPU" and ceiling:
            who += f" ({ceiling})"
        legend.append((f"{who}: peak {fmt(peak)} GFLOP/s, {fmt(bw)} GB/s, ridge {fmt(ridge)} FLOP/byte", c, d))
    for i, (s, c, d) in enumerate(legend):
        y = y0 - 16 - 30 * (len(legend) - 1 - i)
        svg.line(left + 26, y - 7, left + 86, y - 7, c, 4, d)
        svg.text(left + 96, y, s, SUBTITLE_PX, weight="bold", fill=c)

    labels = []
    for r in rows:
        x, y = xs(r["flop_per_byte"]), ys(max(r["gflops"], ys.lo))
        c = lab_colour(r["stage"])
        compulsory = r["model"] == "compulsory"
        svg.circle(x, y, 9, c if compulsory else "#ffffff", c, 3)
        name = r["stage"] + (f" ({r['threads']}t)" if r["threads"] > 1 else "")
        if not compulsory:
            name += f", {r['model']}"
        labels.append((x, y, f"{name}: {fmt(r['gflops'])}", c))
    place_labels(svg, labels, left, right, y0, bottom)
    return svg.finish(first)


# ------------------------------------------------------------------ main

def parse_args(argv):
    opts = {"chart": None, "out": ".", "shape": None, "title": None, "machine": None, "format": "svg", "files": []}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            try:
                print(__doc__.strip())
            except BrokenPipeError:  # `plot.py --help | head`
                pass
            sys.exit(0)
        if a in ("--chart", "--out", "--shape", "--title", "--machine", "--format"):
            if i + 1 >= len(argv):
                raise Usage(f"{a} needs a value; see python3 tools/plot.py --help")
            opts[a[2:]] = argv[i + 1]
            i += 2
            continue
        if a.startswith("--") and "=" in a and a.split("=", 1)[0] in ("--chart", "--out", "--shape", "--title", "--machine", "--format"):
            k, v = a.split("=", 1)
            opts[k[2:]] = v
            i += 1
            continue
        if a.startswith("-"):
            raise Usage(f"unknown option {a}; see python3 tools/plot.py --help")
        opts["files"].append(a)
        i += 1
    if not opts["files"]:
        raise Usage("no input file; give the JSON of `mmlab demo --json FILE` (or `mmlab roofline --csv FILE`)")
    if opts["chart"] is not None:
        names = [c.strip() for c in opts["chart"].split(",") if c.strip()]
        bad = [c for c in names if c not in CHARTS]
        if bad or not names:
            raise Usage(f"unknown chart '{','.join(bad) or opts['chart']}'; the charts are {', '.join(CHARTS)}")
        opts["chart"] = names
    if opts["shape"]:
        opts["shape"] = parse_shape(opts["shape"])
    if opts["format"] not in ("svg", "png", "pdf"):
        raise Usage(f"--format {opts['format']}: the formats are svg, png and pdf")
    return opts


def render(opts):
    """{file name: SVG text}, everything drawn before anything is written."""
    jsons, csvs = [], []
    for path in opts["files"]:
        kind, data = load(path)
        (jsons if kind == "json" else csvs).append(data)
    asked = opts["chart"]
    shape = opts["shape"]
    if shape and jsons and not any((r.get("M"), r.get("N"), r.get("K")) == shape for d in jsons for r in d["summary"]):
        have = sorted({shape_text(r.get("M"), r.get("N"), r.get("K")) for d in jsons for r in d["summary"]})
        raise Usage(f"--shape {shape_text(*shape)}: no stage ran at that shape; the files have {', '.join(have)}")
    out = {}
    for name in asked or CHARTS:
        need_json = name in ("progression", "sizes")
        if need_json and not jsons:
            if asked:
                raise Usage(f"{name}: needs mmlab's JSON (`mmlab demo --json FILE`); only roofline CSV was given")
            continue
        if name == "roofline" and not csvs:
            if asked:
                raise Usage("roofline: needs lab 10's CSV; write it with `mmlab roofline --csv FILE`")
            continue
        try:
            if name == "progression":
                out["progression.svg"] = progression(jsons, opts["shape"], opts["title"])
            elif name == "sizes":
                out["sizes.svg"] = sizes(jsons, opts["title"])
            else:
                out["roofline.svg"] = roofline(csvs, opts["title"], opts["machine"] or
                                               "; ".join(machine_text(d) for d in jsons))
        except Usage as e:
            if asked:
                raise
            print(f"plot.py: {name}.svg not drawn: {e}", file=sys.stderr)
    return out


def converted(charts, fmt):
    """{name.svg: SVG text} -> {name.fmt: bytes or text}: PNG and PDF through rsvg-convert."""
    if fmt == "svg":
        return charts
    tool = shutil.which("rsvg-convert")
    if not tool:
        raise Usage(f"--format {fmt} needs rsvg-convert: sudo apt-get install librsvg2-bin (or use the default svg)")
    out = {}
    for name, text in charts.items():
        p = subprocess.run([tool, "--format", fmt], input=text.encode("utf-8"), capture_output=True)
        if p.returncode != 0:
            raise Usage(f"rsvg-convert could not convert {name}: {p.stderr.decode(errors='replace').strip()[:200]}")
        out[name[:-4] + "." + fmt] = p.stdout
    return out


def write_all(out_dir, charts):
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        raise Usage(f"--out {out_dir}: cannot make the folder ({e.strerror}); choose a folder you can write to")
    if not os.access(out_dir, os.W_OK | os.X_OK):
        raise Usage(f"--out {out_dir}: the folder is not writable; choose a folder you can write to")
    umask = os.umask(0)
    os.umask(umask)
    temps = []
    try:
        for name, text in charts.items():
            fd, tmp = tempfile.mkstemp(prefix="." + name + ".", suffix=".tmp", dir=out_dir)
            temps.append((tmp, os.path.join(out_dir, name)))
            os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; a chart is for sharing
            with os.fdopen(fd, "wb") as f:
                f.write(text if isinstance(text, bytes) else text.encode("utf-8"))
        for tmp, dest in temps:
            os.replace(tmp, dest)
    except OSError as e:
        for tmp, _ in temps:
            if os.path.exists(tmp):
                os.remove(tmp)
        raise Usage(f"--out {out_dir}: cannot write ({e.strerror}); choose a folder you can write to")
    return [dest for _, dest in temps]


def main(argv):
    try:
        opts = parse_args(argv)
        charts = render(opts)
        if not charts:
            raise Usage("nothing to draw from these files; give `mmlab demo --json FILE` or `mmlab roofline --csv FILE` output")
        for path in write_all(opts["out"], converted(charts, opts["format"])):
            print(f"wrote {path}")
    except Usage as e:
        print(f"plot.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
