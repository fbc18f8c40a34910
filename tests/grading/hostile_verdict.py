"""test_hostile.py's attacks on the verdict and on the build: printing, the
runner's channel to the checker, a forged report, the reference's functions,
a compiler made to read or compute forever (expected score):

  chatty        the reference, printing on stdout and stderr in every
                function (a leftover debug print)                   6/6, the output in the feedback
  fdspray       writes garbage to every file descriptor 0-20 in every function
                (its channel to the checker among them)             0/6, the grader unharmed
  early_done    answers "done" on the channel itself and returns without
                computing (a forged answer: C is checked anyway)    0/6 (every test FAILED)
  forged        writes doctest's report claiming success, exit 0    0/6 (*)
  forward       calls the reference's functions                     0/6 build failed (*)
  bomb_include  #include "/dev/zero"                                0/6 build failed (memory limit)
  bomb_template an exponential template instantiation               0/6 build timed out (or the memory limit)

(*) These two depend on the trusted checker / untrusted runner split (issue
15, item 1): until it lands, the checks print "pending" with the score they
got instead of failing. Once harness/runner/ exists they are checked.

check_graded() then checks what each one's feedback says.
"""
from checks import REPO, check
from hostile_probes import HEADERS, ORDERS, Case, outputs_name, with_probes, write

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


def add_cases(sub, ref):
    """Writes these submissions under sub (ref: the reference's files); returns their Cases."""
    cases = []
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

    # The untouched starter's functions (they fail every test), and the forger.
    write(sub / "forged" / "labs" / "lab1", dict(ref, **{"loop_orders.cpp": reference_files_starter() + HEADERS + FORGED}))
    cases.append(Case("forged", 0, review=["ends the program itself", "looks at the test environment"], split=True))

    forward = with_probes(ref, {o: f"reference::lab1::matmul_{o}(A, B, C, M, N, K); return;" for o in ORDERS},
                          extra_top=FORWARD)
    write(sub / "forward" / "labs" / "lab1", forward)
    # With the split, a call to a reference function does not link (the grader's builds have no reference code).
    cases.append(Case("forward", 0, build="build failed", review=["uses the reference solution"], split=True))

    write(sub / "bomb_include" / "labs" / "lab1",
          dict(ref, **{"loop_orders.cpp": '#include "/dev/zero"\n' + ref["loop_orders.cpp"]}))
    cases.append(Case("bomb_include", 0, build="build failed", review=["includes a file by absolute or parent path"]))

    write(sub / "bomb_template" / "labs" / "lab1",
          dict(ref, **{"loop_orders.cpp": ref["loop_orders.cpp"] + TEMPLATE_BOMB}))
    # Stopped by the build's clock or by its memory limit, whichever comes first on this machine.
    cases.append(Case("bomb_template", 0, build=("build timed out", "build failed")))
    return cases


def reference_files_starter():
    """The untouched starter's loop_orders.cpp (a forged report must not make it pass)."""
    return (REPO / "labs" / "lab1" / "loop_orders.cpp").read_text()


def check_graded(out):
    """After the run: what the chatty, fdspray, early_done and include-bomb feedback says."""
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
