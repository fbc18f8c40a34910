"""What a bubblewrap sandbox shows besides the command's own build tree: the
system's folders and the toolchain's, read-only, and the folders of the tree
that student code must not read, replaced by stubs (sandbox.py builds the
mount list from these)."""

import os
import re
import shutil
import stat
from pathlib import Path

# The system's folders a bwrap sandbox shows, read-only (a symbolic link, as
# /bin -> usr/bin on merged-/usr systems, is recreated as the same link).
# /opt holds toolchains (CUDA, compilers) on some machines; /sys the CPU's
# cache sizes and the GPU's description, which the harness and CUDA read.
SYSTEM_DIRS = ("/usr", "/etc", "/opt", "/sys", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Folders of a student's build tree (a copy of this checkout) that student
# code must not read: the reference solutions, the tests of the reference's
# internals, the grader and its tests. Each
# is replaced, in the sandbox, by a copy whose files are empty but keep their
# names and modification times, so that make still finds every prerequisite
# up to date; the files a rebuild of the student's code needs (the given
# headers of labs 3 and 4, found from the starter build's dependency files)
# keep their content. See masks_for_lab.
MASKED_FOLDERS = ("solutions", "tests/reference", "tools", "tests/grading")


def _under(path, folders):
    return any(path == Path(f) or Path(f) in path.parents for f in folders)


def _reachable_by_all(path):
    """Every folder down to `path` lets others through, and `path` lets them read: the grading user (any)
    can see it, so bubblewrap, running as that user, can show it."""
    try:
        if not path.stat().st_mode & stat.S_IROTH:
            return False
        return all(p.stat().st_mode & stat.S_IXOTH for p in [path] + list(path.parents))
    except OSError:
        return False


def toolchain_dirs(config_mk=None, private=()):
    """Folders outside SYSTEM_DIRS that builds and tests need, for bwrap to show read-only: the compilers'
    installations (g++, nvcc, mpirun, $MML_MPIRUN, $CXX, $CC, $NVCC: where a cluster's module system puts them), CUDA_HOME (the
    environment's, or build/config.mk's), the library, include and pkg-config paths of the environment, and
    MMLAB_SANDBOX_DIRS (colon-separated, for what the rest misses). Left out: what lies in `private` (the
    submissions, OUT, this checkout) and what not every user may read (a folder under /root)."""
    wanted = []
    tools = {"g++", "nvcc", "mpirun"} | {os.environ.get(v) for v in ("MML_MPIRUN", "CXX", "CC", "NVCC")}
    for tool in tools - {None, ""}:
        found = shutil.which(tool)
        if found:
            wanted.append(Path(os.path.realpath(found)).parent.parent)  # .../bin/g++ -> its installation
    homes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    if config_mk and Path(config_mk).is_file():
        m = re.search(r"^CUDA_HOME\s*:?=\s*(\S+)", Path(config_mk).read_text(errors="replace"), re.M)
        homes.append(m.group(1) if m else None)
    wanted += [Path(h) for h in homes if h]
    for var in ("LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "PKG_CONFIG_PATH",
                "MMLAB_SANDBOX_DIRS"):
        wanted += [Path(p) for p in os.environ.get(var, "").split(":") if p]
    shown = []
    for d in wanted:
        d = Path(os.path.realpath(d))
        if not d.is_absolute() or not d.is_dir() or d == Path("/") or _under(d, SYSTEM_DIRS) or \
                _under(d, [Path(p).resolve() for p in private]) or any(p in d.parents for p in private) or \
                not _reachable_by_all(d) or any(d == s or s in d.parents for s in shown):
            continue
        shown = [s for s in shown if d not in s.parents] + [d]
    return tuple(sorted(shown))


def lab_object_prerequisites(tree, lab_folder):
    """For every object of `tree`'s build (its -MMD dependency files under build/obj) that depends on a file
    of `lab_folder` (a lab's folder, labs/labN): the list of its prerequisites as the compiler wrote them (relative
    to the tree, or absolute) - every header it read, however the #include was written."""
    prefix = lab_folder.rstrip("/") + "/"
    for d in sorted((Path(tree) / "build" / "obj").rglob("*.d")):
        try:
            text = d.read_text("utf-8", "replace")
        except OSError:
            continue
        first_rule = text.replace("\\\n", " ").split("\n", 1)[0]
        deps = first_rule.split(":", 1)[1].split() if ":" in first_rule else []
        if any(os.path.normpath(p).startswith(prefix) for p in deps):
            yield deps


def masks_for_lab(base, lab_folder, dest):
    """The stubs of MASKED_FOLDERS for a student's tree (a copy of the starter tree `base`), written under
    `dest`: [(stub, relative folder)]. Every file keeps its name and modification time; only those the build
    of a student's code may read keep their content: the prerequisites (from the starter build's -MMD
    dependency files) of every object that depends on a file of the lab's folder."""
    needed = set()
    for deps in lab_object_prerequisites(base, lab_folder):
        needed.update(os.path.normpath(p) for p in deps)
    masks = []
    for rel in MASKED_FOLDERS:
        src = base / rel
        if not src.is_dir() or src.is_symlink():
            continue
        stub = dest / rel
        for root, dirs, files in os.walk(src):
            r = Path(root).relative_to(base)
            (dest / r).mkdir(parents=True, exist_ok=True)
            for name in files:
                f, s = Path(root) / name, dest / r / name
                if f.is_symlink() or not f.is_file():
                    continue
                if str(r / name) in needed:
                    shutil.copyfile(f, s)
                else:
                    s.touch()
                os.chmod(s, 0o644)
                st = f.stat()
                os.utime(s, ns=(st.st_atime_ns, st.st_mtime_ns))
        for root, dirs, files in os.walk(src, topdown=False):  # folders last: writing into them changed their times
            r = Path(root).relative_to(base)
            os.chmod(dest / r, 0o755)
            st = Path(root).stat()
            os.utime(dest / r, ns=(st.st_atime_ns, st.st_mtime_ns))
        masks.append((stub, rel))
    return masks
