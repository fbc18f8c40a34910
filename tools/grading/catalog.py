"""The lab catalog (labs/catalog.txt): which labs exist, and for each its kind
(cpu or gpu), its doctest suites, its demo stages and its title. The grader
takes every fact about a lab from here, as the Makefile and the harness do
(harness/catalog.cpp reads the same file the same way), so that adding a lab
is one line in the catalog and nothing in tools/grading.

A line is five columns separated by '|':  number | kind | suites | demo | title
('-' in suites or demo: none); '#' starts a comment line. The catalog's own
header says what each column means.
"""

import re
from dataclasses import dataclass

from .common import REPO, SetupError

CATALOG = REPO / "labs" / "catalog.txt"

# The catalog's convention (its header: "suites labN / gpu-labN"): a suite
# whose name starts so holds GPU tests (tests/gpu/), which are built only
# with CUDA and run only where a GPU is.
GPU_SUITE_PREFIX = "gpu-"


# The Makefile's convention (MPI_ONLY): a starter file named so is MPI code, built into a program that
# mpirun starts.
MPI_FILE_PATTERNS = ("*_mpi.cpp", "*_nccl.cu")


def is_gpu_suite(suite):
    return suite.startswith(GPU_SUITE_PREFIX)


@dataclass(frozen=True)
class Lab:
    number: int
    kind: str            # "cpu" or "gpu"
    suites: tuple        # the doctest suites that make labN and the grader run
    demo: tuple          # the stages `make demo` shows
    title: str

    @property
    def folder(self):
        """The starter's folder, relative to the repository: what students edit and hand in."""
        return f"labs/lab{self.number}"

    @property
    def needs_cuda(self):
        """A GPU lab, or a CPU lab with GPU test suites (its CPU code is checked
        against GPU measurements): either way the build must have CUDA, and the
        CUDA runtime's address space rules out the memory limit."""
        return self.kind == "gpu" or any(is_gpu_suite(s) for s in self.suites)

    @property
    def needs_mpi(self):
        """A lab whose starter has MPI code (MPI_FILE_PATTERNS): its tests start programs with mpirun."""
        return any(any((REPO / self.folder).glob(p)) for p in MPI_FILE_PATTERNS)


class CatalogError(SetupError):
    """labs/catalog.txt is malformed: a mistake in the checkout, not in the command line."""


def _words(column):
    return tuple(w for w in column.split() if w != "-")


def parse_catalog(text, source="labs/catalog.txt"):
    """The labs of a catalog's text, by number. Raises CatalogError naming the wrong line."""
    labs = {}
    for line_number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue

        def bad(why):
            return CatalogError(f"{source}:{line_number}: {why}, in '{stripped}' (fix the catalog)")

        columns = [c.strip() for c in line.split("|")]
        if len(columns) != 5:
            raise bad("5 columns separated by '|' expected")
        number, kind, suites, demo, title = columns
        if not re.fullmatch(r"[0-9]+", number) or int(number) < 1:
            raise bad("the lab number must be a whole number >= 1")
        if kind not in ("cpu", "gpu"):
            raise bad("the kind must be cpu or gpu")
        if int(number) in labs:
            raise bad(f"lab {int(number)} is listed twice")
        labs[int(number)] = Lab(int(number), kind, _words(suites), _words(demo), title)
    return [labs[n] for n in sorted(labs)]


def read_catalog(path=CATALOG):
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CatalogError(f"cannot read the lab catalog {path}: {e}")
    source = path.relative_to(REPO) if REPO in path.parents else path
    return parse_catalog(text, str(source))


def find_lab(labs, number):
    """The catalog's entry for lab `number`, or None."""
    return next((lab for lab in labs if lab.number == number), None)


def number_list(numbers):
    """1-10 for a run without gaps, else 1, 2, 5 (for messages)."""
    numbers = sorted(numbers)
    if len(numbers) > 2 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}-{numbers[-1]}"
    return ", ".join(map(str, numbers))
