#!/usr/bin/env python3
"""Tests of the plotting script (tools/plot.py):

  real data   mmlab runs three stages at two tiny shapes (about a second) and
              writes its JSON; lab 10's roofline CSV is a checked-in file from
              a real run (tests/plot/roofline-zen3-256.csv: `mmlab roofline`
              takes seconds, too long here). Every chart is well-formed XML
              (xml.etree) and names every stage with its value.
  as such     a failed and a skipped row are drawn with "FAILED"/"SKIPPED" and
              the reason, never as an empty bar; the measured peak is drawn.
  bad input   a missing file, JSON that is not mmlab's, a text file, an
              unknown chart, an unknown option, an impossible --shape, a chart
              without its data, an output folder that cannot be made: exit 2,
              one line on stderr, and no file written (not even the charts
              that could be drawn).
Run from the repository root (make test runs it through tests/test_plot.cpp);
MMLAB names the mmlab binary (default build/bin/mmlab). Prints one line per
check and exits 1 if any fails.
"""
import copy
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO / "tools"))
from charts import inputs as charts_inputs  # noqa: E402  (fmt: how the charts write a number)
PLOT = [sys.executable, str(REPO / "tools" / "plot.py")]
ROOF_CSV = REPO / "tests" / "plot" / "roofline-zen3-256.csv"
SVG_NS = "{http://www.w3.org/2000/svg}"
failures = []


def check(cond, what, detail=""):
    print(("ok   - " if cond else "FAIL - ") + what + ("" if cond or not detail else f"\n       {detail}"), flush=True)
    if not cond:
        failures.append(what)


def plot(*args):
    return subprocess.run(PLOT + [str(a) for a in args], capture_output=True, text=True, timeout=60)


def texts(svg_path):
    """Every <text> of the SVG, after checking that it parses as XML and is an SVG."""
    root = ET.parse(svg_path).getroot()
    if root.tag != SVG_NS + "svg":
        raise ValueError(f"root element is {root.tag}, not svg")
    return [t.text or "" for t in root.iter(SVG_NS + "text")], root


def main():
    mmlab = os.environ.get("MMLAB", str(REPO / "build" / "bin" / "mmlab"))
    fmt = charts_inputs.fmt
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-plot-test-"))

    # --- real data: mmlab at tiny shapes
    run_json = tmp / "run.json"
    r = subprocess.run([mmlab, "run", "--stage", "lab1.ijk,lab1.ikj,lab2.blocked", "--size", "16,24x40x8",
                        "--reps", "1", "--quiet", "--json", str(run_json)], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0 and run_json.exists(), f"{mmlab} run --json wrote the JSON", r.stderr[-500:])
    if failures:
        return
    data = json.loads(run_json.read_text())
    stages = ["lab1.ijk", "lab1.ikj", "lab2.blocked"]

    out = tmp / "charts"
    r = plot("--out", out, run_json, ROOF_CSV)
    check(r.returncode == 0, "plot.py on a real run and a roofline CSV: exit 0", r.stderr)
    for name in ("progression", "sizes", "roofline"):
        path = out / f"{name}.svg"
        try:
            t, root = texts(path)
            check(True, f"{name}.svg is well-formed XML with an <svg> root")
        except (OSError, ET.ParseError, ValueError) as e:
            check(False, f"{name}.svg is well-formed XML with an <svg> root", str(e))
            continue
        joined = "\n".join(t)
        check(any("AMD" in s or "Intel" in s or "cores" in s for s in t) or data["machine"]["cpu"] in joined,
              f"{name}.svg: the title names the machine")
        if name == "roofline":
            check(all(s in joined for s in ("lab1.ijk", "lab2.blocked", "lab5.openblas (2t)")),
                  "roofline.svg: the stages of the CSV are labelled")
            check("lab1.ijk: 1.43" in joined and "lab5.openblas (2t): 84.0" in joined,
                  "roofline.svg: each point's GFLOP/s is in its label", joined)
            check("CPU, 1 thread: peak 92.8 GFLOP/s, 15.4 GB/s, ridge 6.03 FLOP/byte" in joined,
                  "roofline.svg: the 1-thread roof is drawn and labelled with its peak and bandwidth", joined)
            check("CPU, 2 threads: peak 156 GFLOP/s" in joined, "roofline.svg: the 2-thread roof too")
            continue
        check(all(s in joined for s in stages), f"{name}.svg: every stage is named", joined)
        check(data["date"][:10] in joined, f"{name}.svg: the title has the run's date")
        check(any("wall-clock" in s for s in t), f"{name}.svg: the title says what is timed")
        check(any("GFLOP/s" in s for s in t), f"{name}.svg: an axis with its unit")
        if name == "progression":
            # each stage at its largest shape: 16^3 (4096) < 24x40x8 (7680)
            big = [row for row in data["summary"] if (row["M"], row["N"], row["K"]) == (24, 40, 8)]
            want = [fmt(row["gflops"]) for row in big]
            check(len(big) == 3 and all(any(s.startswith(w) for s in t) for w in want),
                  "progression.svg: every bar is labelled with its GFLOP/s (the largest shape)", f"{want} in {t}")
            check(any("CPU peak, 1 thread (measured)" in s for s in t), "progression.svg: the measured peak is drawn")
            # the bars are the rects placed with x (the background and the
            # hatch pattern's tile have none): one per stage, none of zero width
            widths = [float(e.get("width")) for e in root.iter(SVG_NS + "rect") if e.get("x") is not None]
            check(len(widths) == 3 and all(w > 0 for w in widths), "progression.svg: a bar per stage, none of zero width",
                  f"bar widths: {widths}")
        else:
            want = [fmt(row["gflops"]) for row in data["summary"]]
            check(len(want) == 6 and all(w in t for w in want), "sizes.svg: every point is labelled with its GFLOP/s",
                  f"{want} in {t}")

    # --shape picks one shape; the title says which
    r = plot("--out", tmp / "shape", "--chart", "progression", "--shape", "16", run_json)
    t, _ = texts(tmp / "shape" / "progression.svg") if r.returncode == 0 else ([], None)
    at16 = [row for row in data["summary"] if row["M"] == 16]
    check(r.returncode == 0 and any("at 16³" in s for s in t) and len(at16) == 3 and
          all(any(s.startswith(fmt(row["gflops"])) for s in t) for row in at16),
          "--shape 16: the progression at 16^3, with its values", r.stderr)

    # --- failed and skipped rows drawn as such
    bad = copy.deepcopy(data)
    for row in bad["summary"]:
        if row["stage"] == "lab1.ikj":
            row.update(passed=False, failure="C[3][4] is 7.5, expected 1.25")
        if row["stage"] == "lab2.blocked":
            row.update(skipped=True, passed=False, gflops=0, skip_reason="block=4096 is larger than the matrix")
    bad_json = tmp / "failed.json"
    bad_json.write_text(json.dumps(bad))
    r = plot("--out", tmp / "failed", "--chart", "progression,sizes", bad_json)
    check(r.returncode == 0, "a run with a failed and a skipped stage still plots", r.stderr)
    if r.returncode == 0:
        t, root = texts(tmp / "failed" / "progression.svg")
        joined = "\n".join(t)
        check("FAILED: C[3][4] is 7.5, expected 1.25" in joined, "progression.svg: the failed stage says FAILED and why")
        check("SKIPPED: block=4096 is larger than the matrix" in joined,
              "progression.svg: the skipped stage says SKIPPED and why")
        t, _ = texts(tmp / "failed" / "sizes.svg")
        check(any("FAILED" in s for s in t) and any("skipped" in s for s in t),
              "sizes.svg: failed and skipped points are noted", "\n".join(t))

    # --- a GPU stage: its peak is the GPU's spec peak, drawn beside the CPU's
    gpu = copy.deepcopy(data)
    extra = copy.deepcopy(gpu["summary"][0])
    extra.update(stage="lab8.double_buffer", device="gpu", gflops=30000.0, percent_of_peak=50.0, M=4096, N=4096, K=4096)
    gpu["summary"].append(extra)
    gpu["gpu"] = {"name": "NVIDIA H100 80GB HBM3", "sm_count": 132, "fp32_peak_gflops_spec": 60000}
    gpu_json = tmp / "gpu.json"
    gpu_json.write_text(json.dumps(gpu))
    r = plot("--out", tmp / "gpu", "--chart", "progression", gpu_json)
    t, _ = texts(tmp / "gpu" / "progression.svg") if r.returncode == 0 else ([], None)
    joined = "\n".join(t)
    check(r.returncode == 0 and "GPU FP32 peak (spec): 60,000" in joined and "lab8.double_buffer  4096³" in joined
          and "CPU peak, 1 thread (measured)" in joined and "H100" in joined and "CUDA events" in joined,
          "a GPU stage: the GPU's spec peak, the stage with its shape, the GPU named, kernel timing said",
          r.stderr + joined)

    # --- a busy machine: 2 threads measured fewer FMAs/s than 1; the chart says so
    busy = copy.deepcopy(data)
    one_thread = copy.deepcopy(busy["summary"][0])  # percent_of_peak is gflops / peak * 100
    busy["summary"] = [dict(one_thread, stage="lab5.tile", threads=1, gflops=80.0, percent_of_peak=80.0),
                       dict(one_thread, stage="lab5.blis", threads=2, gflops=30.0, percent_of_peak=50.0)]
    busy_json = tmp / "busy.json"
    busy_json.write_text(json.dumps(busy))
    r = plot("--out", tmp / "busy", "--chart", "progression", busy_json)
    t, _ = texts(tmp / "busy" / "progression.svg") if r.returncode == 0 else ([], None)
    joined = "\n".join(t)
    check(r.returncode == 0 and "CPU peak, 2 threads (measured), below 1 thread's: the machine was busy" in joined
          and "CPU peak, 1 thread (measured): 100" in joined,
          "a 2-thread peak below the 1-thread one: the peak's label says the machine was busy", r.stderr + joined)
    r = plot("--out", tmp / "not-busy", "--chart", "progression", run_json)
    t, _ = texts(tmp / "not-busy" / "progression.svg") if r.returncode == 0 else ([], None)
    check(r.returncode == 0 and not any("busy" in s for s in t), "an ordinary run: no busy-machine note")

    # --- several files: both machines in the title
    r = plot("--out", tmp / "two", "--chart", "progression", run_json, bad_json)
    t, _ = texts(tmp / "two" / "progression.svg") if r.returncode == 0 else ([], None)
    check(r.returncode == 0 and any(s.startswith("[1] ") for s in t) and any(s.startswith("[2] ") for s in t),
          "two files: rows and titles tagged [1] and [2]", r.stderr)

    # --- bad input: exit 2, one line, nothing written
    not_ours = tmp / "other.json"
    not_ours.write_text('{"benchmarks": []}')
    text_file = tmp / "notes.txt"
    text_file.write_text("hello\n")
    one_size = copy.deepcopy(data)
    one_size["summary"] = [row for row in one_size["summary"] if row["M"] == 16]
    one_size_json = tmp / "one-size.json"
    one_size_json.write_text(json.dumps(one_size))
    blocker = tmp / "a-file"
    blocker.write_text("")
    cases = [
        ("a missing file", [tmp / "nope.json"], "no such file"),
        ("JSON that is not mmlab's", [not_ours], "summary"),
        ("a text file", [text_file], "neither mmlab JSON nor"),
        ("truncated JSON", [None], "not valid JSON"),
        ("an unknown chart", ["--chart", "pie", run_json], "unknown chart 'pie'"),
        ("an unknown option", ["--colour", "red", run_json], "unknown option"),
        ("no file at all", [], "no input file"),
        ("a bad --shape", ["--shape", "12x", run_json], "not a shape"),
        ("a --shape that did not run", ["--shape", "999", run_json], "no stage ran at that shape"),
        ("roofline without its CSV", ["--chart", "roofline", run_json], "roofline --csv"),
        ("sizes from a run at one size (progression would work: still nothing written)",
         ["--chart", "progression,sizes", one_size_json], "ran at one size only"),
    ]
    truncated = tmp / "truncated.json"
    truncated.write_text(run_json.read_text()[:200])
    for i, (what, args, words) in enumerate(cases):
        args = [truncated if a is None else a for a in args]
        dest = tmp / f"bad{i}"
        r = plot("--out", dest, *args)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2 and len(lines) == 1 and words in r.stderr and r.stdout == "" and
              not (dest.exists() and any(dest.iterdir())),
              f"bad input, {what}: exit 2, one line, nothing written",
              f"exit {r.returncode}, stderr {r.stderr!r}, stdout {r.stdout!r}")
    r = plot("--out", blocker / "charts", run_json)
    check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--out" in r.stderr,
          "bad input, an output folder that cannot be made: exit 2, one line", repr(r.stderr))
    # an unwritable folder (a read-only one; root ignores modes, so only where we are not root)
    if os.geteuid() != 0:
        ro = tmp / "read-only"
        ro.mkdir()
        ro.chmod(0o500)
        r = plot("--out", ro, run_json)
        check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and not any(ro.iterdir()),
              "bad input, a read-only output folder: exit 2, one line, nothing written", repr(r.stderr))
        ro.chmod(0o700)
    # an existing chart is replaced whole, never left half-written: no temporary files stay behind
    leftovers = [p.name for p in out.iterdir() if p.name.startswith(".")]
    check(not leftovers, "no temporary files left in the output folder", str(leftovers))

    # lab 12's scaling chart (tools/lab12_plot.py, drawn with the same canvas)
    model_csv = tmp / "abg-model.csv"
    r = subprocess.run([mmlab, "abg-model", "--csv", str(model_csv)], capture_output=True, text=True)
    check(r.returncode == 0 and model_csv.exists(), "mmlab abg-model --csv wrote the model's table", r.stderr[-300:])
    lab12_plot = [sys.executable, str(REPO / "tools" / "lab12_plot.py")]
    r = subprocess.run(lab12_plot + ["--out", str(tmp / "lab12"), str(model_csv)], capture_output=True, text=True)
    svg_file = tmp / "lab12" / "lab12-scaling.svg"
    try:
        t, _ = texts(svg_file)
    except (OSError, ValueError, ET.ParseError) as e:
        t = [f"(not a readable SVG: {e})"]
    series = ["1-D, strong (n fixed)", "SUMMA without overlap, strong", "SUMMA with overlap, strong",
              "SUMMA with overlap, weak (n x sqrt(P))"]
    check(r.returncode == 0 and all(s in t for s in series) and "512" in t and "GPUs (log2)" in t,
          "lab12_plot.py: the four series, GPUs 1 to 512", f"exit {r.returncode}, {r.stderr[-300:]}, texts {t[:12]}")
    bad_csv = tmp / "not-a-model.csv"
    bad_csv.write_text("a,b\n1,2\n")
    r = subprocess.run(lab12_plot + ["--out", str(tmp / "lab12-bad"), str(bad_csv)], capture_output=True, text=True)
    check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "abg-model --csv" in r.stderr and
          not (tmp / "lab12-bad" / "lab12-scaling.svg").exists(),
          "lab12_plot.py, not the model's CSV: exit 2, one line naming what to give, nothing written", repr(r.stderr))

    subprocess.run(["rm", "-rf", str(tmp)])


if __name__ == "__main__":
    main()
    print(f"plot tests: {'all passed' if not failures else str(len(failures)) + ' failed'}")
    sys.exit(1 if failures else 0)
