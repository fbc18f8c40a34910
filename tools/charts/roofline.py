"""Lab 10's roofline chart: a roof per (device, threads, ceiling), the stages as points."""

import datetime
import os

from .canvas import (
    AXIS_PX, GRID, HEIGHT, INK, MINOR_GRID, SUBTITLE_PX, TICK_PX, WIDTH, LogAxis, Svg, place_labels,
    tick_text, titles)
from .inputs import Usage, fmt, lab_colour


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
