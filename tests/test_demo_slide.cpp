// make demo on a projector (issue #40), on made-up rows: every line of its
// slide fits 100 columns, each header item is one line, --wide gives the
// full table and notes, and a speedup whose repetitions spread it wider than
// a quiet machine's noise shows their range.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "harness/bench.h"
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

    TEST_CASE("the slide's header: one line an item, within 100 columns, however long the machine's texts") {
        const int w = mml::kSlideColumns;
        CHECK(mml::short_cpu_model("Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz") == "Intel Xeon Gold 6338");
        CHECK(mml::short_cpu_model("AMD EPYC 7B13 64-Core Processor") == "AMD EPYC 7B13 64-Core");
        // A made-up model longer than a slide: it gives way, the cores and SIMD width stay.
        const std::string model = "Imaginary(R) Hypercore(TM) Ultra Extreme Server Edition 9999X with an "
                                  "unusually long marketing name that goes on and on CPU @ 3.10GHz";
        const std::string machine = mml::machine_essentials(model, 128, "AVX-512", w);
        INFO(machine);
        CHECK(mml::display_width(machine) <= w);
        CHECK(machine.rfind("machine : Imaginary Hypercore", 0) == 0);
        CHECK(machine.find(", 128 cores, AVX-512") != std::string::npos);
        CHECK(machine.find("(R)") == std::string::npos);
        // A peer's description: its long configuration cut to name and version, kernel and
        // threading kept, its warnings left to the note under the table.
        const std::string openblas =
            "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Cooperlake MAX_THREADS=64 and a made-up "
            "tail of build options; kernel Haswell; pthreads build (OPENBLAS_CORETYPE=Haswell set aside: an "
            "aside as long as it likes); WARNING: OpenBLAS runs its Haswell kernel "
            "(AVX2) on this AVX-512 CPU: this OpenBLAS does not know the CPU; a newer one (or the BLIS row) is "
            "the stronger peer; WARNING: OpenMP threads spin beside OpenBLAS's own";
        const std::string peer = mml::peer_essentials("lab5.openblas", openblas, w);
        INFO(peer);
        CHECK(mml::display_width(peer) <= w);
        CHECK(peer == "peer    : lab5.openblas = OpenBLAS 0.3.21; kernel Haswell; pthreads build");
        CHECK(mml::peer_essentials("lab5.openblas", openblas, 0).find("WARNING") == std::string::npos);
        mml::Stage stage;
        stage.name = "lab5.openblas";
        stage.describe_library = [&] { return openblas; };
        mml::Job job;
        job.stage = &stage;
        const std::vector<mml::MachineNote> warned = mml::peer_warning_notes({job, job});  // once per library
        REQUIRE(warned.size() == 2);
        CHECK(warned[0].brief.rfind("OpenBLAS warned: runs its Haswell kernel (AVX2)", 0) == 0);
        CHECK(warned[0].full.find("a newer one (or the BLIS row) is the stronger peer") != std::string::npos);
        CHECK(warned[1].full.find("OpenMP threads spin") != std::string::npos);
        const std::string note = mml::note_line(warned, w);
        INFO(note);
        CHECK(mml::display_width(note) <= w);
        CHECK(note.rfind("note: OpenBLAS warned: ", 0) == 0);
        CHECK(note.find("make demo WIDE=1") != std::string::npos);
        CHECK(note.find("numbers may move") == std::string::npos);  // a peer's warning is not the machine's noise
        // Behind the machine's notes, on the same line, as far as it fits.
        std::vector<mml::MachineNote> both = busy_notes();
        both.resize(1);
        both.push_back(warned[0]);
        const std::string one = mml::note_line(both, w);
        INFO(one);
        CHECK(mml::display_width(one) <= w);
        CHECK(one.find("note: other programs used 1.7 cores; OpenBLAS warned") == 0);
        CHECK(one.find("numbers may move") != std::string::npos);
    }

    TEST_CASE("x ijk on the slide: the median where the ratio stays within its noise, the range where it moves beyond") {
        // lab1.ijk 1.98 s (1.95-2.02); OpenBLAS's repetitions 40-71 ms: 28x by the medians,
        // anywhere from 1.95/0.0707 = 28 to 2.02/0.0404 = 50 by the repetitions.
        const std::vector<Measurement> rows = demo_rows();
        const mml::TimeRatio busy = mml::speedup_range(rows, rows[3]);
        CHECK(busy.value == doctest::Approx(28.0).epsilon(0.01));
        CHECK(busy.low == doctest::Approx(1.95 / 0.0707));
        CHECK(busy.high == doctest::Approx(2.02 / 0.0404));
        CHECK(mml::ratio_text(busy) == "28-50x");
        CHECK(mml::moved_beyond_noise(busy));  // 1.81 times from low to high: more than two quiet timings' 1.23
        // lab5.tile's repetitions within 0.3 %, the baseline's 3.6 %: 74-77x by the repetitions, well
        // within a quiet machine's noise: the median alone.
        CHECK_FALSE(mml::moved_beyond_noise(mml::speedup_range(rows, rows[2])));
        CHECK(mml::ratio_text(mml::speedup_range(rows, rows[2])) == "75x");
        // The rule's edge: each timing spread by its quiet 10 % (0.9 of the fastest's speed) is
        // (here 9 %) is still noise; a little more is not.
        CHECK_FALSE(mml::moved_beyond_noise({60, 60 * 0.91, 60 / 0.91}));
        CHECK(mml::moved_beyond_noise({60, 60 * 0.88, 60 / 0.88}));
        // A steady pair: both within 0.1 %: one number.
        std::vector<Measurement> steady{timed("lab1.ijk", 1.98, 1.979, 1.981, 1.98),
                                        timed("lab1.ikj", 0.383, 0.3829, 0.3831, 1.98)};
        CHECK(mml::ratio_text(mml::speedup_range(steady, steady[1])) == "5.2x");
        // The baseline's own row is 1x exactly, whatever its repetitions did.
        CHECK(mml::ratio_text(mml::speedup_range(rows, rows[0])) == "1.0x");
        // On the slide: the busy row's range, and the legend says what a range means.
        const std::vector<std::string> slide = mml::slide_table_lines(rows, mml::kSlideColumns);
        CHECK(has(slide, "28-50x"));
        CHECK(has(slide, "5.2x"));  // lab1.ikj: the baseline's 3.6 % spread is noise, not a range
        CHECK_FALSE(has(slide, "5.1-5.3x"));
        CHECK(has(slide, "a-bx   : the repetitions spread the speedup from a to b"));
        // Where every ratio is steady, no range and no such legend line.
        CHECK_FALSE(has(mml::slide_table_lines(steady, mml::kSlideColumns), "a-bx"));
    }

    TEST_CASE("mmlab demo into a pipe: every line it prints within 100 columns; --wide is the demo's alone") {
        // The whole demo and one lab's (make demo LAB=5: the peers, OpenBLAS's warnings where it has some).
        for (const char* args : {"demo --size 24 --reps 1 --threads 2", "demo --lab 5 --size 24 --reps 1 --threads 2"}) {
            const mml::testing::Outcome o = mml::testing::run_mmlab(args);
            INFO(args);
            INFO(o.output);
            CHECK(o.exit_code == 0);
            CHECK(o.output.find("what it is") != std::string::npos);
            CHECK(o.output.find("check: worst error / bound") == std::string::npos);  // the slide, not the full table
            CHECK(o.output.find("WARNING") == std::string::npos);
            std::istringstream lines(o.output);
            bool header = true;  // until the blank line before the table
            for (std::string line; std::getline(lines, line);) {
                INFO(line);
                CHECK(mml::display_width(line) <= mml::kSlideColumns);
                if (line.empty()) header = false;
                if (header) CHECK(line.rfind("          ", 0) != 0);  // no item's continuation: one line each
            }
        }
        CHECK(mml::testing::run_mmlab("demo --lab 10 --size 24").output.find("has no stages of its own") !=
              std::string::npos);
        const mml::testing::Outcome wide = mml::testing::run_mmlab("demo --size 24 --reps 1 --threads 2 --quiet --wide");
        CHECK(wide.exit_code == 0);
        CHECK(wide.output.find("check: worst error / bound") != std::string::npos);
        const mml::testing::Outcome run = mml::testing::run_mmlab("run --stage lab1.ikj --size 8 --wide");
        CHECK(run.exit_code == 2);
        CHECK(run.output.find("--wide is for 'mmlab demo'") != std::string::npos);
    }
}
