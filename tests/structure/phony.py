"""The make targets a tree declares: its .PHONY lines in Makefile and make/*.mk.

One reader for the two checks that need it: doc_paths.py (this repository: a
target a document names must exist) and release_paths.py (a student release:
a target its files name must be one the release can run).
"""
import re
from pathlib import Path


def phony_targets(root, unreadable=None):
    """The .PHONY targets under root. A $(VAR) is read from its `VAR := ...` line;
    $(LABS) is lab<N> for each lab of labs/catalog.txt. A variable whose value
    cannot be read (it holds another $(...)) goes to unreadable(word) when given,
    else it is left out."""
    root = Path(root)
    parts = [root / "Makefile"] + sorted((root / "make").glob("*.mk"))
    text = "\n".join(p.read_text(errors="replace") for p in parts if p.is_file())
    names = set()
    for m in re.finditer(r"^\.PHONY:(.*)$", text, re.M):
        for word in m.group(1).split():
            var = re.fullmatch(r"\$\((\w+)\)", word)
            if not var:
                names.add(word)
            elif var.group(1) == "LABS":  # $(addprefix lab,$(LAB_NUMBERS)): the catalog's labs
                catalog = root / "labs" / "catalog.txt"
                if catalog.is_file():
                    names |= {"lab" + n for n in re.findall(r"^\s*(\d+)\s*\|", catalog.read_text(), re.M)}
            else:
                d = re.search(r"^%s\s*:=(.*)$" % var.group(1), text, re.M)
                if d and "$" not in d.group(1):
                    names |= set(d.group(1).split())
                elif unreadable:
                    unreadable(word)
    return names
