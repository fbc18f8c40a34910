#!/usr/bin/env python3
"""A hostile class: lab 1 submissions written to attack the grader (issue 15),
graded twice by tools/grade.py; each with its expected score, build status
and review line, and checks made outside the grader (files that must not
appear, processes that must not survive, connections that must not arrive).
Both runs must give identical grades.csv files.

Most of them are the reference solution with an attack added at the top of
some of the six loop orders, so that each attack is one test case: where the
attack succeeds (it read what it must not see, say), that function throws
"escaped: ..." and its test fails; a contained attack costs nothing. So the
score says which attacks got through, and the feedback says which.

  reference     the reference solution: the control, and the victim of the others  6/6
  snoop         reads another student's submission, the checkout's solutions/,
                its own tree's solutions/ (masked), other students' outputs and
                the starter tree, /root and /etc/shadow, the grader's
                environment and processes                           bwrap 6/6, unshare 2/6
  vandal        writes into the checkout, another student's submission,
                beside OUT, the starter tree, /tmp; kill(-1, SIGKILL)      6/6, nothing written
  netprobe      TCP and UDP to this machine, an abstract unix socket, DNS,
                TCP to the internet                                 6/6, nothing arrives
  daemon        a detached, renamed process that outlives its test  6/6, none left
  forkstorm     processes until the limit, each then sleeping (ijk); memory
                until the limit (ikj: FAILED, or TIMEOUT on a busy machine); an endless loop (jik); endless output
                (jki: read and dropped, so it runs to its time limit); an
                endless file (kij)                                  1/6, none left
  crash         SIGSEGV, abort, stack overflow, SIGFPE, SIGILL      1/6
  exits         _exit(0) and exit(0) in the middle of a test        4/6
  static_exit   _exit(0) before any test runs                       0/6
  chatty        the reference, printing on stdout and stderr in every
                function (a leftover debug print)                   6/6, the output in the feedback
  fdspray       writes garbage to every file descriptor 0-20 in every function
                (its channel to the checker among them)             0/6, the grader unharmed
  early_done    answers "done" on the channel itself and returns without
                computing (a forged answer: C is checked anyway)    0/6 (every test FAILED)
  forged        writes doctest's report claiming success, exit 0    0/6 (*)
  forward       calls the reference's functions                     0/6 build-failed (*)
  bomb_include  #include "/dev/zero"                                0/6 build-failed (memory limit)
  bomb_template an exponential template instantiation               0/6 build-timeout (or the memory limit)
  symfile       its .cpp a symbolic link to another student's file  0/6, refused
  symdir        its lab1/ a symbolic link to the checkout's solutions/lab1   0/6, no-files
  odd names     two reference copies named "-rf $(touch PWNED) 'x'" and
                "tab<TAB>new<NEWLINE>line"                          6/6 each, nothing run
  zz_after      the reference, graded after vandal: the starter was not poisoned  6/6
  text attacks  file and folder names that are not UTF-8, a 1 MiB file of /*,
                terminal escapes and formulas in what the review quotes
                (hostile_text.py: they must not stop, stall or mislead the run)  6/6 each

(*) These two depend on the trusted checker / untrusted runner split (issue
15, item 1): until it lands, the checks print "pending" with the score they
got instead of failing. Once harness/runner/ exists they are checked.

Run from the repository root (make test-all runs it through
tests/test_grading_sandbox.cpp). As root with apt-get, it installs
bubblewrap when missing, so that the strongest level is the one tested.
Prints one line per check; exits 1 if any fails.
"""
import csv
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.dont_write_bytecode = True
import checks  # noqa: E402 (after: no __pycache__ in the checkout)
import hostile_text  # noqa: E402
from checks import REPO, check  # noqa: E402
SPLIT_LANDED = (REPO / "harness" / "runner").is_dir()
# The test time limit of the hostile runs (an honest lab 1 test takes well under a second) and the build's
# (an honest lab 1 build: 3-8 s on 2 cores, over 20 s where six other builds share them; the template bomb
# reaches the memory limit after about 40 s, or the clock first: either stops it).
TEST_TIMEOUT, BUILD_TIMEOUT = 10, 60
ORDERS = ["ijk", "ikj", "jik", "jki", "kij", "kji"]




# What every attack may use: the headers, and how an attack that got through says so.
HEADERS = r'''
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace hostile {
inline void escaped(const std::string& what) { throw std::runtime_error("escaped: " + what); }
}  // namespace hostile
'''
# Helpers of the attacks on files, and on the network (only the cases that use them include them: the review
# column then names what each case really does).
FILE_PROBES = r'''
namespace hostile {
// A file that opens and has something in it (a masked file is empty).
inline bool can_read(const char* path) {
    std::FILE* f = std::fopen(path, "rb");
    if (!f) return false;
    const int c = std::fgetc(f);
    std::fclose(f);
    return c != EOF;
}
inline bool can_list(const char* path) {
    DIR* d = opendir(path);
    if (!d) return false;
    int n = 0;
    while (readdir(d)) ++n;
    closedir(d);
    return n > 2;
}
inline void try_write(const std::string& path) {
    if (std::FILE* f = std::fopen(path.c_str(), "a")) {
        std::fputs("// written by a hostile submission\n", f);
        std::fclose(f);
    }
}
}  // namespace hostile
'''
NET_PROBES = r'''
namespace hostile {
inline bool tcp_connects(const char* ip, int port) {
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) return false;
    timeval tv{1, 0};
    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    inet_pton(AF_INET, ip, &a.sin_addr);
    const bool ok = connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    close(s);
    return ok;
}
}  // namespace hostile
'''


def with_probes(files, bodies, extra_top=""):
    """The reference files with HEADERS and extra_top after the includes, bodies[order] at the top of
    matmul_<order>."""
    out = dict(files)
    text = out["loop_orders.cpp"].replace("#include <algorithm>", "#include <algorithm>\n" + HEADERS + extra_top, 1)
    for order, body in bodies.items():
        m = re.search(r"void matmul_" + order + r"\([^)]*\)\s*\{", text)
        assert m, order
        text = text[:m.end()] + "\n    " + body + "\n" + text[m.end():]
    out["loop_orders.cpp"] = text
    return out


def write(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)


FORGED = r'''
#include <fstream>
namespace {
// Before any test runs: find doctest's --out= and --test-case= in our own command line, write a report
// saying that test passed, and leave before the real test can say otherwise.
struct Forger {
    Forger() {
        std::ifstream f("/proc/self/cmdline");
        std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>()), out, name;
        for (std::size_t at = 0; at < all.size(); at += std::strlen(all.c_str() + at) + 1) {
            std::string arg = all.c_str() + at;
            if (arg.rfind("--out=", 0) == 0) out = arg.substr(6);
            if (arg.rfind("--test-case=", 0) == 0) name = arg.substr(12);
        }
        if (out.empty() || name.empty()) return;
        std::string plain;
        for (std::size_t i = 0; i < name.size(); ++i) plain += name[i] == '\\' && i + 1 < name.size() ? name[++i] : name[i];
        std::ofstream r(out);
        r << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<doctest binary=\"mmlab-tests\" version=\"2.4.9\">\n"
          << "<TestSuite name=\"lab1\">\n<TestCase name=\"" << plain << "\" filename=\"tests/test_lab1.cpp\" line=\"1\">\n"
          << "<OverallResultsAsserts successes=\"1\" failures=\"0\" test_case_success=\"true\"/>\n</TestCase>\n"
          << "</TestSuite>\n<OverallResultsAsserts successes=\"1\" failures=\"0\"/>\n"
          << "<OverallResultsTestCases successes=\"1\" failures=\"0\"/>\n</doctest>\n";
        r.close();
        _exit(0);
    }
} forger;
}  // namespace
'''

FORWARD = r'''
namespace reference::lab1 {
void matmul_ijk(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t);
void matmul_ikj(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t);
void matmul_jik(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t);
void matmul_jki(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t);
void matmul_kij(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t);
void matmul_kji(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t);
}  // namespace reference::lab1
'''

TEMPLATE_BOMB = r'''
// 2^40 distinct instantiations: the compiler's memory grows until a limit stops it.
template <int N, long M> struct Bomb { static constexpr long v = Bomb<N - 1, 2 * M>::v + Bomb<N - 1, 2 * M + 1>::v; };
template <long M> struct Bomb<0, M> { static constexpr long v = M; };
long hostile_bomb = Bomb<40, 1>::v;
'''


class Case:
    def __init__(self, name, expected, build="ok", review=(), statuses=None, split=False, level_scores=None):
        self.name, self.expected, self.build, self.review = name, expected, build, list(review)
        self.statuses = statuses or {}    # order -> status word of its test (PASSED, FAILED, TIMEOUT, CRASHED...),
                                          # or a tuple of the words that all mean "contained" (a hog on a busy machine)
        self.split = split                # expected only once the checker/runner split has landed
        self.level_scores = level_scores or {}  # containment level -> expected score, where not `expected`


def make_class(sub, tmp, port, udp_port, abstract):
    """The hostile submissions (under sub) and their expectations."""
    ref = checks.lab1_as_handed_in()
    earlier_out = tmp / "earlier-out"   # another class's outputs, where the grader keeps them
    (earlier_out / "reference").mkdir(parents=True)
    (earlier_out / "reference" / "feedback.txt").write_text("Score: 6 / 6\n")
    victim = sub / "reference" / "labs" / "lab1"
    write(victim, ref)
    cases = [Case("reference", 6)]

    write(sub / "snoop" / "labs" / "lab1", with_probes(ref, {
        "ijk": f'if (hostile::can_read("{victim}/loop_orders.cpp")) hostile::escaped("another student\'s file");',
        "ikj": f'if (hostile::can_read("{REPO}/solutions/lab1/loop_orders.cpp")) hostile::escaped("the checkout\'s solutions");',
        "jik": 'if (hostile::can_read("solutions/lab1/loop_orders.cpp")) hostile::escaped("its own tree\'s solutions");',
        "jki": f'if (hostile::can_read("{earlier_out}/reference/feedback.txt") || '
               'hostile::can_read("../base/solutions/lab1/loop_orders.cpp")) hostile::escaped("other outputs or the starter");',
        "kij": 'if (hostile::can_list("/root") || hostile::can_read("/etc/shadow")) hostile::escaped("/root or /etc/shadow");',
        "kji": 'if (std::getenv("MMLAB_HOSTILE_SECRET")) hostile::escaped("the grader\'s environment");\n'
               '    if (DIR* d = opendir("/proc")) { while (dirent* e = readdir(d)) { std::string p = std::string("/proc/")'
               ' + e->d_name + "/cmdline"; std::FILE* f = std::fopen(p.c_str(), "rb"); if (!f) continue; char b[4096] = {};'
               ' std::size_t n = std::fread(b, 1, sizeof b - 1, f); std::fclose(f); for (std::size_t i = 0; i < n; ++i)'
               ' if (!b[i]) b[i] = \' \'; if (std::strstr(b, "grade.py")) { closedir(d); hostile::escaped("the grader\'s '
               'processes"); } } closedir(d); }',
    }, extra_top=FILE_PROBES))
    cases.append(Case("snoop", 6, review=["opens or removes files", "names an absolute path",
                                          "looks at the test environment"],
                      level_scores={"unshare": 2}))

    write(sub / "vandal" / "labs" / "lab1", with_probes(ref, {
        "ijk": f'hostile::try_write("{REPO}/HOSTILE-PWNED");',
        "ikj": f'hostile::try_write("{victim}/loop_orders.cpp");',
        "jik": f'hostile::try_write("{tmp}/HOSTILE-PWNED");',
        "jki": 'hostile::try_write("../base/labs/lab1/loop_orders.cpp"); hostile::try_write("../student0000/HOSTILE");',
        "kij": 'kill(-1, SIGKILL);',
        "kji": 'hostile::try_write("/tmp/mmlab-hostile-pwned");',
    }, extra_top=FILE_PROBES))
    cases.append(Case("vandal", 6, review=["opens or removes files", "names an absolute path"]))

    write(sub / "netprobe" / "labs" / "lab1", with_probes(ref, {
        "ijk": f'if (hostile::tcp_connects("127.0.0.1", {port})) hostile::escaped("TCP to this machine");',
        "ikj": 'if (hostile::tcp_connects("1.1.1.1", 53)) hostile::escaped("TCP to the internet");',
        "jik": f'{{ int s = socket(AF_INET, SOCK_DGRAM, 0); sockaddr_in a{{}}; a.sin_family = AF_INET; '
               f'a.sin_port = htons({udp_port}); inet_pton(AF_INET, "127.0.0.1", &a.sin_addr); '
               f'sendto(s, "x", 1, 0, reinterpret_cast<sockaddr*>(&a), sizeof a); close(s); }}',
        "jki": f'{{ int s = socket(AF_UNIX, SOCK_STREAM, 0); sockaddr_un a{{}}; a.sun_family = AF_UNIX; '
               f'std::memcpy(a.sun_path + 1, "{abstract}", {len(abstract)}); '
               f'if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof(sa_family_t) + 1 + {len(abstract)}) == 0) '
               f'{{ close(s); hostile::escaped("an abstract unix socket"); }} close(s); }}',
        "kij": '{ addrinfo* r = nullptr; if (getaddrinfo("example.com", "80", nullptr, &r) == 0) '
               '{ freeaddrinfo(r); hostile::escaped("DNS"); } }',
    }, extra_top=NET_PROBES))
    cases.append(Case("netprobe", 6, review=["uses the network"]))

    write(sub / "daemon" / "labs" / "lab1", with_probes(ref, {
        "ijk": 'if (fork() == 0) { setsid(); signal(SIGHUP, SIG_IGN); if (fork() == 0) '
               '{ execl("/bin/sleep", "mmlab-hostile-daemon", "600", (char*)nullptr); } _exit(0); }',
    }))
    cases.append(Case("daemon", 6, review=["starts processes", "ends the program itself"]))

    write(sub / "forkstorm" / "labs" / "lab1", with_probes(ref, {
        "ijk": 'for (;;) { if (fork() < 0) { if (errno == EAGAIN) for (;;) pause(); } }',
        "ikj": '{ std::vector<char*> held; for (;;) { char* p = static_cast<char*>(std::malloc(64 << 20)); '
               'if (!p) throw std::bad_alloc(); std::memset(p, 1, 64 << 20); held.push_back(p); } }',
        "jik": 'for (volatile int spin = 0;; spin = spin + 1) {}',
        "jki": 'for (;;) std::fputs("spam spam spam spam spam spam spam spam spam spam spam spam\\n", stdout);',
        "kij": '{ std::FILE* f = std::fopen("huge.bin", "wb"); static char block[1 << 20]; '
               'for (int i = 0; i < 10240 && f; ++i) std::fwrite(block, 1, sizeof block, f); }',
    }))
    cases.append(Case("forkstorm", 1, review=["starts processes", "opens or removes files"],
                      statuses={"ijk": "TIMEOUT", "ikj": ("FAILED", "TIMEOUT"), "jik": "TIMEOUT", "jki": "TIMEOUT", "kij": "CRASHED",
                                "kji": "PASSED"}))

    # Output and the channel (harness/runner/protocol.h): printing costs nothing, and nothing the runner
    # writes on its channel to the checker can make a verdict, since the checker checks C itself.
    write(sub / "chatty" / "labs" / "lab1", with_probes(ref, {
        o: f'std::printf("debug: {o} called, M=%lld\\n", (long long)M); std::fprintf(stderr, "warning from {o}\\n");'
        for o in ORDERS}))
    cases.append(Case("chatty", 6))
    write(sub / "fdspray" / "labs" / "lab1", with_probes(ref, {
        o: 'for (int fd = 0; fd <= 20; ++fd) { static const char junk[] = "\\x01\\xfe garbage done\\n"; '
           'if (::write(fd, junk, sizeof junk - 1) < 0) continue; }' for o in ORDERS}))
    cases.append(Case("fdspray", 0, statuses={o: "CRASHED" for o in ORDERS}))
    write(sub / "early_done" / "labs" / "lab1", with_probes(ref, {
        o: '{ static const char done[] = "done"; ::send(3, done, sizeof done - 1, 0); return; }' for o in ORDERS}))
    cases.append(Case("early_done", 0, statuses={o: "FAILED" for o in ORDERS}))

    write(sub / "crash" / "labs" / "lab1", with_probes(ref, {
        "ijk": '{ volatile float* nowhere = nullptr; *nowhere = 1.0f; }',
        "ikj": 'std::abort();',
        "jik": '{ struct R { static int deep(volatile int n) { volatile char pad[4096]; pad[0] = char(n); '
               'return deep(n + 1) + pad[0]; } }; C[0] = float(R::deep(0)); }',
        "jki": '{ volatile int seven = 7, zero = 0; C[0] = float(seven / zero); }',
        "kij": '__builtin_trap();',
    }))
    cases.append(Case("crash", 1, review=["ends the program itself"],
                      statuses={o: "CRASHED" for o in ORDERS[:5]}))

    write(sub / "exits" / "labs" / "lab1", with_probes(ref, {"ijk": "_exit(0);", "ikj": "std::exit(0);"}))
    cases.append(Case("exits", 4, review=["ends the program itself"],
                      statuses={"ijk": "CRASHED", "ikj": "CRASHED"}))

    write(sub / "static_exit" / "labs" / "lab1", with_probes(
        ref, {}, extra_top="namespace { struct Leave { Leave() { _exit(0); } } leave_now; }\n"))
    cases.append(Case("static_exit", 0, review=["ends the program itself"]))

    # The untouched starter's functions (they fail every test), and the forger.
    write(sub / "forged" / "labs" / "lab1", dict(ref, **{"loop_orders.cpp": reference_files_starter() + HEADERS + FORGED}))
    cases.append(Case("forged", 0, review=["ends the program itself", "looks at the test environment"], split=True))

    forward = with_probes(ref, {o: f"reference::lab1::matmul_{o}(A, B, C, M, N, K); return;" for o in ORDERS},
                          extra_top=FORWARD)
    write(sub / "forward" / "labs" / "lab1", forward)
    # With the split, a call to a reference function does not link (the grader's builds have no reference code).
    cases.append(Case("forward", 0, build="build-failed", review=["uses the reference solution"], split=True))

    write(sub / "bomb_include" / "labs" / "lab1",
          dict(ref, **{"loop_orders.cpp": '#include "/dev/zero"\n' + ref["loop_orders.cpp"]}))
    cases.append(Case("bomb_include", 0, build="build-failed", review=["includes a file by absolute or parent path"]))

    write(sub / "bomb_template" / "labs" / "lab1",
          dict(ref, **{"loop_orders.cpp": ref["loop_orders.cpp"] + TEMPLATE_BOMB}))
    # Stopped by the build's clock or by its memory limit, whichever comes first on this machine.
    cases.append(Case("bomb_template", 0, build=("build-timeout", "build-failed")))

    (sub / "symfile" / "labs" / "lab1").mkdir(parents=True)
    (sub / "symfile" / "labs" / "lab1" / "loop_orders.cpp").symlink_to(victim / "loop_orders.cpp")
    cases.append(Case("symfile", 0, review=["symbolic link"]))

    (sub / "symdir").mkdir()
    (sub / "symdir" / "lab1").symlink_to(REPO / "solutions" / "lab1")
    cases.append(Case("symdir", 0, build="no-files"))

    for odd in ("-rf $(touch PWNED) 'x'", "tab\tnew\nline"):
        write(sub / odd / "lab1", ref)
        cases.append(Case(odd, 6))
    (sub / "linked").symlink_to("/root")  # a student folder that is a link: not a student
    write(sub / "zz_after" / "labs" / "lab1", ref)
    cases.append(Case("zz_after", 6))
    cases += hostile_text.add_cases(sub, ref, write, Case)
    return cases, earlier_out


def reference_files_starter():
    """The untouched starter's loop_orders.cpp (a forged report must not make it pass)."""
    return (REPO / "labs" / "lab1" / "loop_orders.cpp").read_text()


def install_bubblewrap():
    """As root with apt-get and without bwrap: install it (the level CI should test is the strongest)."""
    if shutil.which("bwrap") or os.geteuid() != 0 or not shutil.which("apt-get"):
        return
    print("note - installing bubblewrap (apt-get) so that the strongest containment is the one tested", flush=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "bubblewrap"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def hostile_processes(work):
    """Processes left of the grading: the renamed daemon, or any whose folder is in the run's build trees."""
    left = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if b"mmlab-hostile-daemon" in (d / "cmdline").read_bytes() or \
                        os.readlink(d / "cwd").startswith(str(work) + "/"):
                    left.append(d.name)
            except OSError:
                pass
    return left


def main():
    install_bubblewrap()
    tmp = Path(tempfile.mkdtemp(prefix="mmlab-hostile-"))
    os.chmod(tmp, 0o711)  # as a grading folder would be: the grading user gets through, cannot list it
    listeners = []
    try:
        sub = tmp / "submissions"
        sub.mkdir()
        os.chmod(sub, 0o755)
        tcp = socket.socket()
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(16)
        tcp.setblocking(False)
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(("127.0.0.1", 0))
        udp.setblocking(False)
        abstract = f"mmlab-hostile-{os.getpid()}"
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unix.bind("\0" + abstract)
        unix.listen(16)
        unix.setblocking(False)
        listeners = [tcp, udp, unix]
        cases, earlier_out = make_class(sub, tmp, tcp.getsockname()[1], udp.getsockname()[1], abstract)
        victim_hash = hashlib.sha256((sub / "reference/labs/lab1/loop_orders.cpp").read_bytes()).hexdigest()
        env = dict(os.environ, MMLAB_HOSTILE_SECRET="the grader's secret")
        work = tmp / "work"  # the build trees: a process whose folder is in it after a run is one left behind
        work.mkdir()
        os.chmod(work, 0o711)
        print(f"note - {len(cases)} hostile submissions; the checker/runner split has "
              f"{'landed: its cases are checked' if SPLIT_LANDED else 'not landed: forged and forward are pending'}",
              flush=True)

        def check_run(out, run, text):
            if run == 1:
                level = re.search(r"^containment: (\w+)", (out / "summary.txt").read_text(), re.M).group(1)
                check_results(out, cases, level)
                hostile_text.check_shown(out, text, check)
                check_outside(tmp, sub, victim_hash, listeners, work)

        flags = ["--test-timeout", str(TEST_TIMEOUT), "--build-timeout", str(BUILD_TIMEOUT), "--max-output-mb", "8"]
        checks.graded_twice(sub, tmp, work, flags, env, check_run, "hostile class")
    finally:
        for s in listeners:
            s.close()
        subprocess.run(["chmod", "-R", "u+w", str(tmp)], stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)
        for f in (REPO / "HOSTILE-PWNED", Path("/tmp/mmlab-hostile-pwned")):
            if f.exists():
                f.unlink()


def check_results(out, cases, level):
    rows = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))}
    print(f"note - containment level here: {level}", flush=True)
    for c in cases:
        row = rows.get(hostile_text.csv_key(c.name))
        if row is None:
            check(False, f"{c.name!r}: has a row in grades.csv", str(sorted(rows)))
            continue
        got = float(row["score"])
        want = c.level_scores.get(level, c.expected)
        results = json.loads((out / outputs_name(c.name) / "results.json").read_text(encoding="utf-8"))
        statuses = {t["name"].split(":")[0].split(".")[1]: t["output"].split("\n")[0].split(":")[0]
                    for t in results["tests"]}
        shown = f"score {got:g}/6, build {row['build']}, review: {row['review'] or '-'}; tests: " + \
            ", ".join(f"{k} {v}" for k, v in statuses.items())
        if c.split and not SPLIT_LANDED:
            print(f"pending - {c.name}: {shown} (0 expected once the checker/runner split lands)", flush=True)
            continue
        if level in ("net", "none") and c.name in ("snoop", "vandal"):
            print(f"note - {c.name}: {shown} (not checked: level '{level}' does not contain it)", flush=True)
            continue
        builds = c.build if isinstance(c.build, tuple) else (c.build,)
        check(got == want and row["build"] in builds,
              f"{c.name!r}: {want:g}/6, {' or '.join(builds)}", shown)
        for flag in c.review:
            check(flag in row["review"], f"{c.name!r}: review says '{flag}'", row["review"])
        for order, status in c.statuses.items():
            allowed = status if isinstance(status, tuple) else (status,)
            check(statuses.get(order) in allowed, f"{c.name!r}: its {order} test is {' or '.join(allowed)}", shown)
    check("linked" not in rows and "linked" in (out / "summary.txt").read_text(),
          "a student folder that is a symbolic link (to /root) is not graded, and summary.txt names it")
    check(not (REPO / "PWNED").exists() and not (out.parent / "PWNED").exists() and not Path("PWNED").exists(),
          "the odd folder names ran nothing ($(touch PWNED))")
    fb = (out / outputs_name("forkstorm") / "feedback.txt").read_text(encoding="utf-8")
    check(len(fb) < 20000 and "| spam spam" in fb, "endless output: its start is in the feedback, cut short",
          f"{len(fb)} characters")
    fb = (out / outputs_name("chatty") / "feedback.txt").read_text(encoding="utf-8")
    check(all(f"| debug: {o} called" in fb and f"| warning from {o}" in fb for o in ORDERS)
          and "printing is allowed and costs nothing" in fb,
          "chatty: what it printed on stdout and stderr is in the feedback, test by test", fb[:1500])
    fb = (out / outputs_name("fdspray") / "feedback.txt").read_text(encoding="utf-8")
    check(fb.count("broke the protocol") == 6, "fdspray: every test 'the runner broke the protocol'", fb[:1500])
    fb = (out / outputs_name("early_done") / "feedback.txt").read_text(encoding="utf-8")
    check(fb.count("never written") >= 6, "early_done: a 'done' without the work leaves C unwritten, and the "
          "checker says so", fb[:1500])
    fb = (out / outputs_name("bomb_include") / "feedback.txt").read_text(encoding="utf-8")
    check("BUILD FAILED" in fb and len(fb) < 20000, "the include bomb's feedback: the compiler's message, short",
          fb[:500])


def outputs_name(name):
    sys.path.insert(0, str(REPO / "tools"))
    from grading.outputs import safe_name
    return safe_name(name)


def check_outside(tmp, sub, victim_hash, listeners, work):
    """What the attacks would have left outside the grader's view."""
    time.sleep(0.5)
    check(not hostile_processes(work), "no process of a student survives the grading (daemon, fork storm)",
          str(hostile_processes(work)))
    check(not (REPO / "HOSTILE-PWNED").exists() and not (tmp / "HOSTILE-PWNED").exists()
          and not Path("/tmp/mmlab-hostile-pwned").exists(),
          "nothing was written into the checkout, beside OUT or into the machine's /tmp")
    check(hashlib.sha256((sub / "reference/labs/lab1/loop_orders.cpp").read_bytes()).hexdigest() == victim_hash,
          "another student's submission is unchanged")
    tcp, udp, unix = listeners
    arrived = []
    for s, what in ((tcp, "TCP"), (unix, "unix")):
        try:
            s.accept()
            arrived.append(what)
        except (BlockingIOError, OSError):
            pass
    try:
        udp.recv(16)
        arrived.append("UDP")
    except (BlockingIOError, OSError):
        pass
    check(not arrived, "no connection or datagram reached this machine's sockets", str(arrived))


if __name__ == "__main__":
    main()
    checks.finish("hostile grading")
