#!/usr/bin/env python3
"""Unit tests of tools/grading/catalog.py: labs/catalog.txt read as the
grader reads it (numbers, kinds, suites, which labs need CUDA), malformed
catalogs refused with the line that is wrong, and no lab number or kind
written into tools/grading itself. Run from anywhere; no build needed."""
import sys
sys.dont_write_bytecode = True
import re

import checks
from checks import REPO, Scratch, check, raises
from grading import catalog
from grading.common import SetupError

GOOD = """# a comment line, then a blank one

1  | cpu | lab1          | lab1.ijk lab1.ikj | first lab
3  | gpu | gpu-lab3      | -                 | a GPU lab, no demo
2  | cpu | lab2 gpu-lab2 | lab2.x            | CPU code, GPU tests | extra
"""


def real_catalog():
    labs = catalog.read_catalog()
    check(len(labs) >= 1 and [l.number for l in labs] == sorted(l.number for l in labs),
          "the repository's catalog reads, in lab-number order", str([l.number for l in labs]))
    check(all(l.suites for l in labs), "every lab of the repository's catalog has a test suite",
          str([l.number for l in labs if not l.suites]))
    check(all(l.kind in ("cpu", "gpu") for l in labs), "every lab is cpu or gpu")
    check(all(not l.needs_cuda for l in labs if l.kind == "cpu" and not any(catalog.is_gpu_suite(s) for s in l.suites)),
          "a CPU lab without GPU suites needs no CUDA (built with CUDA=0 from scratch, memory limit on)")
    check(all(l.needs_cuda for l in labs if l.kind == "gpu"), "every GPU lab needs CUDA")
    # The Makefile reads the same column: each lab's suites are what `make labN` runs.
    text = (REPO / "labs" / "catalog.txt").read_text()
    for l in labs:
        row = next(line for line in text.splitlines() if re.match(rf"\s*{l.number}\s*\|", line))
        check(row.split("|")[2].split() == list(l.suites), f"lab {l.number}'s suites are the catalog's third column",
              f"{row!r} -> {l.suites}")


def parsing():
    fine = raises(SetupError, catalog.parse_catalog, GOOD.replace(" | extra", ""))
    check(fine is None, "a well-formed catalog parses", str(fine))
    labs = catalog.parse_catalog(GOOD.replace(" | extra", ""))
    check([l.number for l in labs] == [1, 2, 3], "labs come sorted by number, comments and blank lines skipped")
    lab2 = catalog.find_lab(labs, 2)
    check(lab2.suites == ("lab2", "gpu-lab2") and lab2.demo == ("lab2.x",) and lab2.title == "CPU code, GPU tests",
          "columns: suites and demo split into words, the title kept whole", str(lab2))
    check(lab2.kind == "cpu" and lab2.needs_cuda, "a CPU lab with a gpu- suite needs CUDA (as lab 10 does)")
    lab3 = catalog.find_lab(labs, 3)
    check(lab3.demo == () and lab3.needs_cuda and lab3.folder == "labs/lab3", "'-' is no demo stage; a gpu lab needs CUDA")
    check(catalog.find_lab(labs, 4) is None, "find_lab: None for a lab the catalog lacks")


def malformed():
    cases = [
        ("a line with 6 columns", GOOD, ":5:", "5 columns"),
        ("a line with 3 columns", "1 | cpu | lab1\n", ":1:", "5 columns"),
        ("a lab number that is not a number", "one | cpu | lab1 | - | t\n", ":1:", "whole number"),
        ("lab number 0", "0 | cpu | lab0 | - | t\n", ":1:", "whole number"),
        ("a kind that is neither cpu nor gpu", "1 | tpu | lab1 | - | t\n", ":1:", "cpu or gpu"),
        ("a lab listed twice", "1 | cpu | lab1 | - | t\n# x\n1 | gpu | gpu-lab1 | - | t\n", ":3:", "twice"),
    ]
    for what, text, where, why in cases:
        e = raises(catalog.CatalogError, catalog.parse_catalog, text, "labs/catalog.txt")
        check(e is not None and isinstance(e, SetupError) and where in str(e) and why in str(e),
              f"malformed catalog, {what}: refused, naming the line ({where}) and why", str(e))
    with Scratch() as tmp:
        e = raises(catalog.CatalogError, catalog.read_catalog, tmp / "catalog.txt")
        check(e is not None and "cannot read the lab catalog" in str(e), "a missing catalog: cannot grade, says so", str(e))
        (tmp / "catalog.txt").write_bytes(b"1 | cpu | lab1 | - | \xff\xfe\n")
        e = raises(catalog.CatalogError, catalog.read_catalog, tmp / "catalog.txt")
        check(e is not None, "a catalog that is not UTF-8: cannot grade", str(e))
    check(catalog.parse_catalog("# only comments\n\n") == [], "a catalog of comments only has no labs")


def number_lists():
    check(catalog.number_list([3, 1, 2, 4]) == "1-4", "number_list: a run without gaps is 1-4")
    check(catalog.number_list([1, 2, 5]) == "1, 2, 5", "number_list: with gaps, every number")
    check(catalog.number_list([1, 2]) == "1, 2" and catalog.number_list([]) == "", "number_list: short lists as they are")


def mpi_labs():
    labs = catalog.read_catalog()
    mpi = [l for l in labs if l.needs_mpi]
    check(mpi and all(any((REPO / l.folder).glob("*_mpi.cpp")) for l in mpi) and
          all(not any((REPO / l.folder).glob("*_mpi.cpp")) for l in labs if l not in mpi),
          "needs_mpi: the labs whose starter has MPI code (*_mpi.cpp, *_nccl.cu), and only those",
          str([l.number for l in mpi]))


def nothing_hard_coded():
    """Adding a lab is one catalog line: no module may know a lab's number, suite or kind by itself."""
    sources = sorted((REPO / "tools" / "grading").glob("*.py")) + [REPO / "tools" / "grade.py"]
    numbered = [f"{p.name}:{i}" for p in sources for i, line in enumerate(p.read_text().splitlines(), 1)
                if re.search(r"\blab[0-9]|gpu-lab\{|suite=lab\{", line)]
    check(not numbered, "no lab number or suite name is written into tools/grading or tools/grade.py", str(numbered))
    kinds = [f"{p.name}:{i}" for p in sources if p.name != "catalog.py"
             for i, line in enumerate(p.read_text().splitlines(), 1) if re.search(r"\.kind\b", line)]
    check(not kinds, "only catalog.py looks at a lab's kind (the rest asks lab.needs_cuda)", str(kinds))


real_catalog()
parsing()
malformed()
number_lists()
mpi_labs()
nothing_hard_coded()
checks.finish("catalog")
