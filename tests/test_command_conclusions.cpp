// The lab commands that end a table with a conclusion (crossover,
// strassen-error, scaling, sweep) must never draw it from a wrong result:
// they say instead that a result was wrong, and which, and exit 1. Run on
// `--impl student`: in the repository that is the untouched starter (C never
// written), so the wrong path is what runs; once a student has finished the
// lab the correct path runs, and the checks below hold either way.
// Also: --quiet where the other timing commands take it (roofline,
// gpu-vs-cpu), and lh-model's --sizes without a GPU.
#include <doctest/doctest.h>

#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "harness/commands.h"
#include "harness/gpu_backend.h"
#include "harness/run_stage.h"
#include "harness/stages/lab3/crossover.h"
#include "harness/stages/lab3/cutoff_param.h"
#include "labs/common/strassen_plan.h"
#include "tests/made_up_row.h"
#include "tests/run_mmlab.h"

namespace {

using mml::testing::Outcome;
using mml::testing::run_mmlab;

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }


// Whether the student's version of `stage` gives a correct product at every
// shape with every parameter set, found here, in this process, and not from
// the command's output: a command that failed to notice a wrong result would
// otherwise take the "correct" branch below and pass.
bool student_correct(const char* stage_name, std::initializer_list<mml::Shape> shapes,
                     std::initializer_list<mml::StageParams> params) {
    const mml::Stage* stage = mml::Registry::instance().find(stage_name);
    REQUIRE_MESSAGE(stage != nullptr, stage_name << " is not registered");
    for (mml::Shape s : shapes)
        for (const mml::StageParams& p : params)
            if (!mml::run_and_check(*stage, mml::Impl::Student, s, p, mml::fresh_seed()).passed) return false;
    return true;
}

mml::StageParams param(const char* name, long long value) {
    mml::StageParams p;
    p.values[name] = value;
    return p;
}

mml::StageParams threads(int t) {
    mml::StageParams p;
    p.threads = t;
    return p;
}

// One run of mmlab and what its output must show: a table of these is checked
// in one loop (check_runs), each case named in a failure's message.
struct ExpectedRun {
    std::string what;  // the case, as a failure names it
    std::string args;
    int exit_code;
    std::vector<std::string> says;        // each must be in the output
    std::vector<std::string> never_says;  // none may be
};

void check_runs(std::initializer_list<ExpectedRun> cases) {
    for (const ExpectedRun& c : cases) {
        const Outcome o = run_mmlab(c.args);
        INFO(c.what << ": mmlab " << c.args << " printed: " << o.output);
        CHECK(o.exit_code == c.exit_code);
        // A refused command says why in exactly one line (run_mmlab.h: notices aside).
        if (c.exit_code == 2) CHECK(mml::testing::error_lines(o.output) == 1);
        for (const std::string& s : c.says) CHECK_MESSAGE(has(o.output, s), "should say: " << s);
        for (const std::string& s : c.never_says) CHECK_FALSE_MESSAGE(has(o.output, s), "should not say: " << s);
    }
}

}  // namespace

TEST_SUITE("cli") {
    TEST_CASE("crossover: no crossover is reported from a wrong result") {
        const Outcome o = run_mmlab("crossover --impl student --size 64,96 --reps 1 --quiet");
        INFO(o.output);
        // crossover runs the student's Strassen with one level (cutoff min - 1)
        // and at the student's own cutoff (kYourCutoff, or the reference's while it is 0).
        const long long dflt = mml::lab3::cutoff_of({}, mml::lab3::your_cutoff());
        const bool wrong = !student_correct("lab3.strassen", {{64, 64, 64}}, {param("cutoff", 63), param("cutoff", dflt)}) ||
                           !student_correct("lab3.strassen", {{96, 96, 96}}, {param("cutoff", 95), param("cutoff", dflt)});
        MESSAGE("the student's lab3.strassen is " << std::string(wrong ? "wrong" : "correct") << " here");
        CHECK(has(o.output, "WRONG") == wrong);
        if (wrong) {
            CHECK(o.exit_code == 1);
            CHECK(has(o.output, "no crossover to report"));
            CHECK(has(o.output, "64^3"));  // which result was wrong
            CHECK_FALSE(has(o.output, "does not pay"));
            CHECK_FALSE(has(o.output, "pays from"));
        } else {
            CHECK(o.exit_code == 0);
            CHECK((has(o.output, "does not pay") || has(o.output, "pays from")));
        }
    }

    TEST_CASE("crossover: 'pays from N on' only beyond the repetitions' noise, which is shown") {
        using mml::lab3::CrossoverPoint;
        // seconds: median, fastest, slowest repetition (3 repetitions each)
        auto row = [](long long n, double median, double fastest, double slowest) {
            auto m = mml::testing::made_up_row("lab3.classical", mml::Impl::Reference, {n, n, n}, median);
            m.fastest_seconds = fastest;
            m.slowest_seconds = slowest;
            m.repetitions = 3;
            return m;
        };
        auto point = [&](long long n, double c, double c_lo, double c_hi, double s, double s_lo, double s_hi) {
            return CrossoverPoint{row(n, c, c_lo, c_hi), row(n, s, s_lo, s_hi)};
        };
        // The busy machine: one level's median faster from 384 on, but every ratio's range spans 1
        // (0.83-1.09 for the same code in both columns).
        const std::vector<CrossoverPoint> noisy{point(256, 1.0, 0.98, 1.02, 1.1, 1.08, 1.12),
                                                point(384, 1.0, 0.90, 1.09, 0.97, 0.92, 1.08),
                                                point(512, 1.0, 0.90, 1.09, 0.96, 0.91, 1.08)};
        const std::string n = mml::lab3::crossover_conclusion(noisy);
        INFO(n);
        CHECK_FALSE(has(n, "pays from"));
        CHECK(has(n, "does not pay beyond the noise"));
        CHECK(has(n, "inside the noise: the medians say one level is faster at 384^3 (0.83-1.18), 512^3 (0.83-1.20)"));
        // Quiet: the ranges part from 512 on.
        const std::vector<CrossoverPoint> quiet{point(256, 1.0, 0.99, 1.01, 1.1, 1.09, 1.11),
                                                point(512, 1.0, 0.99, 1.01, 0.93, 0.92, 0.94),
                                                point(1024, 1.0, 0.99, 1.01, 0.9, 0.89, 0.91)};
        CHECK(has(mml::lab3::crossover_conclusion(quiet), "pays from 512^3 on"));
        // One repetition: no noise measured, no conclusion.
        auto once = quiet;
        for (auto& p : once) p.classical.repetitions = p.one_level.repetitions = 1;
        const std::string one = mml::lab3::crossover_conclusion(once);
        CHECK_FALSE(has(one, "pays from"));
        CHECK(has(one, "--reps 3"));
    }

    TEST_CASE("make lab3/4/5's tables: x ijk (scaled from the triple loop at a smaller shape, said so) and x prev") {
        // 600^3 is over the 512^3 at which labs 3-5 time the triple loop: it runs at 300^3 and is scaled by M*N*K.
        for (const auto& [lab, prev] : {std::pair<int, const char*>{3, "lab2.blocked"}, {4, "lab3.strassen"},
                                        {5, "lab4.pthreads"}}) {
            CAPTURE(lab);
            const Outcome o = run_mmlab("lab " + std::to_string(lab) + " --solution --size 600 --threads 2 --reps 1 --quiet");
            INFO(o.output);
            CHECK(has(o.output, "x ijk "));
            CHECK(has(o.output, "x prev "));
            CHECK(has(o.output, "\nlab1.ijk           reference 300^3"));
            CHECK(has(o.output, "x ijk*: at 600^3 lab1.ijk is too slow for this table; it was timed at 300^3 and its "
                                "time scaled by M*N*K (x8): an extrapolation"));
            CHECK(has(o.output, std::string("x prev: speedup over the previous lab's best stage, ") + prev));
            CHECK(has(o.output, "x*"));  // a scaled cell is marked
        }
    }

    TEST_CASE("strassen-error: no error is shown for a result that is no product") {
        const Outcome o = run_mmlab("strassen-error --impl student --size 32,40 --cutoff 4,64");
        INFO(o.output);
        // The 32^3 row: shape, classical, bound K^2, cutoff 4, bound f, cutoff 64, bound f.
        // cutoff 64 >= the sizes: the given classical kernel alone, always right.
        const std::size_t at = o.output.find("\n32^3");
        REQUIRE(at != std::string::npos);
        std::istringstream row(o.output.substr(at + 1, o.output.find('\n', at + 1) - at - 1));
        std::string shape, classical, k2, cutoff4;
        row >> shape >> classical >> k2 >> cutoff4;
        const bool wrong = !student_correct("lab3.strassen", {{32, 32, 32}}, {param("cutoff", 4)});
        CHECK((cutoff4 == "WRONG") == wrong);
        if (wrong) {
            CHECK(o.exit_code == 1);
            CHECK(has(o.output, "are not products"));
            CHECK(has(o.output, "32^3 cutoff 4: "));  // which, and why
            CHECK_FALSE(has(o.output, "32^3 cutoff 64: "));
        } else {
            // A float32 product of 32 x 32 U(-1,1) matrices always has some
            // rounding error: 0.0 would be an unwritten C read as "no error".
            CHECK(std::stod(cutoff4) > 0);
            CHECK(o.exit_code == 0);
        }
        // The reference: every result is a product, below its bound.
        const Outcome ref = run_mmlab("strassen-error --size 32,40 --cutoff 4,64");
        INFO(ref.output);
        CHECK(ref.exit_code == 0);
        CHECK_FALSE(has(ref.output, "WRONG"));
    }

    TEST_CASE("scaling and sweep: no speedup or fastest setting from wrong results") {
        const Outcome sc = run_mmlab("scaling --impl student --stage lab4.pthreads --size 40 --threads-list 1,2 --reps 1 --quiet");
        INFO(sc.output);
        const bool sc_wrong = !student_correct("lab4.pthreads", {{40, 40, 40}}, {threads(1), threads(2)});
        CHECK(has(sc.output, "WRONG") == sc_wrong);
        if (sc_wrong) {
            CHECK(sc.exit_code == 1);
            CHECK(has(sc.output, "speedups are shown only between correct results"));
        } else {
            CHECK(sc.exit_code == 0);
        }
        const Outcome sw = run_mmlab("sweep --impl student --stage lab2.blocked --size 40 --sweep kc=8,16 --reps 1 --quiet");
        INFO(sw.output);
        const bool sw_wrong = !student_correct("lab2.blocked", {{40, 40, 40}}, {param("kc", 8), param("kc", 16)});
        CHECK(has(sw.output, "WRONG") == sw_wrong);
        if (sw_wrong) {
            CHECK(sw.exit_code == 1);
            CHECK(has(sw.output, "the fastest setting overall is unknown"));
            CHECK_FALSE(has(sw.output, "<- fastest\n"));
        } else {
            CHECK(sw.exit_code == 0);
            CHECK(has(sw.output, "<- fastest\n"));
        }
    }

    TEST_CASE("sweep, blis-levels and roofline say whose code they timed, above the table and on every row") {
        // sweep: the reference by default, yours with --impl student; the version column on each row.
        const Outcome ref = run_mmlab("sweep --stage lab2.blocked --size 40 --sweep kc=8,16 --reps 1 --quiet");
        INFO(ref.output);
        CHECK(has(ref.output, "timed: the reference's code (--impl student times yours)"));
        CHECK(has(ref.output, "stage              version   shape"));
        CHECK(has(ref.output, "lab2.blocked       reference 40^3"));
        const Outcome own = run_mmlab("sweep --impl student --stage lab2.blocked --size 40 --sweep kc=8,16 --reps 1 --quiet");
        INFO(own.output);
        CHECK(has(own.output, "timed: your code (--impl student)"));
        CHECK(has(own.output, "lab2.blocked       student   40^3"));
        CHECK_FALSE(has(own.output, "lab2.blocked       reference"));
        // blis-levels: the reference's levels by default, each row naming whose code (OpenBLAS: the peer's).
        if (mml::find_command("blis-levels")) {  // built only where the references are
            check_runs({{"blis-levels, the reference",
                         "blis-levels --size 48 --reps 1",
                         0,
                         {"timed: the reference's code", "micro-kernel           reference ",
                          "lab5.blis              reference ", "OpenBLAS sgemm         OpenBLAS "},
                         {}}});
            // --impl student: the student's product is checked first; a wrong one is not timed.
            const Outcome mine = run_mmlab("blis-levels --impl student --size 48 --reps 1");
            INFO(mine.output);
            const bool wrong = !student_correct("lab5.blis", {{48, 48, 48}}, {param("simd", 0)});
            if (wrong) {
                CHECK(mine.exit_code == 1);
                CHECK(has(mine.output, "your lab5.blis is WRONG"));
                CHECK_FALSE(has(mine.output, "micro-kernel"));
            } else {
                CHECK(mine.exit_code == 0);
                CHECK(has(mine.output, "timed: your code (labs/lab5/, --impl student)"));
                CHECK(has(mine.output, "lab5.blis              yours "));
            }
        }
        // roofline: the stages are the reference versions (code column); the model functions are said apart.
        const Outcome roof = run_mmlab("roofline --student --size 40 --threads 1 --no-gpu --quiet");
        INFO(roof.output);
        CHECK(has(roof.output, "model: your lab 10 functions, labs/lab10/"));
        CHECK(has(roof.output, "lab2.blocked             reference 40^3"));
        CHECK(has(run_mmlab("roofline --size 40 --threads 1 --no-gpu --quiet").output,
                  "model: the reference's lab 10 functions"));
        // lh-model: the same line (no GPU needed: the paper's C1060 and the recorded rows).
        CHECK(has(run_mmlab("lh-model --student --sizes 1056").output, "model: your lab 10 functions, labs/lab10/"));
        CHECK(has(run_mmlab("lh-model --sizes 1056").output, "model: the reference's lab 10 functions"));
    }

    TEST_CASE("roofline and gpu-vs-cpu take --quiet like run, sweep, scaling and crossover") {
        // --quiet is parsed; the bad size after it is what is refused.
        for (const char* cmd : {"roofline", "gpu-vs-cpu", "run --stage lab1.ijk", "sweep --stage lab1.ijk --sweep x=1",
                                "scaling --stage lab4.pthreads", "crossover"}) {
            if (std::string(cmd) == "gpu-vs-cpu" && !mml::gpu::built_with_cuda()) continue;  // not in a CPU-only build
            const std::string args = std::string(cmd) + " --quiet --size 0";
            const Outcome o = run_mmlab(args);
            INFO("mmlab " << args << " printed: " << o.output);
            CHECK(o.exit_code == 2);
            CHECK(mml::testing::error_lines(o.output) == 1);
            CHECK(has(o.output, "size '0'"));
            CHECK_FALSE(has(o.output, "--quiet"));
        }
    }

    // With a GPU, --sizes times the kernels on it (tests/gpu); tests/main.cpp
    // skips test cases named "(without a GPU)" there.
    TEST_CASE("lh-model --sizes: picks rows of the recorded H100 run, or names its sizes (without a GPU)") {
        REQUIRE_FALSE(mml::gpu::probe().available);
        check_runs({{"two of the recorded sizes: their rows only",
                     "lh-model --sizes 1056,4096",
                     0,
                     {"volkov    1056 ", "volkov    4096 "},
                     {"volkov    2080 ", "volkov    4128 "}},
                    {"no --sizes: every recorded row",
                     "lh-model",
                     0,
                     {"volkov    512 ", "volkov    544 ", "volkov    1024 ", "volkov    1056 ", "volkov    2048 ",
                      "volkov    2080 ", "volkov    4096 ", "volkov    4128 "},
                     {}},
                    {"a size not recorded: refused, naming those that are",
                     "lh-model --sizes 1056,64",
                     2,
                     {"--sizes 64", "544, 1056, 2080, 4128, 512, 1024, 2048, 4096"},
                     {}}});
    }
}
