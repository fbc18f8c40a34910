"""--similarity: which submissions of a class share more code than the
starter gives them, for an instructor to look at (it never changes a score:
similar code is a question, not a verdict).

The detector is copydetect (PyPI; a tool installed like the grader's other
tools, see handouts/grading.md): it tokenizes C++ (identifiers and literals
folded, so renaming and reformatting change nothing), fingerprints each
document by winnowing k-grams of tokens (a set: moving functions around
changes nothing either) and compares the fingerprints of two documents. A
student's document is their lab files, as intake.py finds them, one after
the other; the starter's lab files are boilerplate, so what every student was
given never counts.

Written into OUT: similarity.html, the ranked pairs (the share of each one's
code found in the other; the higher of the two ranks) and, for the pairs at
or above SHOW_AT, both documents side by side with the shared regions marked.
Everything from a submission in it is escaped for HTML (and for control
characters, escape.py).
"""

import html
import io
import itertools
import os

from . import escape, intake
from .common import UsageError

# copydetect's own defaults: a match is at least NOISE tokens long, and every match of GUARANTEE tokens is found.
# Equal, every k-gram is kept (winnowing picks none out): copydetect hashes with Python's hash(), salted per
# process, so a wider window would pick other k-grams in every run and the shares would change from run to run.
NOISE, GUARANTEE = 25, 25
# Pairs shown side by side: a share of SHOW_AT or more, at most SHOW_MAX of them; rows of the table, at most.
SHOW_AT, SHOW_MAX, TABLE_MAX = 0.6, 50, 500
# Characters of one document shown side by side (a file may be 1 MiB: the page stays readable).
SHOW_CHARS = 60_000
INSTALL = "python3 -m pip install copydetect"


def detector():
    """copydetect's module, or a UsageError naming the fix (checked before anything is graded)."""
    try:
        import copydetect  # noqa: F401 (a tool, not the grader's standard library: only with --similarity)
        from copydetect import detector as d
        return d
    except ImportError as e:
        raise UsageError(f"--similarity needs the Python package copydetect, not installed for this python3 "
                         f"({e.name or e}): run `{INSTALL}` (handouts/grading.md), or grade without --similarity")


def submission_text(folder, lab_number, lab_files):
    """A student's lab files (as graded: found by intake, plain files within the size limit) one after the
    other, each after a line naming it; "" when there are none."""
    src, _ = intake.find_lab_files(folder, lab_number, lab_files)
    if src is None:
        return ""
    parts = []
    for n in sorted(lab_files):
        f = src / n
        if f.is_file() and not f.is_symlink() and f.stat().st_size <= intake.MAX_SUBMITTED_FILE_BYTES:
            parts.append(f"// ==== {n} ====\n" + f.read_text("utf-8", "replace"))
    return "\n".join(parts)


def fingerprint(d, text, boilerplate=()):
    return d.CodeFingerprint("submission.cpp", NOISE, GUARANTEE - NOISE + 1, boilerplate=list(boilerplate),
                             language="cpp", fp=io.StringIO(text))


def ranked_pairs(documents, starter_text):
    """[(share, name_a, name_b, (share_a, share_b), shared tokens, (slices_a, slices_b))] for every pair of
    documents ({name: text}) sharing tokens beyond the starter, highest share first; share_x: the part of x's
    tokens found in the other."""
    d = detector()
    boiler = fingerprint(d, starter_text).hashes if starter_text else set()
    prints = {n: fingerprint(d, t, boiler) for n, t in documents.items() if t.strip()}
    pairs = []
    for a, b in itertools.combinations(sorted(prints), 2):
        tokens, (sa, sb), (slices_a, slices_b) = d.compare_files(prints[a], prints[b])
        if tokens > 0:
            pairs.append((max(sa, sb), a, b, (float(sa), float(sb)), int(tokens), (slices_a, slices_b)))
    pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
    return pairs


def marked(text, slices, most=SHOW_CHARS):
    """text (its first `most` characters) as HTML, the regions [start, end) of slices (copydetect's 2xN
    array) in <mark>."""
    out, at = [], 0
    regions = sorted(zip(slices[0], slices[1])) if len(slices) and len(slices[0]) else []
    for start, end in regions:
        start, end = max(int(start), at), min(int(end), most)
        if end <= start:
            continue
        out.append(_html(text[at:start]))
        out.append("<mark>" + _html(text[start:end]) + "</mark>")
        at = end
    out.append(_html(text[at:most]))
    if len(text) > most:
        out.append(f"\n... ({len(text) - most} more characters not shown)")
    return "".join(out)


def _html(text):
    return html.escape(escape.block(text))


STYLE = """body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;
padding:2px 8px;text-align:left}.pair{display:flex;gap:1em}.pair>div{flex:1;min-width:0}pre{font-size:12px;
background:#f8f8f8;padding:6px;overflow-x:auto;white-space:pre-wrap}mark{background:#ffd36b}"""


def report_html(pairs, documents, lab_number, n_students):
    """similarity.html's text."""
    def name(n):
        return html.escape(escape.line(n))

    def pct(x):
        return f"{100 * x:.0f}%"
    shown = [p for p in pairs if p[0] >= SHOW_AT][:SHOW_MAX]
    rows = []
    for i, (share, a, b, (sa, sb), tokens, _) in enumerate(pairs[:TABLE_MAX]):
        link = f'<a href="#pair{i}">{i + 1}</a>' if i < len(shown) else str(i + 1)
        rows.append(f"<tr><td>{link}</td><td>{name(a)}</td><td>{name(b)}</td><td>{pct(sa)}</td><td>{pct(sb)}</td>"
                    f"<td>{tokens}</td></tr>")
    parts = [f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Similarity, lab {lab_number}</title>"
             f"<style>{STYLE}</style></head><body>",
             f"<h1>Lab {lab_number}: pairs of submissions that share code beyond the starter</h1>",
             f"<p>{n_students} submission(s), {len(pairs)} pair(s) sharing something beyond the starter (copydetect: "
             f"matches of {NOISE} tokens or more, identifiers and layout ignored; the starter's code never counts). "
             "A share is the part of one student's code also found in the other's. Similar code is a reason to "
             "look, not a verdict; no score was changed.</p>"]
    if pairs:
        parts.append("<table><tr><th>#</th><th>student</th><th>student</th><th>share of the first</th>"
                     "<th>share of the second</th><th>shared tokens</th></tr>" + "".join(rows) + "</table>")
        if len(pairs) > TABLE_MAX:
            parts.append(f"<p>(and {len(pairs) - TABLE_MAX} more pairs, lower)</p>")
    for i, (share, a, b, (sa, sb), tokens, (slices_a, slices_b)) in enumerate(shown):
        parts.append(f'<h2 id="pair{i}">{i + 1}. {name(a)} ({pct(sa)}) and {name(b)} ({pct(sb)})</h2>'
                     f'<div class="pair"><div><h3>{name(a)}</h3><pre>{marked(documents[a], slices_a)}</pre></div>'
                     f'<div><h3>{name(b)}</h3><pre>{marked(documents[b], slices_b)}</pre></div></div>')
    parts.append("</body></html>\n")
    return "\n".join(parts)


def class_similarity(students, lab, lab_files, starter_dir, out_dir):
    """Writes out_dir/similarity.html for the student folders; returns summary.txt's lines about it."""
    documents = {s.name: submission_text(s, lab.number, lab_files) for s in students}
    starter = "\n".join(f"// ==== {n} ====\n" + (starter_dir / n).read_text("utf-8", "replace")
                        for n in sorted(lab_files) if (starter_dir / n).is_file())
    pairs = ranked_pairs(documents, starter)
    page = out_dir / "similarity.html"
    tmp = page.with_name(page.name + ".tmp")
    tmp.write_text(report_html(pairs, documents, lab.number, len(students)), encoding="utf-8")
    os.replace(tmp, page)
    high = [p for p in pairs if p[0] >= SHOW_AT]
    lines = [f"similarity (--similarity; no score changed): {len(high)} pair(s) share {100 * SHOW_AT:.0f}% or more "
             f"beyond the starter, {len(pairs)} share something; similarity.html ranks them"]
    lines += [f"  {100 * share:3.0f}%  {escape.line(a)} and {escape.line(b)}" for share, a, b, *_ in high[:10]]
    return lines
