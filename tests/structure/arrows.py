#!/usr/bin/env python3
"""Arrows point down only (the instructors' ARCHITECTURE.md): no include runs upward, no import
runs in a circle.

  C++/CUDA: a file in a folder of the left column includes nothing from the
  folders on its right (its own folder and those below it are fine):
      cpu/                 labs/ solutions/ harness/ models/ peers/ gpu/ tests/
      gpu/                 labs/ solutions/ harness/ models/ peers/ tests/
      models/              labs/ solutions/ harness/ peers/ gpu/ tests/
      peers/               labs/ solutions/ harness/ models/ tests/
      labs/                solutions/ harness/ peers/ tests/
      solutions/           harness/ peers/ tests/
  (labs/ and solutions/ may use models/: lab 10's students write a model's
  pieces. harness/ knows everything below it; tests/ know everything.)
  Python: the modules of tools/grading (the instructors') import each other without a cycle (a
  module that needs another's piece, and is needed by it, means the piece
  belongs in a third module, or is passed in: cli.py hands slurm_worker.worker the
  function that reads a command line back). Imports
  inside functions count too: a cycle hidden in a function is still one.

Run from anywhere; prints one FAIL line per upward include or cycle, exits 1 if any.
"""
import ast
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
SOURCES = {".cpp", ".cu", ".cuh", ".h"}
NOT_ABOVE = {
    "cpu": ["labs", "solutions", "harness", "models", "peers", "gpu", "tests"],
    "gpu": ["labs", "solutions", "harness", "models", "peers", "tests"],
    "models": ["labs", "solutions", "harness", "peers", "gpu", "tests"],
    "peers": ["labs", "solutions", "harness", "models", "tests"],
    "labs": ["solutions", "harness", "peers", "tests"],
    "solutions": ["harness", "peers", "tests"],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def upward_includes():
    for folder, banned in NOT_ABOVE.items():
        for f in sorted((REPO / folder).rglob("*")):
            if f.suffix not in SOURCES or not f.is_file():
                continue
            for target in INCLUDE.findall(f.read_text(errors="replace")):
                top = target.split("/", 1)[0]
                if top in banned:
                    yield f"{f.relative_to(REPO)} includes {target}: {folder}/ is below {top}/"


def grading_imports(package):
    """{module: {modules of the package it imports}} for tools/grading (the instructors' grader)."""
    names = {p.stem for p in package.glob("*.py")}
    graph = {}
    for p in sorted(package.glob("*.py")):
        deps = set()
        for node in ast.walk(ast.parse(p.read_text(), str(p))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                else:
                    deps.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("grading."):
                deps.add(node.module.split(".")[1])
            elif isinstance(node, ast.Import):
                deps.update(a.name.split(".")[1] for a in node.names if a.name.startswith("grading."))
        graph[p.stem] = {d for d in deps if d in names and d != p.stem}
    return graph


def cycles(graph):
    """One cycle per strongly connected part of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    bad = 0
    for line in upward_includes():
        bad += 1
        print(f"FAIL {line} (move the piece both need below, or the includer up)")
    package = REPO / "tools" / "grading"
    for part in cycles(grading_imports(package)):
        bad += 1
        print(f"FAIL the instructors' tools/grading: {' <-> '.join(part)} import each other (move what they share into a third module, or pass it in)")
    if bad:
        print(f"arrows: {bad} upward include(s) or import cycle(s)")
        return 1
    print("arrows tests: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
