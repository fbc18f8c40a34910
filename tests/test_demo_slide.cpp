// make demo on a projector (issue #40), on made-up rows: every line of its
// slide fits 100 columns, --wide gives the full table and notes, and a
// speedup whose repetitions disagree on its digits shows their range.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "harness/format.h"
#include "harness/report.h"
#include "tests/made_up_row.h"
#include "tests/run_mmlab.h"

namespace {

using mml::Impl;
using mml::Measurement;

const mml::Shape kShape{1000, 1000, 1000};

// A timed row: `median` seconds, repetitions from `fastest` to `slowest`, and
// its x ijk against `baseline` (the row lab1.ijk, as the harness fills it).
Measurement timed(const char* stage, double median, double fastest, double slowest, double baseline,
                  int threads = 1) {
    Measurement m = mml::testing::made_up_row(stage, Impl::Reference, kShape, median);
    m.fastest_seconds = fastest;
    m.slowest_seconds = slowest;
    m.repetitions = 5;
    m.iterations = 3;
    m.threads = threads;
    m.percent_of_peak = 100.0 * m.gflops / 91.3;
    m.speedup_vs_baseline = baseline / median;
    m.check_method = "randomized";
    m.worst_ratio = 0.003;
    return m;
}

// The demo's rows as on the 2-core machine of the issue: one busy row, a
// kernel column, and a skipped peer whose reason is longer than a slide.
std::vector<Measurement> demo_rows() {
    std::vector<Measurement> rows{timed("lab1.ijk", 1.98, 1.95, 2.02, 1.98),
                                  timed("lab1.ikj", 0.383, 0.382, 0.384, 1.98),
                                  timed("lab5.tile", 0.02636, 0.02632, 0.02640, 1.98),
                                  timed("lab5.openblas", 0.0707, 0.0404, 0.0707, 1.98, 2)};
    rows[2].kernel_set = "AVX-512";
    Measurement skipped = mml::testing::made_up_row("lab5.blis_lib", Impl::Reference, kShape, 1.0);
    skipped.passed = false;
    skipped.skipped = true;
    skipped.threads = 2;
    skipped.skip_reason = "BLIS is not installed (sudo apt-get install libblis-dev), and this reason goes on "
                          "well past the width of any slide a lecture room can read";
    rows.push_back(skipped);
    return rows;
}

// Notes as a busy machine gives them, their full text longer than a line.
std::vector<mml::MachineNote> busy_notes() {
    return {{"other programs used 1.7 cores",
             "peak: its runs ranged 31.0-91.3 GFLOP/s: other programs were using the cores (1.7 cores' worth), "
             "so timings and % peak may move between runs; rerun when the machine is quiet"},
            {"the 2-thread peak was low",
             "WARNING: the peak on 2 threads is well under 2 times the 1-thread peak: other programs held cores "
             "while this ran, so the 2-thread rows are slowed too; rerun when the machine is quiet."},
            {"load 7.2 on 2 cores", "load: the load average is 7.2 on 2 cores: other programs were running"}};
}

bool has(const std::vector<std::string>& lines, const std::string& what) {
    for (const auto& l : lines)
        if (l.find(what) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_SUITE("cli") {
    TEST_CASE("widths count columns, not bytes; wrapping and shortening keep to the width") {
        CHECK(mml::display_width("✓ 28-49x") == 8);
        CHECK(mml::pad_left("✓", 3) == "  ✓");
        CHECK(mml::shorten("the baseline triple loop: a dot product per element", 30) == "the baseline triple loop: a…");
        CHECK(mml::display_width(mml::shorten("abcdefghijklmnopqrstuvwxyz", 10)) == 10);
        const std::string label = "peer    : lab5.openblas = OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY "
                                  "Cooperlake MAX_THREADS=64; kernel Cooperlake; pthreads build";
        const std::vector<std::string> lines = mml::wrap(label, 60, 10);
        CHECK(lines.size() == 3);
        for (const auto& l : lines) CHECK(mml::display_width(l) <= 60);
        CHECK(lines[1].rfind("          ", 0) == 0);  // under the label's text
        CHECK(mml::wrap(label, 0, 10) == std::vector<std::string>{label});
    }

    TEST_CASE("make demo: every line of the slide fits 100 columns; --wide gives every column and note") {
        const std::vector<Measurement> rows = demo_rows();
        const std::vector<std::string> slide = mml::demo_lines(rows, false, mml::kSlideColumns, busy_notes());
        for (const auto& l : slide) {
            INFO(l);
            CHECK(mml::display_width(l) <= mml::kSlideColumns);
        }
        CHECK(has(slide, "what it is"));
        CHECK(has(slide, "the baseline triple loop"));  // lab1.ijk's summary, as far as it fits
        CHECK(has(slide, "GFLOP/s"));
        CHECK(has(slide, "% peak"));
        CHECK(has(slide, "✓"));
        for (const auto& l : slide)  // the full table's columns are left out
            if (l.rfind("stage ", 0) == 0) {
                CHECK(l.find("what it is") != std::string::npos);
                CHECK(l.find("median") == std::string::npos);
                CHECK(l.find("kernels") == std::string::npos);
                CHECK(l.find("check: worst error") == std::string::npos);
            }
        CHECK(has(slide, "lab5.blis_lib skipped: BLIS is not installed"));  // the reason, wrapped under the table
        // The machine's warnings: one line, pointing at the full text.
        int notes = 0;
        for (const auto& l : slide) notes += l.rfind("note: ", 0) == 0;
        CHECK(notes == 1);
        CHECK(has(slide, "note: other programs used 1.7 cores"));
        CHECK(has(slide, "make demo WIDE=1"));
        CHECK_FALSE(has(slide, "WARNING"));
        // The legend: a short line a column, not one long line.
        CHECK(has(slide, "x ijk  : speedup over the triple loop"));
        CHECK(has(slide, "% peak : "));

        // A GPU machine's rows: other shapes (lab 9's skinny one), so a shape column, still within 100.
        std::vector<Measurement> gpu_rows = rows;
        Measurement skinny = mml::testing::made_up_row("lab9.one_pass", Impl::Reference, {32, 32, 1048576}, 0.0021);
        skinny.percent_of_peak = 3.2;
        gpu_rows.push_back(skinny);
        const std::vector<std::string> gpu_slide = mml::slide_table_lines(gpu_rows, mml::kSlideColumns);
        CHECK(has(gpu_slide, "32x32x1048576"));
        for (const auto& l : gpu_slide) {
            INFO(l);
            CHECK(mml::display_width(l) <= mml::kSlideColumns);
        }

        // --wide (written to a file: nothing wrapped): the full table, every note in full.
        const std::vector<std::string> wide = mml::demo_lines(rows, true, 0, busy_notes());
        CHECK(has(wide, "check: worst error / bound"));
        CHECK(has(wide, "median"));
        CHECK(has(wide, "reps"));
        CHECK(has(wide, "shape (MxNxK)"));
        CHECK(has(wide, "AVX-512"));
        for (const auto& n : busy_notes()) CHECK(has(wide, n.full));
        // A terminal wide enough for the full table gets it without --wide, fitted to its width.
        const std::vector<std::string> roomy = mml::demo_lines(rows, false, 400, busy_notes());
        CHECK(has(roomy, "check: worst error / bound"));
        for (const auto& l : roomy) CHECK(mml::display_width(l) <= 400);
    }

    TEST_CASE("x ijk on the slide: one number where the repetitions agree on its digits, their range where not") {
        // lab1.ijk 1.98 s (1.95-2.02); OpenBLAS's repetitions 40-71 ms: 28x by the medians,
        // anywhere from 1.95/0.0707 = 28 to 2.02/0.0404 = 50 by the repetitions.
        const std::vector<Measurement> rows = demo_rows();
        const mml::TimeRatio busy = mml::speedup_range(rows, rows[3]);
        CHECK(busy.value == doctest::Approx(28.0).epsilon(0.01));
        CHECK(busy.low == doctest::Approx(1.95 / 0.0707));
        CHECK(busy.high == doctest::Approx(2.02 / 0.0404));
        CHECK(mml::ratio_text(busy) == "28-50x");
        // lab5.tile's repetitions within 0.2 %, the baseline's 2 %: 75x, but its repetitions say 74-77x.
        CHECK(mml::ratio_text(mml::speedup_range(rows, rows[2])) == "74-77x");
        // A steady pair: both within 0.1 %: one number.
        std::vector<Measurement> steady{timed("lab1.ijk", 1.98, 1.979, 1.981, 1.98),
                                        timed("lab1.ikj", 0.383, 0.3829, 0.3831, 1.98)};
        CHECK(mml::ratio_text(mml::speedup_range(steady, steady[1])) == "5.2x");
        // The baseline's own row is 1x exactly, whatever its repetitions did.
        CHECK(mml::ratio_text(mml::speedup_range(rows, rows[0])) == "1.0x");
        // On the slide: the busy row's range, and the legend says what a range means.
        const std::vector<std::string> slide = mml::slide_table_lines(rows, mml::kSlideColumns);
        CHECK(has(slide, "28-50x"));
        CHECK(has(slide, "5.1-5.3x"));  // lab1.ikj: 2 % of the baseline's spread moves its first decimal
        CHECK(has(slide, "a-bx   : the repetitions put the speedup anywhere from a to b"));
        // Where every ratio is steady, no range and no such legend line.
        CHECK_FALSE(has(mml::slide_table_lines(steady, mml::kSlideColumns), "a-bx"));
    }

    TEST_CASE("mmlab demo into a pipe: every line it prints within 100 columns; --wide is the demo's alone") {
        const mml::testing::Outcome o = mml::testing::run_mmlab("demo --size 24 --reps 1 --threads 2");
        INFO(o.output);
        CHECK(o.exit_code == 0);
        CHECK(o.output.find("what it is") != std::string::npos);
        std::istringstream lines(o.output);
        for (std::string line; std::getline(lines, line);) {
            INFO(line);
            CHECK(mml::display_width(line) <= mml::kSlideColumns);
        }
        const mml::testing::Outcome wide = mml::testing::run_mmlab("demo --size 24 --reps 1 --threads 2 --quiet --wide");
        CHECK(wide.exit_code == 0);
        CHECK(wide.output.find("check: worst error / bound") != std::string::npos);
        const mml::testing::Outcome run = mml::testing::run_mmlab("run --stage lab1.ikj --size 8 --wide");
        CHECK(run.exit_code == 2);
        CHECK(run.output.find("--wide is for 'mmlab demo'") != std::string::npos);
    }
}
