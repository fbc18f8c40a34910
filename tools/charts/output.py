"""Writing charts: PNG and PDF through rsvg-convert, and every file written
to a temporary name and renamed into place (no half-written chart)."""

import os
import shutil
import subprocess
import tempfile

from .inputs import Usage


def converted(charts, fmt):
    """{name.svg: SVG text} -> {name.fmt: bytes or text}: PNG and PDF through rsvg-convert."""
    if fmt == "svg":
        return charts
    tool = shutil.which("rsvg-convert")
    if not tool:
        raise Usage(f"--format {fmt} needs rsvg-convert: sudo apt-get install librsvg2-bin (or use the default svg)")
    out = {}
    for name, text in charts.items():
        p = subprocess.run([tool, "--format", fmt], input=text.encode("utf-8"), capture_output=True)
        if p.returncode != 0:
            raise Usage(f"rsvg-convert could not convert {name}: {p.stderr.decode(errors='replace').strip()[:200]}")
        out[name[:-4] + "." + fmt] = p.stdout
    return out


def write_all(out_dir, charts):
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        raise Usage(f"--out {out_dir}: cannot make the folder ({e.strerror}); choose a folder you can write to")
    if not os.access(out_dir, os.W_OK | os.X_OK):
        raise Usage(f"--out {out_dir}: the folder is not writable; choose a folder you can write to")
    umask = os.umask(0)
    os.umask(umask)
    temps = []
    try:
        for name, text in charts.items():
            fd, tmp = tempfile.mkstemp(prefix="." + name + ".", suffix=".tmp", dir=out_dir)
            temps.append((tmp, os.path.join(out_dir, name)))
            os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; a chart is for sharing
            with os.fdopen(fd, "wb") as f:
                f.write(text if isinstance(text, bytes) else text.encode("utf-8"))
        for tmp, dest in temps:
            os.replace(tmp, dest)
    except OSError as e:
        for tmp, _ in temps:
            if os.path.exists(tmp):
                os.remove(tmp)
        raise Usage(f"--out {out_dir}: cannot write ({e.strerror}); choose a folder you can write to")
    return [dest for _, dest in temps]
