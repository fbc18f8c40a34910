"""The progression chart: GFLOP/s per stage, the ladder from the triple loop up."""

from .canvas import (
    AXIS_PX, FAIL, GRID, HEIGHT, INK, LABEL_PX, MINOR_GRID, SKIP, SUBTITLE_PX, TICK_PX, WIDTH,
    LogAxis, Svg, text_width, tick_text, titles)
from .inputs import Usage, devices_of, fmt, lab_colour, machine_text, num, run_date, shape_text, timed_text


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
