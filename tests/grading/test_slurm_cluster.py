#!/usr/bin/env python3
"""Grading through Slurm (tools/grade.py --slurm, make grade SLURM=1) on a
real single-node Slurm cluster that this test starts and stops itself:

  - as root: installs Debian's slurm-wlm and munge with apt-get when they are
    missing, then starts munged, slurmctld and slurmd from a generated
    slurm.conf (this host, its cores, proctrack/linuxproc, task/none,
    select/cons_tres), every file of theirs (key, sockets, state, logs) in a
    temporary folder, no systemd; all of it stopped and removed at the end;
  - grades four lab 1 submissions (the reference, the starter, one that does
    not compile, one with two orders wrong) on this machine and through
    Slurm, and checks that the outputs are identical except timings;
  - removes one student's result from the Slurm state and runs
    `make grade ... SLURM=1` again: only that student is graded, the rest is
    skipped, and the outputs are again the same.

Exits 77 (make test-all then reports it skipped, with the reason) where the
cluster cannot start: not root, no apt-get to install Slurm, daemons that do
not come up. Prints one line per check; exits 1 if any fails.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.dont_write_bytecode = True
import checks  # noqa: E402 (after: no __pycache__ in the checkout)
from checks import REPO, check  # noqa: E402


def skip(reason):
    print(f"skipped: {reason}", flush=True)
    sys.exit(77)


def install_slurm():
    """slurm-wlm and munge, as root with apt-get, when slurmctld, slurmd or munged is missing."""
    need = [t for t in ("slurmctld", "slurmd", "munged", "sbatch") if not shutil.which(t)
            and not os.path.exists(f"/usr/sbin/{t}")]
    if not need:
        return
    if os.geteuid() != 0:
        skip(f"Slurm is not installed ({', '.join(need)} missing) and this is not root: cannot install it "
             "(as root: apt-get install slurm-wlm munge)")
    if not shutil.which("apt-get"):
        skip(f"Slurm is not installed ({', '.join(need)} missing) and there is no apt-get to install it")
    print("note - installing slurm-wlm and munge (apt-get)", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "slurm-wlm", "munge"]
    if subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env).returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        if r.returncode != 0:
            skip(f"apt-get install slurm-wlm munge failed: {r.stdout.strip()[-300:]}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sbin(tool):
    return shutil.which(tool) or f"/usr/sbin/{tool}"


class Cluster:
    """munged, slurmctld and slurmd of a one-node cluster, everything under `root`."""

    def __init__(self, root):
        self.root = root
        self.conf = root / "slurm.conf"
        self.env = dict(os.environ, SLURM_CONF=str(self.conf))

    def start(self):
        r = self.root
        for d in ("munge", "state", "spool"):
            (r / d).mkdir()
        os.chmod(r, 0o755)
        os.chmod(r / "munge", 0o711)
        key = r / "munge" / "munge.key"
        key.write_bytes(os.urandom(128))
        os.chmod(key, 0o600)
        sock = r / "munge" / "munge.socket"
        rc = subprocess.run([sbin("munged"), "--force", f"--socket={sock}", f"--key-file={key}",
                             f"--pid-file={r}/munge/munged.pid", f"--log-file={r}/munge/munged.log",
                             f"--seed-file={r}/munge/munged.seed"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT).returncode
        if rc != 0:
            return f"munged did not start: {self.log('munge/munged.log')}"
        host = socket.gethostname().split(".")[0]
        cores = os.cpu_count() or 1
        self.conf.write_text(f"""# A one-node test cluster (tests/grading/test_slurm.py)
ClusterName=mmlabtest
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
StateSaveLocation={r}/state
SlurmdSpoolDir={r}/spool
SlurmctldPidFile={r}/slurmctld.pid
SlurmdPidFile={r}/slurmd.pid
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmctldLogFile={r}/slurmctld.log
SlurmdLogFile={r}/slurmd.log
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
NodeName={host} NodeAddr=127.0.0.1 CPUs={cores} State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
        for daemon, log in (("slurmctld", "slurmctld.log"), ("slurmd", "slurmd.log")):
            rc = subprocess.run([sbin(daemon), "-f", str(self.conf)], env=self.env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.STDOUT).returncode
            if rc != 0:
                return f"{daemon} did not start: {self.log(log)}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            r2 = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
            if r2.returncode == 0 and r2.stdout.strip() in ("idle", "mixed", "allocated"):
                return None
            time.sleep(1)
        return f"the node did not become idle in 60 s (sinfo: {r2.stdout.strip()}); {self.log('slurmd.log')}"

    def log(self, name):
        try:
            return " | ".join((self.root / name).read_text(errors="replace").strip().splitlines()[-4:])
        except OSError:
            return "(no log)"

    def stop(self):
        subprocess.run(["scancel", "--user", "root"], env=self.env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        for pid_file in ("slurmd.pid", "slurmctld.pid", "munge/munged.pid"):
            try:
                pid = int((self.root / pid_file).read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue
            try:
                os.kill(pid, signal.SIGTERM)
                for _ in range(50):
                    os.kill(pid, 0)
                    time.sleep(0.1)
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def make_class(sub):
    def reference(dest, edit=None):
        dest.mkdir(parents=True)
        for f in (REPO / "solutions" / "lab1").iterdir():
            text = f.read_text().replace("reference::lab1", "student::lab1").replace("solutions/lab1", "labs/lab1")
            (dest / f.name).write_text(edit(text) if edit and f.suffix == ".cpp" else text)

    reference(sub / "alice" / "labs" / "lab1")
    shutil.copytree(REPO / "labs" / "lab1", sub / "bob" / "lab1")
    reference(sub / "carol", lambda t: t.replace("float sum = 0.0f;", "float sum = 0.0f  // no semicolon", 1))
    # Two orders that never write C: 4 of 6. (Not a wrong value: the tests draw new random inputs every run,
    # so a wrong value's message differs from run to run, here and between two local runs alike.)
    reference(sub / "dan" / "lab1", lambda t: re.sub(r"(void matmul_(ijk|kji)\([^)]*\)\s*\{)", r"\1\n    return;", t))


# How memory and processes are counted per sandbox depends on the machine that grades (a cgroup the grader
# can make there, or none): the node's own. Both runs must state it (checked apart); compared without it.
PER_SANDBOX = "memory and processes per sandbox:"


def node_neutral(line):
    line = line.split("; " + PER_SANDBOX)[0]
    return re.sub(r"memory [^,]*(per sandbox \([^)]*\)|of address space per process|unlimited)[^,]*,", "memory ...,", line)


def normalized(out):
    """OUT's files, less what depends on time: execution_time, the date, wall-time lines, per-student seconds."""
    files = {}
    for f in sorted(out.rglob("*")):
        if not f.is_file():
            continue
        text = f.read_text(encoding="utf-8", errors="replace")
        if f.name == "results.json":
            data = json.loads(text)
            data.pop("execution_time", None)
            text = json.dumps(data, sort_keys=True)
        if f.name == "summary.txt":
            text = "\n".join(re.sub(r" +[0-9.]+ s$", "", node_neutral(l)) for l in text.splitlines()
                             if not l.startswith(("matmul-lab grading, lab", "wall time:", "note: " + PER_SANDBOX)))
        files[str(f.relative_to(out))] = text
    return files


def compare(a, b, what):
    na, nb = normalized(a), normalized(b)
    differ = sorted(k for k in set(na) | set(nb) if na.get(k) != nb.get(k))
    detail = ""
    if differ:
        k = differ[0]
        la, lb = (na.get(k) or "").splitlines(), (nb.get(k) or "").splitlines()
        first = next((i for i in range(max(len(la), len(lb))) if (la[i:i + 1] or [""]) != (lb[i:i + 1] or [""])), 0)
        detail = (f"{differ}: first difference in {k}, line {first + 1}; {a.name}'s {k} from there:\n"
                  + "\n".join(la[first:first + 6]) + f"\n       {b.name}'s:\n" + "\n".join(lb[first:first + 6]))
    check(not differ and na, what, detail)
    for out in (a, b):
        summary = out / "summary.txt"
        check(summary.is_file() and PER_SANDBOX in summary.read_text(encoding="utf-8", errors="replace"),
              f"{out.name}'s summary.txt says how memory and processes are counted per sandbox")


def main():
    install_slurm()
    if os.geteuid() != 0:
        skip("not root: the test cluster's daemons (slurmctld, slurmd as SlurmUser root) need root")
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-slurm-test-"))
    os.chmod(tmp, 0o711)  # the grading user (nobody) reaches the build trees below it
    cluster = Cluster(tmp / "cluster")
    (tmp / "cluster").mkdir()
    try:
        why = cluster.start()
        if why:
            cluster.stop()
            skip(f"the test cluster did not start: {why}")
        print("ok   - a one-node Slurm cluster runs (munged, slurmctld, slurmd)", flush=True)
        sub = tmp / "submissions"
        make_class(sub)
        local, through = tmp / "local", tmp / "slurm"

        t0 = time.monotonic()
        r = subprocess.run(checks.grade_command() + [str(sub), "--lab", "1", "--out", str(local), "-j", "2"], cwd=REPO,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
        local_s = time.monotonic() - t0
        print(f"---- tools/grade.py (on this machine) printed:\n{r.stdout}----", flush=True)
        check(r.returncode == 0, f"graded on this machine ({local_s:.0f} s)", r.stdout[-2000:])

        slurm_flags = ["--slurm", "--slurm-cpus", "1", "--slurm-poll", "1"]
        t0 = time.monotonic()
        r = subprocess.run(checks.grade_command() + [str(sub), "--lab", "1", "--out", str(through)] + slurm_flags, cwd=REPO,
                           env=cluster.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
        slurm_s = time.monotonic() - t0
        print(f"---- tools/grade.py --slurm printed:\n{r.stdout}----", flush=True)
        check(r.returncode == 0, f"graded through Slurm ({slurm_s:.0f} s)", r.stdout[-2000:])
        check(re.search(r"submitted the job array \d+: 4 task\(s\)", r.stdout) is not None
              and "submitted the prepare job" in r.stdout,
              "one prepare job, then a job array of one task per student")
        check(all(re.search(rf"^\[\d/4\] {s}: ", r.stdout, re.M) for s in ("alice", "bob", "carol", "dan")),
              "a progress line [k/N] per student as their result comes in")
        if r.returncode != 0:
            return
        compare(local, through, "the Slurm run's outputs are the local run's, except timings")
        summary = (through / "summary.txt").read_text()
        check(re.search(r"^wall time: \d\d:\d\d for 4 student", summary, re.M) is not None,
              "summary.txt gives the run's wall time", summary[-400:])

        # A task lost (say, a node that died): one student's result is missing. The rerun grades only them.
        state = tmp / ".slurm.slurm"
        (state / "rows" / "dan.json").unlink()
        t0 = time.monotonic()
        r = subprocess.run(["make", "--no-print-directory", "grade", f"SUBMISSIONS={sub}", "LAB=1", f"OUT={through}",
                            "SLURM=1", "GRADE_FLAGS=" + " ".join(checks.level_flags() + ["--slurm-cpus", "1", "--slurm-poll", "1"])],
                           cwd=REPO, env=cluster.env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
        rerun_s = time.monotonic() - t0
        print(f"---- make grade SLURM=1 (rerun) printed:\n{r.stdout}----", flush=True)
        check(r.returncode == 0 and "3 of 4 student(s) already graded" in r.stdout
              and re.search(r"job array \d+: 1 task\(s\)", r.stdout) and "prepare job" not in r.stdout
              and re.search(r"^\[4/4\] dan: ", r.stdout, re.M),
              f"make grade SLURM=1 again: only the student without a result is graded ({rerun_s:.0f} s)",
              r.stdout[-1500:])
        compare(local, through, "after the rerun, the outputs are still the local run's")

        # The grader stopped (Ctrl-C, a closed terminal) while its jobs run: they go on; the same command again
        # waits for them (or finds their results) and submits nothing new.
        for name in ("carol", "dan"):
            (state / "rows" / f"{name}.json").unlink()
        cmd = checks.grade_command() + [str(sub), "--lab", "1", "--out", str(through)] + slurm_flags
        p = subprocess.Popen(cmd, cwd=REPO, env=cluster.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
        seen = ""
        for line in p.stdout:
            seen += line
            if "submitted the job array" in line:
                p.send_signal(signal.SIGTERM)
                break
        seen += p.stdout.read()
        rc = p.wait(timeout=60)
        check(rc == 130 and "go on: run the same command again" in seen,
              "the grader interrupted while its jobs run: exit 130, it says the jobs go on", seen[-800:])
        r = subprocess.run(cmd, cwd=REPO, env=cluster.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=900)
        check(r.returncode == 0 and "submitted" not in r.stdout
              and ("still queued or running" in r.stdout or "4 of 4 student(s) already graded" in r.stdout),
              "the same command again: waits for those jobs (or finds their results), submits nothing",
              r.stdout[-1500:])
        compare(local, through, "and the outputs are the local run's")
        print(f"note - times: local {local_s:.0f} s, through Slurm {slurm_s:.0f} s, rerun of one student "
              f"{rerun_s:.0f} s", flush=True)
    finally:
        cluster.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    checks.finish("slurm grading")
