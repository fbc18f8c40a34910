#!/usr/bin/env python3
"""--similarity's time for a large class (handouts/grading.md, "Similarity
across the class"):

  python3 tests/grading/similarity_scale.py [N]      (N = 500 by default)

Makes a class of N lab 2 submissions, every one a copy of one of the three
independent solutions of tests/grading/similarity_lab2/, disguised in turn by
each of test_similarity_labs.py's disguises (the worst case: every student
shares most of their code with a third of the class), and times
similarity.class_similarity on it as the grader calls it (the reference as
expected code, similarity.html and similarity.csv written). Prints the
seconds (wall and processor: on a busy machine the first is the second
times the contention), the pairs found and the pairs at the threshold. Not
a unit test: about 20 s of processor time."""
import sys
sys.dont_write_bytecode = True
import time
from pathlib import Path

import checks
from checks import Scratch
from grading import similarity
from grading.catalog import Lab
from grading.common import REPO
from test_similarity_labs import DISGUISES

HERE = Path(__file__).resolve().parent


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    originals = [(HERE / "similarity_lab2" / f"{o}.cpp").read_text() for o in ("alpha", "beta", "gamma")]
    starter = (REPO / "labs" / "lab2" / "locality.cpp").read_text()
    header = (REPO / "labs" / "lab2" / "locality.h").read_text()
    with Scratch() as tmp:
        students = []
        for i in range(n):
            _, disguise = DISGUISES[(i // 3) % len(DISGUISES)]
            d = tmp / "subs" / f"student{i:04d}" / "labs" / "lab2"
            d.mkdir(parents=True)
            (d / "locality.cpp").write_text(disguise(originals[i % 3], starter))
            (d / "locality.h").write_text(header)
            students.append(d.parent.parent)
        out = tmp / "out"
        out.mkdir()
        t0, c0 = time.monotonic(), time.process_time()
        lines = similarity.class_similarity(students, Lab(2, "cpu", ("lab2",), (), "memory locality"),
                                            ["locality.cpp", "locality.h"], REPO / "labs" / "lab2", out)
        seconds, cpu = time.monotonic() - t0, time.process_time() - c0
        pairs = len((out / "similarity.csv").read_text().splitlines()) - 1
        print(f"{n} submissions: {seconds:.1f} s ({cpu:.1f} s of processor time), {pairs} pairs sharing code; "
              f"similarity.html {(out / 'similarity.html').stat().st_size // 1024} KiB")
        print(lines[0])


main()
