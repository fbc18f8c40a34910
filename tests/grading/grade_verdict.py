"""test_grade.py's submissions that go for the verdict itself (the trusted
checker, the untrusted runner: handouts/grading.md), graded with the rest of
its lab 1 class:

  forged    the starter + a static initializer that writes passing reports and exits 0 -> 0, "your code exited"
  forward   ijk forwards to reference::lab1::matmul_ijk      -> 0, build failed: "reference functions are not available"
  include   includes solutions/lab1/loop_orders.h            -> refused before the build, the starter graded: 0
  include-macro  the same through a macro and an absolute path -> 0 (refused after the build, or it does not compile)
  printing  ijk prints on stdout and stderr, and is correct  -> 6 of 6: printing costs nothing; what it printed is in
                                                                the feedback
  exiting   ikj calls exit(0)                                -> that test 0 ("exited (exit status 0)"), the others pass
  garbage   kij writes its own message on the runner's channel -> that test 0 ("broke the protocol"), the others pass
  (and test_grade.py's crash and hang: their reasons name the runner's crash and its time-out)

verdict_checks() then checks each one's score, test statuses and feedback,
and that no runner process is left after the run.
"""
import re
import shutil
from pathlib import Path

from checks import REPO, check, replace_body, write_reference

# A static initializer that forges doctest's report, as a submission beat the
# old grader (its code was linked into the test program, whose command line
# named the report): it looks for "--out=" in its own and its parents' command
# lines, and guesses the grader's logs folder beside its build tree, writes a
# passing report for all six tests wherever it can, and ends the process
# before any test runs.
FORGER = r"""
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {
void forge_report(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f) return;
    std::fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<doctest binary=\"x\" version=\"2.4.9\">\n"
               "<TestSuite name=\"lab1\">\n", f);
    const char* cases[] = {"lab1.ijk: the baseline triple loop", "lab1.ikj", "lab1.jik", "lab1.jki", "lab1.kij", "lab1.kji"};
    for (const char* c : cases)
        std::fprintf(f, "<TestCase name=\"%s\" filename=\"t.cpp\" line=\"1\"><OverallResultsAsserts successes=\"1\" "
                        "failures=\"0\" test_case_success=\"true\"/></TestCase>\n", c);
    std::fputs("</TestSuite>\n<OverallResultsAsserts successes=\"6\" failures=\"0\"/>\n"
               "<OverallResultsTestCases successes=\"6\" failures=\"0\"/>\n</doctest>\n", f);
    std::fclose(f);
}
std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}
int forge() {
    std::string pid = "self";
    for (int depth = 0; depth < 8; ++depth) {
        const std::string cmd = read_file("/proc/" + pid + "/cmdline");
        for (std::size_t at = cmd.find("--out="); at != std::string::npos; at = cmd.find("--out=", at + 1))
            forge_report(cmd.substr(at + 6, cmd.find('\0', at) - at - 6));
        const std::string stat = read_file("/proc/" + pid + "/stat");
        const std::size_t close = stat.rfind(')');
        if (close == std::string::npos) break;
        std::istringstream rest(stat.substr(close + 2));
        std::string state;
        long ppid = 0;
        rest >> state >> ppid;
        if (ppid <= 1) break;
        pid = std::to_string(ppid);
    }
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd)) {
        const std::string tree = cwd;
        const std::string name = tree.substr(tree.rfind('/') + 1), parent = tree.substr(0, tree.rfind('/'));
        for (int i = 0; i < 10; ++i) forge_report(parent + "/logs/" + name + "/test" + std::to_string(i) + ".xml");
    }
    std::fflush(nullptr);
    std::_Exit(0);
}
const int forged = forge();
}  // namespace
"""


VERDICT_FIXTURES = ["forged", "forward", "include", "include-macro", "printing", "exiting", "garbage"]


def make_verdict_fixtures(sub):
    """The submissions that go for the verdict itself (see the module's docstring)."""
    (sub / "forged").mkdir()
    shutil.copy(REPO / "labs" / "lab1" / "loop_orders.h", sub / "forged" / "loop_orders.h")
    (sub / "forged" / "loop_orders.cpp").write_text((REPO / "labs" / "lab1" / "loop_orders.cpp").read_text() + FORGER)
    declare = ("namespace reference::lab1 {\nvoid matmul_ijk(const float*, const float*, float*, std::int64_t, "
               "std::int64_t, std::int64_t);\n}\n\nnamespace student::lab1 {")
    write_reference(sub / "forward", lambda t: replace_body(t, "matmul_ijk", "    reference::lab1::matmul_ijk(A, B, C, M, N, K);\n    return;")
                    .replace("namespace student::lab1 {", declare, 1))
    write_reference(sub / "include", lambda t: t.replace("#include <algorithm>",
                                                         "#include <algorithm>\n#include \"solutions/lab1/loop_orders.h\""))
    write_reference(sub / "include-macro", lambda t: t.replace(
        "#include <algorithm>", f'#include <algorithm>\n#define MML_ANSWERS "{REPO}/solutions/lab1/loop_orders.h"\n'
                                "#include MML_ANSWERS"))
    write_reference(sub / "printing", lambda t: replace_body(
        t, "matmul_ijk", '    std::printf("debug: ijk called\\n"); std::fprintf(stderr, "debug: on stderr too\\n");')
        .replace("#include <algorithm>", "#include <algorithm>\n#include <cstdio>"))
    write_reference(sub / "exiting", lambda t: replace_body(t, "matmul_ikj", "    std::exit(0);")
                    .replace("#include <algorithm>", "#include <algorithm>\n#include <cstdlib>"))
    write_reference(sub / "garbage", lambda t: replace_body(
        t, "matmul_kij", '    { const char junk[] = "garbage!"; ::send(3, junk, sizeof junk - 1, 0); }')
        .replace("#include <algorithm>", "#include <algorithm>\n#include <sys/socket.h>"))


def verdict_checks(score, status_of, feedback, results, rows, summary, tmp):
    """The verdict comes from the checker, never from the student's process (make_verdict_fixtures)."""
    def test_output(s, prefix):
        return next(t["output"] for t in results(s)["tests"] if t["name"].startswith(prefix))

    full = re.search(r"^containment: (bwrap|unshare) ", summary, re.M) is not None
    outputs = [t["output"] for t in results("forged")["tests"]]
    check(score("forged") == (0, 6) and all(o.startswith("CRASHED") and "your code exited (exit status 0)" in o
                                            for o in outputs),
          "a forged report (static initializer, exit 0): 0 of 6, every test 'your code exited'" +
          ("" if full else " (containment below unshare: the report folder is writable by student code)"),
          f"{score('forged')} {outputs[:2]}")
    check(score("forward") == (0, 6) and rows["forward"]["build"] == "build failed"
          and "reference functions are not available to submissions" in feedback("forward")
          and "reference::lab1::matmul_ijk" in feedback("forward"),
          "forwarding to reference::lab1::matmul_ijk does not link: 0, 'reference functions are not available'",
          feedback("forward")[:600])
    check(score("include") == (0, 6) and "includes solutions/lab1/loop_orders.h: files from solutions/ (the reference "
          "solution) are not available to submissions: refused" in feedback("include"),
          "#include \"solutions/...\": refused before the build with a clear line, the starter graded: 0",
          feedback("include")[:600])
    fb = feedback("include-macro")
    check(score("include-macro") == (0, 6) and rows["include-macro"]["build"] == "build failed"
          and ("files from solutions/ are not available to submissions" in fb or "No such file" in fb),
          "a solutions/ header included through a macro and an absolute path: 0 (refused after the build, from the "
          "compiler's list of headers read; or not found where the sandbox hides the checkout)", fb[:600])
    printed = test_output("printing", "lab1.ijk")
    check(score("printing") == (6, 6) and status_of("printing", "lab1.ijk") == "PASSED"
          and "| debug: ijk called" in printed and "| debug: on stderr too" in printed
          and "| debug: ijk called" in feedback("printing") and "printing is allowed and costs nothing" in printed,
          "code that prints on stdout and stderr: full marks, what it printed in the feedback and results.json",
          f"{score('printing')} {printed}")
    check(score("exiting") == (5, 6) and status_of("exiting", "lab1.ikj") == "CRASHED"
          and "your code exited (exit status 0)" in test_output("exiting", "lab1.ikj"),
          "a runner that exits early: that test 0 ('your code exited'); the other five pass",
          f"{score('exiting')} {test_output('exiting', 'lab1.ikj')}")
    check(score("garbage") == (5, 6) and status_of("garbage", "lab1.kij") == "CRASHED"
          and "broke the protocol" in test_output("garbage", "lab1.kij"),
          "a runner that writes its own message on the channel: that test 0 ('broke the protocol'); the others pass",
          f"{score('garbage')} {test_output('garbage', 'lab1.kij')}")
    check("your code ended with SIGSEGV (segmentation fault) while running lab1.ijk at" in test_output("crash", "lab1.ijk"),
          "a crash is named as the runner's: 'your code ended with SIGSEGV'", test_output("crash", "lab1.ijk"))
    check("did not finish within the test's 30 s limit (an endless loop, or far too slow) while running lab1.jki at"
          in test_output("hang", "lab1.jki"),
          "a hang is named by the checker: 'did not finish within the test's 30 s limit ... while running lab1.jki'",
          test_output("hang", "lab1.jki"))
    left = [d.name for d in Path("/proc").iterdir() if d.name.isdigit() and "/mmlab-grade-" in _cmdline(d)
            and "mmlab-runner" in _cmdline(d)]
    check(not left, "no runner process is left after the run", str(left))


def _cmdline(proc_dir):
    try:
        return (proc_dir / "cmdline").read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""
