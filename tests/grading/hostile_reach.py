"""test_hostile.py's attacks that reach outside the submission: other
students' files, the answers, the grader's outputs, environment and
processes, the checkout and /tmp, the network, symbolic links and folder
names (expected score; where it depends on the containment level, per level):

  snoop         reads another student's submission, the checkout's solutions/,
                its own tree's solutions/ (masked), other students' outputs and
                the starter tree, /root and /etc/shadow, the grader's
                environment and processes                           6/6 (bwrap and unshare)
  vandal        writes into the checkout, another student's submission,
                beside OUT, the starter tree, /tmp; kill(-1, SIGKILL)      6/6, nothing written
  netprobe      TCP and UDP to this machine, an abstract unix socket, DNS,
                TCP to the internet                                 6/6, nothing arrives
  symfile       its .cpp a symbolic link to another student's file  0/6, refused
  symdir        its lab1/ a symbolic link to the checkout's solutions/lab1   0/6, no files
  odd names     two reference copies named "-rf $(touch PWNED) 'x'" and
                "tab<TAB>new<NEWLINE>line"                          6/6 each, nothing run
  linked        a student folder that is a symbolic link to /root   not graded, named in summary.txt
  zz_after      the reference, graded after vandal: the starter was not poisoned  6/6

check_graded() and check_outside() then check what the run left: nothing
written outside the build trees, the victim's file unchanged, no connection
arrived at this machine's sockets.
"""
import hashlib
from pathlib import Path

from checks import REPO, check
from hostile_probes import Case, with_probes, write

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


def add_cases(sub, tmp, ref, victim, port, udp_port, abstract):
    """Writes these submissions under sub (ref: the reference's files; victim: another student's lab1 folder; port,
    udp_port, abstract: this machine's listeners, which nothing may reach); returns their Cases."""
    earlier_out = tmp / "earlier-out"   # another class's outputs, where the grader keeps them
    (earlier_out / "reference").mkdir(parents=True)
    (earlier_out / "reference" / "feedback.txt").write_text("Score: 6 / 6\n")
    cases = []

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
                                          "looks at the test environment"]))

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

    (sub / "symfile" / "labs" / "lab1").mkdir(parents=True)
    (sub / "symfile" / "labs" / "lab1" / "loop_orders.cpp").symlink_to(victim / "loop_orders.cpp")
    cases.append(Case("symfile", 0, review=["symbolic link"]))

    (sub / "symdir").mkdir()
    (sub / "symdir" / "lab1").symlink_to(REPO / "solutions" / "lab1")
    cases.append(Case("symdir", 0, build="no files"))

    for odd in ("-rf $(touch PWNED) 'x'", "tab\tnew\nline"):
        write(sub / odd / "lab1", ref)
        cases.append(Case(odd, 6))
    (sub / "linked").symlink_to("/root")  # a student folder that is a link: not a student
    write(sub / "zz_after" / "labs" / "lab1", ref)
    cases.append(Case("zz_after", 6))
    return cases


def victim_hash(sub):
    """The digest of the victim's file (another student's), which vandal tries to overwrite."""
    return hashlib.sha256((sub / "reference/labs/lab1/loop_orders.cpp").read_bytes()).hexdigest()


def check_graded(out, rows):
    """After the run (rows: grades.csv by student): the link is not a student, the odd names ran nothing."""
    check("linked" not in rows and "linked" in (out / "summary.txt").read_text(),
          "a student folder that is a symbolic link (to /root) is not graded, and summary.txt names it")
    check(not (REPO / "PWNED").exists() and not (out.parent / "PWNED").exists() and not Path("PWNED").exists(),
          "the odd folder names ran nothing ($(touch PWNED))")


def check_outside(tmp, sub, hash_before, listeners):
    """What the attacks would have left outside the grader's view (hash_before: victim_hash before the run)."""
    check(not (REPO / "HOSTILE-PWNED").exists() and not (tmp / "HOSTILE-PWNED").exists()
          and not Path("/tmp/mmlab-hostile-pwned").exists(),
          "nothing was written into the checkout, beside OUT or into the machine's /tmp")
    check(victim_hash(sub) == hash_before,
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
