"""Reading the charts' inputs: mmlab's --json output and lab 10's roofline CSV,
checked, with one-line errors (Usage) for bad input; and the small texts
made from them (shapes, numbers, dates, the machine, what was timed)."""

import csv
import datetime
import json
import math
import os

from .canvas import INK, LAB_COLOURS


class Usage(Exception):
    """Bad input: one line, exit 2."""


ROOF_COLUMNS = ("device", "stage", "M", "N", "K", "threads", "model", "flop_per_byte", "gflops",
                "peak_gflops", "bandwidth_gbs")


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
