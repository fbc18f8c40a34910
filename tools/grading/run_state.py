"""The per-student state of a run that can stop and be run again: a local
run's .OUT.resume/ (resume.py) and a Slurm run's .OUT.slurm/ (slurm.py).
Both hold run.json (a fingerprint of the settings), results/<student>/
(results.json, feedback.txt) and rows/<student>.json (the grades.csv row and a
fingerprint of the submission), the row written last and whole, so that a
row means that student is done. This module is what both share: reading and
writing the JSON files (atomically: a killed grader leaves a file whole or
absent, never half), the fingerprints that say whether earlier results still
hold, and a student's row."""

import dataclasses
import hashlib
import json
import os
import stat

from . import build, outputs
from .common import REPO
from .intake import MAX_SUBMITTED_FILE_BYTES


def read_json(path, default=None):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default


def write_json(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    outputs.atomic_write(path, json.dumps(data, indent=1) + "\n")


# ---------------------------------------------------------------- fingerprints

# Options that change no grade: how many at a time, where temporary trees go, Slurm's own, and the similarity
# report (written after grading, from the submissions: adding it to a resumed run regrades no one).
_VOLATILE_OPTIONS = {"jobs", "build_jobs", "work", "keep", "slurm", "slurm_chunk", "slurm_cpus", "slurm_options",
                     "slurm_poll", "slurm_bin", "similarity", "similarity_min"}


# What changes no grade (the grader's own tests, the manuals): changing or committing them keeps the results.
_UNRELATED = ("tests/grading/", "handouts/", "README.md")


def _beside_out(out):
    """git pathspecs leaving out OUT and what the grader keeps beside it (.OUT.resume, .OUT.slurm, the staging
    folders) where they lie in this checkout: a run's own files must not make its own state stale."""
    try:
        rel = out.resolve().relative_to(REPO)
    except ValueError:
        return []
    return [f":(exclude){rel}", f":(exclude){rel.parent / ('.' + rel.name)}.*"]


def settings_fingerprint(inputs):
    """What the grades depend on besides the submissions: the options, the weights, the checkout (its committed
    files and uncommitted changes), the grading user. A different fingerprint makes earlier results stale."""
    opts = {k: v for k, v in sorted(vars(inputs.options).items()) if k not in _VOLATILE_OPTIONS}
    weights = inputs.weights_path.read_text("utf-8", "replace") if inputs.weights_path.is_file() else ""
    # The checkout's uncommitted changes and untracked files, but not those that change no grade (the
    # grader's own tests, the handouts): an instructor fixing a typo in the manual keeps the class's results.
    unrelated = [f":(exclude){u.rstrip('/')}" for u in _UNRELATED] + _beside_out(inputs.out)
    diff = (build.git("diff", "HEAD", "--", ".", *unrelated, binary=True) or b"") + \
        (build.git("ls-files", "--others", "--exclude-standard", "--", ".", *unrelated, binary=True) or b"")
    # The committed files the same way (their blobs, not the commit's id): committing that typo fix keeps them too.
    tree = [line for line in (build.git("ls-tree", "-r", "HEAD") or "").splitlines()
            if not line.split("\t", 1)[-1].startswith(_UNRELATED)]
    data = json.dumps({"options": opts, "weights": weights, "tree": hashlib.sha256("\n".join(tree).encode()).hexdigest(),
                       "diff": hashlib.sha256(diff).hexdigest(), "user": inputs.user.name,
                       "submissions": str(inputs.submissions.resolve()), "out": str(inputs.out)}, sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()


def _file_digest(path, st):
    """A file's part of a submission's fingerprint: its content's hash for any file the grader could take
    (up to intake's size limit: a touched but unchanged file keeps its grade, an edit of the same size and
    time does not); size and time for a bigger one (refused by intake whatever it holds, and not worth
    reading: a submission may hold gigabytes of data)."""
    if st.st_size > MAX_SUBMITTED_FILE_BYTES:
        return f"big {st.st_size} {st.st_mtime_ns}"
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 16), b""):
                h.update(block)
    except OSError as e:
        return f"unreadable {e.errno}"
    return h.hexdigest()


def submission_fingerprint(folder):
    """The student's folder as it is now (every name, its kind and mode; a regular file's content, a link's
    target): a resubmission changes it, and is graded again on the next run."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(root, d))]):
            p = os.path.join(root, name)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                what = "link " + os.readlink(p)
            elif stat.S_ISREG(st.st_mode):
                what = _file_digest(p, st)
            else:
                what = "other"
            h.update(os.fsencode(os.path.relpath(p, folder)) + f"\0{st.st_mode:o}\0".encode() +
                     os.fsencode(what) + b"\n")
    return h.hexdigest()


# ---------------------------------------------------------------- rows

def row_path(state, student_folder):
    return state / "rows" / (outputs.safe_name(student_folder.name) + ".json")


def row_to_json(row, fingerprint):
    return {"row": dataclasses.asdict(row), "submission": fingerprint}


def save_row(state, student_folder, row, fingerprint):
    """The student's row, written after their results.json and feedback.txt: from now on they are done."""
    write_json(row_path(state, student_folder), row_to_json(row, fingerprint))


def read_row(state, student_folder):
    """The student's row from an earlier run or task, or None when they are not done (or resubmitted since)."""
    data = read_json(row_path(state, student_folder))
    if not data or data.get("submission") != submission_fingerprint(student_folder):
        return None
    if not (state / "results" / outputs.safe_name(student_folder.name) / "results.json").is_file():
        return None
    return outputs.StudentRow(**data["row"])
