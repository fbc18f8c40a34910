"""The sizes chart: GFLOP/s against the size n for every stage run at two or more sizes."""

from .canvas import (
    AXIS_PX, FAIL, GRID, HEIGHT, INK, LABEL_PX, MINOR_GRID, TICK_PX, WIDTH, LogAxis, Svg, spread,
    tick_text, titles)
from .inputs import Usage, devices_of, fmt, lab_colour, machine_text, num, run_date, shape_text, timed_text


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
