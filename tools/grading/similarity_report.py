"""similarity.html and similarity.csv (similarity.py compares, this writes).

The page is static HTML that works offline (no script, no outside file):
the distribution of the scores with the threshold marked (to choose a
threshold), the clusters, each student's highest match, the ranked pairs,
and the pairs at or above SHOW_AT side by side with their fragments
numbered, coloured and linked to their twin on the other side. Everything
a submission controls (names, code) goes through escape.py and html.escape.
"""

import html

from . import escape
from collections import defaultdict

# Pairs shown side by side: a score of SHOW_AT or more, at most SHOW_MAX of them; rows of the tables, at most.
SHOW_AT, SHOW_MAX, TABLE_MAX = 0.6, 50, 500
# Characters of one document shown side by side (a file may be 1 MiB: the page stays readable).
SHOW_CHARS = 60_000

COLOURS = ("#ffd36b", "#9fd8ff", "#b9f0a8", "#ffb3c7", "#d9c2ff", "#ffcf9e", "#a8efe4", "#e8e89a")
STYLE = """body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;
padding:2px 8px;text-align:left}.pair{display:flex;gap:1em}.pair>div{flex:1;min-width:0}pre{font-size:12px;
background:#f8f8f8;padding:6px;overflow-x:auto;white-space:pre-wrap}mark a{color:inherit;text-decoration:none}
mark sup{font-weight:bold}.bar{background:#69c;height:12px}.over{background:#c63}td.n{text-align:right}"""


def _name(n):
    return html.escape(escape.line(n))


def _code(text):
    return html.escape(escape.block(text))


def _pct(x):
    return f"{100 * x:.0f}%"


def marked(doc, regions, me, other, most=SHOW_CHARS):
    """doc's text (its first `most` characters) as HTML, region number i (a [start, end) of characters) in
    <mark id="{me}{i}">, a link to "#{other}{i}", its colour, its number before it."""
    out, at = [], 0
    for i, (start, end) in sorted(enumerate(regions, 1), key=lambda r: r[1]):
        start, end = max(start, at), min(end, most)
        if end <= start:
            continue
        out.append(_code(doc[at:start]))
        out.append(f'<mark id="{me}{i}" style="background:{COLOURS[(i - 1) % len(COLOURS)]}">'
                   f'<a href="#{other}{i}"><sup>[{i}]</sup>{_code(doc[start:end])}</a></mark>')
        at = end
    out.append(_code(doc[at:most]))
    if len(doc) > most:
        out.append(f"\n... ({len(doc) - most} more characters not shown)")
    return "".join(out)


def histogram(pairs, at=SHOW_AT):
    """The scores of all pairs in bins of 5%, as a table of bars; the bins at or above `at` in another colour."""
    bins = [0] * 20
    for p in pairs:
        bins[min(int(p.score * 20), 19)] += 1
    top = max(bins) or 1
    rows = []
    for i in reversed(range(20)):
        cls = "bar over" if i / 20 >= at - 1e-9 else "bar"
        rows.append(f'<tr><td>{5 * i}-{5 * i + 5}%</td><td class="n">{bins[i]}</td><td style="width:300px">'
                    f'<div class="{cls}" style="width:{300 * bins[i] // top}px"></div></td></tr>')
    return ("<h2>Scores of all pairs</h2><p>Pairs per score (the higher of the two shares); in red, the bins at or "
            f"above the threshold ({_pct(at)}), the pairs shown side by side below. Independent solutions make the "
            "bulk at the bottom; a copy stands apart above it.</p><table>" + "".join(rows) + "</table>")


def html_page(pairs, docs, lab_number, n_students, k_w, show_at=SHOW_AT, expected=""):
    """similarity.html's text (pairs: similarity.Pair, highest score first; k_w: the k-gram and window; show_at:
    the score from which a pair is shown side by side; expected: a sentence on the expected code excluded)."""
    K, W = k_w
    shown = [p for p in pairs if p.score >= show_at][:SHOW_MAX]
    anchor = {id(p): i for i, p in enumerate(shown)}
    parts = [f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Similarity, lab {lab_number}</title>"
             f"<style>{STYLE}</style></head><body>",
             f"<h1>Lab {lab_number}: pairs of submissions that share code beyond the starter</h1>",
             f"<p>{n_students} submission(s), {len(pairs)} pair(s) sharing code beyond the starter. Compared as "
             f"normalized tokens (names, literals, layout, comments, increment and loop forms, operand order and "
             f"integer types ignored); a fragment is {K} tokens or more, every one of {K + W - 1} or more is "
             f"found; the starter's code and code in more than half of the submissions never count{expected}. "
             "A share is the part of one student's code also found in the other's. Similar code is a reason to "
             "look, not a verdict; no score was changed. similarity.csv has every pair.</p>",
             histogram(pairs, show_at)]
    groups = clusters(pairs, show_at)
    parts.append(f"<h2>Clusters of three or more (pairs at {_pct(show_at)} or more)</h2>")
    parts.append("<ul>" + "".join(f"<li>{len(g)}: " + ", ".join(_name(n) for n in g) + "</li>" for g in groups)
                 + "</ul>" if groups else "<p>None.</p>")
    best = highest(pairs)
    rows = []
    # Every submission, those that share nothing with anybody too (one that is the reference itself is one).
    alone = {n: (0.0, None) for n in docs if n not in best}
    order = sorted({**best, **alone}.items(),
                   key=lambda kv: (-kv[1][0], -getattr(docs.get(kv[0]), "expected_share", 0.0), kv[0]))
    for me, (share, p) in order[:TABLE_MAX]:
        other = "" if p is None else p.b.name if p.a.name == me else p.a.name
        link = f'<a href="#pair{anchor[id(p)]}">{_pct(share)}</a>' if id(p) in anchor else _pct(share)
        ref = f"<td>{_pct(docs[me].expected_share)}</td>" if expected else ""
        rows.append(f"<tr><td>{_name(me)}</td><td>{link}</td><td>{_name(other) or 'nobody'}</td>{ref}</tr>")
    ref = ("<th>reference</th>" if expected else "")
    parts.append("<h2>Each student's highest match</h2>" + ("<p>reference: the share of the student's code (beyond "
                 "the starter) that is also the reference's, token for token once names are folded; high in a lab "
                 "whose plain solution is short (lab 1), telling in a long one.</p>" if expected else "")
                 + "<table><tr><th>student</th><th>share of their code</th><th>found in</th>" + ref + "</tr>"
                 + "".join(rows) + "</table>")
    rows = []
    for i, p in enumerate(pairs[:TABLE_MAX]):
        link = f'<a href="#pair{anchor[id(p)]}">{i + 1}</a>' if id(p) in anchor else str(i + 1)
        rows.append(f"<tr><td>{link}</td><td>{_name(p.a.name)}</td><td>{_name(p.b.name)}</td>"
                    f"<td>{_pct(p.share_a)}</td><td>{_pct(p.share_b)}</td><td>{len(p.fragments)}</td>"
                    f"<td>{p.longest}</td></tr>")
    if pairs:
        parts.append("<h2>Pairs</h2><table><tr><th>#</th><th>student</th><th>student</th><th>share of the first</th>"
                     "<th>share of the second</th><th>fragments</th><th>longest (tokens)</th></tr>"
                     + "".join(rows) + "</table>")
        if len(pairs) > TABLE_MAX:
            parts.append(f"<p>(and {len(pairs) - TABLE_MAX} more pairs, lower: similarity.csv)</p>")
    for i, p in enumerate(shown):
        ra = [p.a.span(f[0], f[1]) for f in p.fragments]
        rb = [p.b.span(f[2], f[3]) for f in p.fragments]
        parts.append(f'<h2 id="pair{i}">{i + 1}. {_name(p.a.name)} ({_pct(p.share_a)}) and {_name(p.b.name)} '
                     f'({_pct(p.share_b)}): {len(p.fragments)} fragment(s)</h2><p>Fragment [n] on one side is '
                     'fragment [n] on the other: click it to go there.</p>'
                     f'<div class="pair"><div><h3>{_name(p.a.name)}</h3><pre>'
                     f'{marked(p.a.text, ra, f"p{i}a", f"p{i}b")}</pre></div>'
                     f'<div><h3>{_name(p.b.name)}</h3><pre>{marked(p.b.text, rb, f"p{i}b", f"p{i}a")}</pre>'
                     '</div></div>')
    parts.append("</body></html>\n")
    return "\n".join(parts)


def clusters(pairs, at=SHOW_AT):
    """Groups of three or more students joined by pairs scoring `at` or more (connected components),
    largest first."""
    parent = {}

    def root(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for p in pairs:
        if p.score >= at:
            parent[root(p.a.name)] = root(p.b.name)
    groups = defaultdict(list)
    for x in list(parent):
        groups[root(x)].append(x)
    return sorted((sorted(g) for g in groups.values() if len(g) >= 3), key=lambda g: (-len(g), g))


def highest(pairs):
    """{student: their highest-scoring Pair} (by their own share first)."""
    best = {}
    for p in pairs:
        for me, share in ((p.a.name, p.share_a), (p.b.name, p.share_b)):
            if me not in best or share > best[me][0]:
                best[me] = (share, p)
    return best


def csv_text(pairs):
    """similarity.csv: a line per pair, highest score first."""
    out = [escape.csv_row(["a", "b", "share_a", "share_b", "shared_tokens", "longest_fragment_tokens",
                           "fragments"])]
    for p in pairs:
        out.append(escape.csv_row([p.a.name, p.b.name, f"{p.share_a:.3f}", f"{p.share_b:.3f}", str(p.tokens),
                                   str(p.longest), str(len(p.fragments))]))
    return "".join(out)
