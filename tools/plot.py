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

import sys

from charts.inputs import Usage, load, machine_text, parse_shape, shape_text
from charts.output import converted, write_all
from charts.progression import progression
from charts.roofline import roofline
from charts.sizes import sizes

CHARTS = ("progression", "sizes", "roofline")


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
