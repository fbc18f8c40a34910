#!/usr/bin/env python3
"""Grades a folder of lab submissions: `make grade SUBMISSIONS=dir LAB=N [OUT=dir]`,
or `python3 tools/grade.py SUBMISSIONS --lab N [flags]` (--help lists the flags).

The grader itself is the package tools/grading/ (its __init__.py lists the
modules); this file is its command. handouts/grading.md is the manual.
"""

import sys
from pathlib import Path

# The grader runs from a checkout: no compiled-bytecode folders left in it
# (they would show as untracked files and be copied into every build tree).
sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))

from grading.cli import command_line  # noqa: E402 (after the path is set)

if __name__ == "__main__":
    sys.exit(command_line(sys.argv[1:]))
