"""--similarity: which submissions of a class share more code than the
starter gives them, for an instructor to look at (it never changes a score:
similar code is a question, not a verdict).

How two programs are compared (standard library only, nothing to install):
  1. Each student's document (their lab files, as intake.py finds them, one
     after the other) becomes a list of normalized tokens (simtokens.py:
     names and literals folded, and the edits students make to hide a copy
     undone: increments, compound assignments, loop forms, operand order,
     integer type names, comments, layout).
  2. Every run of K tokens (a k-gram) is hashed; a document's fingerprint is
     the k-grams winnowing picks (the smallest hash of every window of W
     consecutive k-grams: Schleimer, Wilkerson and Aiken, "Winnowing: local
     algorithms for document fingerprinting", SIGMOD 2003, the algorithm of
     MOSS). Every shared run of K + W - 1 tokens or more is found; one
     shorter than K never is.
  3. Excluded, so that it never counts: every k-gram of the starter's lab
     files; every k-gram of the expected code, the lab's reference solution
     (solutions/labN/, the files of the starter's names) where the checkout
     has it: what every correct solution is bound to contain, as MOSS's base
     file and JPlag's base code (lab 1's loop orders, written the plain way,
     are the reference's token for token once names are folded, and would
     otherwise make two honest students look alike in a small class); and
     every k-gram found in more than half of the submissions (and in at
     least COMMON_MIN of them: what the lab makes everybody write). A
     student who hands in the reference itself is therefore not found by
     comparing students: each student's share of the reference's k-grams is
     shown on its own (the page's "reference" column), a question apart.
  4. Two documents sharing a fingerprint are compared: from each shared
     k-gram the match is grown both ways while the tokens agree (never into
     the starter's code; through code common to the class, which does not
     count), and each fragment of K tokens or more in which MIN_COUNTED
     tokens or more count is kept, each token in one fragment at most
     (greedy tiling, as JPlag's). A student's share is the part of their
     own code (not excluded) that lies in fragments found in the other's.
     The pair ranks by the higher share.

Written into OUT (similarity_report.py):
  similarity.html  the distribution of the pairs' scores with the threshold
                   (SHOW_AT) marked, clusters (three or more students joined
                   by pairs at or above it), each student's highest match,
                   the ranked pairs, and for the pairs at or above SHOW_AT
                   both documents side by side, the fragments numbered,
                   each in its colour, each linked to its twin on the other
                   side. Everything from a submission is escaped.
  similarity.csv   one line per pair: a, b, share_a, share_b, shared
                   tokens, longest fragment (tokens), fragments.
"""

import hashlib
import itertools
import os
from collections import defaultdict
from pathlib import Path

from . import escape, intake, simtokens
from .common import REPO
from .similarity_report import SHOW_AT, clusters, csv_text, html_page

# A k-gram is K tokens; winnowing keeps one of every W consecutive k-grams (shared runs of K + W - 1 tokens
# are always found). Measured on lab 2 (tests/grading/test_similarity.py's class of six: three independent
# solutions, two disguised copies, a starter; nothing common to the class excluded): independent pairs reach
# 32% at K = 12 (short idiomatic loops alike), 27% at K = 20; the copies score 99-100% at K = 16 and 20, the
# while-loop copy of alpha 90% at K = 24.
K, W = 20, 8
# Places of one k-gram in a document tried as the seed of a fragment (a line repeated 10,000 times in two
# documents would otherwise be 10^8 seeds).
MAX_SEEDS = 16
# A fragment (K tokens or more in a row, shared, none the starter's) counts where MIN_COUNTED of its tokens or
# more are neither the expected code's nor the class's. Measured on the test classes of labs 1, 5 and 7
# (tests/grading/test_similarity_labs.py): at 20 (= K) the small parts of a copy that differ from the reference,
# between two stretches of it, were lost (an exact copy of lab 1's beta 86%, a copy of a lab 7 kernel close to
# the reference 0%); at 5 every copy scores 53% or more and independent pairs 9% or less.
MIN_COUNTED = 5
# summary.txt counts the submissions whose code (beyond the starter) is this share or more the reference's.
REFERENCE_LIKE = 0.9
# A k-gram counts as "what everybody writes" in more than this share of the submissions, and at least this many.
COMMON_SHARE, COMMON_MIN = 0.5, 5


def submission_text(folder, lab_number, lab_files):
    """A student's lab files (as graded: found by intake, plain files within the size limit) one after the
    other, each after a comment line naming it; "" when there are none."""
    src, _ = intake.find_lab_files(folder, lab_number, lab_files)
    if src is None:
        return ""
    parts = []
    for n in sorted(lab_files):
        f = src / n
        if f.is_file() and not f.is_symlink() and f.stat().st_size <= intake.MAX_SUBMITTED_FILE_BYTES:
            parts.append(f"// ==== {n} ====\n" + f.read_text("utf-8", "replace"))
    return "\n".join(parts)


class Document:
    """One submission as compared: its text, normalized tokens, the hash of the k-gram at every position,
    its winnowed fingerprint {hash: [positions]} and which tokens are excluded (set by exclude())."""

    def __init__(self, name, text):
        self.name, self.text = name, text
        self.tokens = simtokens.tokens(text)
        self.symbols = [t[0] for t in self.tokens]
        self.hashes = kgram_hashes(self.symbols)
        self.prints = winnow(self.hashes)
        self.excluded = bytearray(len(self.tokens))  # the starter's tokens, the expected code's, the class's
        self.boiler = bytearray(len(self.tokens))  # the starter's
        self.own = len(self.tokens)  # tokens not excluded
        self.expected_share = 0.0  # the share of the tokens not the starter's that lie in the expected code

    def exclude(self, starter, common, expected=frozenset()):
        """Marks the tokens of the k-grams in starter (a fragment never crosses them) and in common or expected
        (a fragment may run through them, they never count); drops all three from the fingerprint."""
        self.boiler = bytearray(len(self.tokens))
        in_expected = bytearray(len(self.tokens))
        for p, h in enumerate(self.hashes):
            if h in starter:
                self.boiler[p:p + K] = b"\x01" * K
                self.excluded[p:p + K] = b"\x01" * K
            elif h in common or h in expected:
                self.excluded[p:p + K] = b"\x01" * K
                if h in expected:
                    in_expected[p:p + K] = b"\x01" * K
        self.own = len(self.tokens) - sum(self.excluded)
        mine = len(self.tokens) - sum(self.boiler)
        self.expected_share = sum(e and not b for e, b in zip(in_expected, self.boiler)) / mine if mine else 0.0
        self.prints = {h: ps for h, ps in self.prints.items()
                       if h not in starter and h not in common and h not in expected}

    def span(self, start, end):
        """The source [start, end) of tokens [start, end)."""
        toks = self.tokens[start:end]
        return min(t[1] for t in toks), max(t[2] for t in toks)


def kgram_hashes(symbols):
    """The 64-bit hash of the k-gram starting at every position (the same in every run: not Python's hash())."""
    return [int.from_bytes(hashlib.blake2b("\x1f".join(symbols[p:p + K]).encode(), digest_size=8).digest(),
                           "big") for p in range(len(symbols) - K + 1)]


def winnow(hashes):
    """{hash: [positions]}: in every window of W consecutive k-grams, the smallest hash (the rightmost of
    equal ones), each position once."""
    picked = {}
    for w in range(max(len(hashes) - W + 1, 1 if hashes else 0)):
        window = hashes[w:w + W]
        low = min(window)
        p = w + max(i for i, h in enumerate(window) if h == low)
        picked[p] = low
    prints = defaultdict(list)
    for p in sorted(picked):
        prints[picked[p]].append(p)
    return dict(prints)


class Pair:
    """Two documents' comparison: fragments [(a_start, a_end, b_start, b_end)] in tokens, the shares."""

    def __init__(self, a, b, fragments):
        self.a, self.b, self.fragments = a, b, fragments
        self.tokens = sum(f[4] for f in fragments)
        self.share_a = min(1.0, self.tokens / a.own) if a.own else 0.0
        self.share_b = min(1.0, self.tokens / b.own) if b.own else 0.0
        self.score = max(self.share_a, self.share_b)
        self.longest = max((f[4] for f in fragments), default=0)


def fragments(a, b):
    """[(a_start, a_end, b_start, b_end, tokens that count)]: the fragments a and b share, grown from each
    shared fingerprint both ways while the tokens agree, never into the starter's code nor a token already in
    a fragment; kept where K tokens or more of it count (are not common to the class)."""
    used_a, used_b = bytearray(len(a.tokens)), bytearray(len(b.tokens))
    seeds = sorted((pa, pb) for h in a.prints.keys() & b.prints.keys()
                   for pa in a.prints[h][:MAX_SEEDS] for pb in b.prints[h][:MAX_SEEDS])
    out = []
    sa, sb = a.symbols, b.symbols

    def free(i, j):
        return (0 <= i < len(sa) and 0 <= j < len(sb) and sa[i] == sb[j] and not a.boiler[i]
                and not b.boiler[j] and not used_a[i] and not used_b[j])
    for pa, pb in seeds:
        if used_a[pa] or used_b[pb] or sa[pa:pa + K] != sb[pb:pb + K]:
            continue
        s = 0
        while free(pa + s - 1, pb + s - 1):
            s -= 1
        e = 0
        while free(pa + e, pb + e):
            e += 1
        counted = min(e - s - sum(a.excluded[pa + s:pa + e]), e - s - sum(b.excluded[pb + s:pb + e]))
        if e - s >= K and counted >= MIN_COUNTED:
            out.append((pa + s, pa + e, pb + s, pb + e, counted))
            used_a[pa + s:pa + e] = b"\x01" * (e - s)
            used_b[pb + s:pb + e] = b"\x01" * (e - s)
    return sorted(out)


def compare(documents, starter_text, expected_text=""):
    """[Pair] of every two documents ({name: text}) sharing fragments beyond the starter (and the expected
    code, expected_text), highest score first, and {name: Document}."""
    docs = {n: Document(n, t) for n, t in sorted(documents.items()) if t.strip()}
    starter = set(kgram_hashes(simtokens_symbols(starter_text))) if starter_text else set()
    expected = set(kgram_hashes(simtokens_symbols(expected_text))) - starter if expected_text else set()
    seen = defaultdict(int)
    for d in docs.values():
        for h in set(d.hashes):
            seen[h] += 1
    common = {h for h, c in seen.items() if c > COMMON_SHARE * len(docs) and c >= COMMON_MIN}
    index = defaultdict(list)
    for d in docs.values():
        d.exclude(starter, common, expected)
        for h in d.prints:
            index[h].append(d.name)
    candidates = set()
    for names in index.values():
        candidates.update(itertools.combinations(names, 2))
    pairs = []
    for x, y in sorted(candidates):
        frags = fragments(docs[x], docs[y])
        if frags:
            pairs.append(Pair(docs[x], docs[y], frags))
    pairs.sort(key=lambda p: (-p.score, p.a.name, p.b.name))
    return pairs, docs


def simtokens_symbols(text):
    return [t[0] for t in simtokens.tokens(text)]


def ranked_pairs(documents, starter_text, expected_text=""):
    """[(score, name_a, name_b, (share_a, share_b), shared tokens, Pair)], highest score first."""
    return [(p.score, p.a.name, p.b.name, (p.share_a, p.share_b), p.tokens, p)
            for p in compare(documents, starter_text, expected_text)[0]]


def folder_text(folder, lab_files):
    """The lab files of one folder (the starter's, the reference's) as submission_text puts them together."""
    return "\n".join(f"// ==== {n} ====\n" + (folder / n).read_text("utf-8", "replace")
                     for n in sorted(lab_files) if (folder / n).is_file())


def class_similarity(students, lab, lab_files, starter_dir, out_dir, show_at=None, expected_dir=None):
    """Writes out_dir/similarity.html and similarity.csv for the student folders; returns summary.txt's
    lines about them. show_at: the score from which a pair is shown side by side (SHOW_AT by default);
    expected_dir: the expected code's folder (default: the reference, solutions/labN/, where it exists)."""
    show_at = SHOW_AT if show_at is None else show_at
    documents = {s.name: submission_text(s, lab.number, lab_files) for s in students}
    starter = folder_text(starter_dir, lab_files)
    expected_dir = expected_dir or REPO / "solutions" / Path(lab.folder).name
    expected = folder_text(expected_dir, lab_files) if expected_dir.is_dir() else ""
    pairs, docs = compare(documents, starter, expected)
    where = expected_dir.relative_to(REPO) if expected_dir.is_relative_to(REPO) else expected_dir.name
    said = f", nor the expected code (the reference solution, {escape.line(str(where))}/)" if expected else ""
    for name, text in ((("similarity.html", html_page(pairs, docs, lab.number, len(students), (K, W), show_at,
                                                      said))),
                       ("similarity.csv", csv_text(pairs))):
        page = out_dir / name
        tmp = page.with_name(page.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, page)
    high = [p for p in pairs if p.score >= show_at]
    groups = clusters(pairs, show_at)
    lines = [f"similarity (--similarity; no score changed): {len(high)} pair(s) share {100 * show_at:.0f}% or more "
             f"beyond the starter{' and the reference' if expected else ''}, {len(pairs)} share something, "
             f"{len(groups)} cluster(s) of three or more; "
             "similarity.html ranks them, similarity.csv lists them"]
    lines += [f"  {100 * p.score:3.0f}%  {escape.line(p.a.name)} and {escape.line(p.b.name)}" for p in high[:10]]
    if expected:
        like = sum(d.expected_share >= REFERENCE_LIKE for d in docs.values())
        lines.append(f"  {like} submission(s) {100 * REFERENCE_LIKE:.0f}% or more the reference's code, token for "
                     "token (similarity.html's 'reference' column: the plain solution in a short lab, a question in "
                     "a long one)")
    return lines

