// The harness's answers to bad input: one line naming the problem, exit
// code 2, and no output file. Runs the real mmlab binary ($MMLAB, set by make).
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gpu/memory_text.h"
#include "harness/cli.h"
#include "harness/gpu_backend.h"
#include "harness/stage.h"
#include "harness/catalog.h"
#include "harness/report.h"
#include "tests/run_mmlab.h"

namespace {

using mml::testing::Outcome;
using mml::testing::run_mmlab;


bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

// Exit 2, exactly one line, and it contains `expected`.
void expect_usage_error(const std::string& args, const std::string& expected) {
    const Outcome o = run_mmlab(args);
    INFO("mmlab " << args << " printed: " << o.output);
    CHECK(o.exit_code == 2);
    CHECK(mml::testing::error_lines(o.output) == 1);
    CHECK(mml::testing::first_message(o.output).rfind("mmlab: error:", 0) == 0);
    CHECK(o.output.find(expected) != std::string::npos);
}

}  // namespace

TEST_SUITE("cli") {
    TEST_CASE("--help documents the commands and exits 0") {
        const Outcome o = run_mmlab("--help");
        CHECK(o.exit_code == 0);
        for (const char* word : {"list", "peak", "run", "lab N", "demo", "--size", "--json", "--threads"})
            CHECK_MESSAGE(o.output.find(word) != std::string::npos, std::string(word));
    }

    TEST_CASE("sizes that are zero, negative, not numbers or malformed") {
        expect_usage_error("run --stage lab1.ijk --size 0", "between 1 and");
        expect_usage_error("run --stage lab1.ijk --size -5", "between 1 and");
        expect_usage_error("run --stage lab1.ijk --size abc", "whole number");
        expect_usage_error("run --stage lab1.ijk --size 12abc", "whole number");
        expect_usage_error("run --stage lab1.ijk --size 3x4", "MxNxK");
        expect_usage_error("run --stage lab1.ijk --size 3x0x4", "between 1 and");
        expect_usage_error("run --stage lab1.ijk --size 99999999999999999999", "whole number");
        expect_usage_error("run --stage lab1.ijk --size", "needs a value");
        // An empty item is a typo, not a shorter list.
        expect_usage_error("run --stage lab1.ijk --size 10,", "empty item");
        expect_usage_error("run --stage lab1.ijk --size ,10", "empty item");
        expect_usage_error("run --stage lab1.ijk --size 8,,10", "empty item");
        expect_usage_error("run --stage lab1.ijk --size ,", "empty item");
        expect_usage_error("run --stage lab1.ijk, --size 8", "empty item");
        expect_usage_error("run --stage lab2.blocked --size 8 --param kc=8,", "empty item");
    }

    TEST_CASE("a --param that no stage of the run reads is refused, naming what they read") {
        expect_usage_error("run --stage lab2.blocked --size 64 --param blok=16", "--param blok: no stage of this run reads it");
        expect_usage_error("run --stage lab2.blocked --size 64 --param blok=16", "lab2.blocked reads block,kc,nc");
        expect_usage_error("run --stage lab1.ijk --size 8 --param kc=8", "they read no --param at all");
        expect_usage_error("sweep --stage lab2.blocked --sweep foo=3 --size 64", "--param foo: no stage");
        expect_usage_error("scaling --stage lab4.pthreads --size 64 --param cutoff=8", "they read no --param at all");
        // A name that one stage of the run reads is fine for the run.
        const auto ok = run_mmlab("run --stage lab1.ijk,lab2.blocked --size 8 --param kc=4 --reps 1 --quiet");
        CHECK(ok.exit_code == 0);
    }

    TEST_CASE("a stage that checks --param values names the parameters it reads, and the check knows them") {
        int with_params = 0;
        for (const mml::Stage* s : mml::Registry::instance().stages()) {
            INFO(s->name);
            if (s->check_params) CHECK_FALSE(s->param_names.empty());
            if (s->param_names.empty()) continue;
            ++with_params;
            mml::StageParams p;
            for (const auto& name : s->param_names) {
                p.values = {{name, 1}};
                CHECK_NOTHROW(mml::check_param_names({s}, p));
            }
            p.values = {{"no_such_parameter", 1}};
            CHECK_THROWS_AS(mml::check_param_names({s}, p), mml::UsageError);
        }
        CHECK(with_params >= 8);  // labs 2, 3, 4, 5 at least (and 6, 9 with CUDA)
    }

    TEST_CASE("bad --param values are refused in one line, before the machine header") {
        expect_usage_error("run --stage lab5.blis --size 64 --param simd=3", "use 0 (widest present)");
        expect_usage_error("run --stage lab5.blis --size 64 --param kc=-1", "use 1..1048576");
        expect_usage_error("run --stage lab5.dot --size 64 --param simd=7", "use 0 (widest present)");
        expect_usage_error("run --stage lab4.omp_static --size 64 --param block_rows=0", "must be >= 1");
        expect_usage_error("run --stage lab4.strassen_par --size 64 --param cutoff=0", "must be >= 1");
        expect_usage_error("run --stage lab3.strassen --size 64 --param cutoff=0", "must be >= 1");
        expect_usage_error("scaling --stage lab4.omp_static --size 64 --param block_rows=0", "must be >= 1");
    }

    TEST_CASE("unknown commands, options, stages and labs") {
        expect_usage_error("frobnicate", "unknown command");
        expect_usage_error("run --stage lab1.nope", "unknown stage 'lab1.nope'");
        // A close name is suggested: a missing lab prefix, a typo of one or two characters.
        expect_usage_error("run --stage ijk", "unknown stage 'ijk' (did you mean lab1.ijk?)");
        expect_usage_error("run --stage lab2.blokced", "(did you mean lab2.blocked?)");
        const Outcome far = run_mmlab("run --stage lab1.nope");
        CHECK(far.output.find("did you mean") == std::string::npos);
        expect_usage_error("run --stage lab1.ijk --bogus", "unknown option '--bogus'");
        expect_usage_error("run --stage lab1.ijk --l2 cold", "--l2 must be warm or flush, got 'cold'");
        expect_usage_error("run --stage lab1.ijk --l2", "--l2 needs a value");
        // One past the catalog's last lab (labs/catalog.txt), whatever that is now.
        const int past_last = mml::last_lab_number() + 1;
        expect_usage_error("lab " + std::to_string(past_last), "between 1 and " + std::to_string(past_last - 1));
        for (const mml::Lab* lab : mml::Registry::instance().labs())  // lab 10 (make demo LAB=10): models, no stages
            if (mml::Registry::instance().stages_of_lab(lab->number).empty())
                expect_usage_error("run --lab " + std::to_string(lab->number), "has no stages of its own to time");
        expect_usage_error("lab one", "whole number");
        expect_usage_error("lab", "needs one lab number");
        expect_usage_error("run --stage lab1.ijk --impl mine", "student, reference or both");
        expect_usage_error("run --stage lab1.ijk --threads two", "whole number");
        expect_usage_error("run --stage lab1.ijk --threads 0", "between 1 and");
        expect_usage_error("run --stage lab1.ijk --param block", "name=value");
        expect_usage_error("run", "needs --stage");
    }

    TEST_CASE("a build without CUDA names the GPU labs' commands as left out, not as unknown") {
        if (mml::gpu::built_with_cuda()) return;  // there they are the real commands
        for (const char* c : {"breakdown", "gpu-vs-cpu", "tune", "phvm", "phvm-sweep", "phvm-model", "gpu-latency", "mma-rate"})
            expect_usage_error(c, "left out of this build");
        expect_usage_error("phvm-model --gpu a100", "needs no GPU");
    }

    TEST_CASE("a shape whose buffers cannot fit in memory") {
        expect_usage_error("run --stage lab1.ikj --size 1000000", "GB of host memory");
        expect_usage_error("run --stage lab1.ikj --size 200000x200000x3", "choose a smaller --size");
    }

    // tests/main.cpp skips test cases named "(without a GPU)" where a GPU is.
    TEST_CASE("a GPU stage on a machine with no GPU (without a GPU)") {
        REQUIRE_FALSE(mml::gpu::probe().available);
        std::string gpu_stage;
        for (const mml::Stage* s : mml::Registry::instance().stages())
            if (s->device == mml::Device::Gpu) {
                gpu_stage = s->name;
                break;
            }
        if (gpu_stage.empty()) {
            // A build without CUDA registers no GPU stage: nothing to run here, and saying so.
            CHECK_FALSE(mml::gpu::built_with_cuda());
            MESSAGE("not applicable: no GPU stage in this build");
            return;
        }
        expect_usage_error("run --stage " + gpu_stage + " --size 64", "needs a CUDA GPU");
    }

    TEST_CASE("bad input leaves no output file; good input writes valid JSON") {
        const std::string path = "build/test-cli-out.json";
        std::remove(path.c_str());
        expect_usage_error("run --stage lab1.nope --json " + path, "unknown stage");
        CHECK_FALSE(file_exists(path));
        expect_usage_error("run --stage lab1.ijk --json /nonexistent-folder/x.json --size 8", "cannot write --json");

        const Outcome ok = run_mmlab("run --stage lab1.ikj --size 16,5x7x3 --reps 2 --quiet --json " + path);
        INFO(ok.output);
        CHECK(ok.exit_code == 0);
        REQUIRE(file_exists(path));
        std::ifstream in(path);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        CHECK(text.find("\"summary\"") != std::string::npos);
        // Google Benchmark's own format, with names stable from run to run (compare.py diffs by name).
        CHECK(text.find("\"context\"") != std::string::npos);
        CHECK(text.find("\"benchmarks\"") != std::string::npos);
        CHECK(text.find("\"name\": \"lab1.ikj/reference/5x7x3/threads:1\"") != std::string::npos);
        CHECK(text.find("\"name\": \"lab1.ikj/reference/5x7x3/threads:1_median\"") != std::string::npos);
        CHECK(text.find("\"time_unit\": \"ms\"") != std::string::npos);
        CHECK(text.find("\"stage\": \"lab1.ikj\"") != std::string::npos);
        CHECK(text.find("\"M\": 5, \"N\": 7, \"K\": 3") != std::string::npos);
        CHECK_FALSE(file_exists(path + ".tmp"));
        std::remove(path.c_str());
    }

    TEST_CASE("run prints the machine, the table, and a verdict per row") {
        const Outcome o = run_mmlab("run --stage lab1.ikj --size 33x17x9 --reps 2 --quiet");
        CHECK(o.exit_code == 0);
        CHECK(o.output.find("machine :") != std::string::npos);
        CHECK(o.output.find("GFLOP/s") != std::string::npos);
        CHECK(o.output.find("lab1.ikj") != std::string::npos);
        CHECK(o.output.find("ok ") != std::string::npos);
    }

    TEST_CASE("the peak's spread names its cause: other programs only where they used the CPU meanwhile") {
        using mml::PeakSpread;
        auto spread = [](double best, double lowest, double others) {
            PeakSpread p;
            p.best = best;
            p.lowest = lowest;
            p.others_busy_cores = others;
            return p;
        };
        CHECK(mml::peak_spread_note(spread(100, 95, 1.0)).empty());  // within 10 %: nothing to say
        const std::string busy = mml::peak_spread_note(spread(175.1, 139.6, 1.4));
        CHECK(busy.find("other programs were using the cores (1.4 cores' worth)") != std::string::npos);
        // The idle 16-core GPU host: turbo moved the runs, nothing else ran.
        const std::string idle = mml::peak_spread_note(spread(175.1, 139.6, 0.03));
        CHECK(idle.find("other programs were using") == std::string::npos);
        CHECK(idle.find("clock moved") != std::string::npos);
        CHECK(idle.find("139.6-175.1") != std::string::npos);
        // Without /proc/stat the cause is unknown: the old advice stands.
        CHECK(mml::peak_spread_note(spread(175.1, 139.6, -1)).find("rerun when the machine is quiet") != std::string::npos);
    }

    TEST_CASE("% peak: every row of one thread count divides by the same measured peak, which the table prints") {
        const Outcome o = run_mmlab("run --stage lab1.ikj,lab2.interchanged,lab4.pthreads --threads 2 --size 64 "
                                    "--reps 2 --quiet");
        INFO(o.output);
        REQUIRE(o.exit_code == 0);
        std::map<int, double> peak;  // from the line under the table
        const std::size_t at = o.output.find("% peak divides by the FMA peak measured in this run:");
        REQUIRE(at != std::string::npos);
        std::istringstream footer(o.output.substr(at, o.output.find('\n', at) - at));
        std::vector<std::string> words;  // ... run: 102.2 GFLOP/s on 1 thread, 190.3 GFLOP/s on 2 threads.
        for (std::string w; footer >> w;) words.push_back(w);
        for (std::size_t i = 2; i + 1 < words.size(); ++i)
            if (words[i] == "on") peak[std::stoi(words[i + 1])] = std::stod(words[i - 2]);
        CHECK(peak.count(1) == 1);
        CHECK(peak.count(2) == 1);
        int rows = 0;
        std::istringstream lines(o.output);
        for (std::string line; std::getline(lines, line);) {
            if (line.rfind("lab", 0) != 0 || line.find(" ok ") == std::string::npos) continue;
            std::istringstream row(line);
            std::string stage, version, shape, median, unit, reps;
            int threads = 0;
            double gflops = 0, percent = 0;
            row >> stage >> version >> shape >> threads >> median >> unit >> reps >> gflops >> percent;
            REQUIRE(peak.count(threads) == 1);
            INFO(line);
            CHECK(std::abs(100.0 * gflops / peak[threads] - percent) <= 0.06 + 100.0 * 0.006 / peak[threads]);
            ++rows;
        }
        CHECK(rows == 4);  // the three stages and the baseline
    }

    TEST_CASE("a run with a peer row names the library and the kernel it picked; the stages written here name none") {
        const std::string path = "build/test-cli-peer.json";
        std::remove(path.c_str());
        const Outcome o = run_mmlab("run --stage lab5.openblas,lab1.ikj --size 24x20x16 --reps 2 --quiet --json " + path);
        INFO(o.output);
        CHECK(o.exit_code == 0);
        // OpenBLAS chooses its kernel for the CPU at run time: the header must say which one ran.
        CHECK(o.output.find("peer    : lab5.openblas = OpenBLAS") != std::string::npos);
        CHECK(o.output.find("kernel ") != std::string::npos);
        CHECK(o.output.find("peer    : lab1.ikj") == std::string::npos);
        std::ifstream in(path);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        CHECK(text.find("\"library\": \"OpenBLAS") != std::string::npos);
        CHECK(text.find("\"library\": \"\"") != std::string::npos);  // the lab1.ikj and baseline rows
        std::remove(path.c_str());

        const Outcome plain = run_mmlab("run --stage lab1.ikj --size 8 --reps 2 --quiet");
        CHECK(plain.output.find("peer    :") == std::string::npos);
    }

    TEST_CASE("--no-baseline leaves the lab1.ijk row out of run, and is refused where the baseline is needed") {
        const Outcome with = run_mmlab("run --stage lab1.ikj --size 12x8x5 --reps 2 --quiet");
        CHECK(with.exit_code == 0);
        CHECK(with.output.find("lab1.ijk ") != std::string::npos);
        const Outcome without = run_mmlab("run --stage lab1.ikj --size 12x8x5 --reps 2 --quiet --no-baseline");
        INFO(without.output);
        CHECK(without.exit_code == 0);
        CHECK(without.output.find("lab1.ikj ") != std::string::npos);
        CHECK(without.output.find("lab1.ijk ") == std::string::npos);
        expect_usage_error("lab 1 --size 8 --no-baseline", "--no-baseline is for 'mmlab run'");
        expect_usage_error("demo --size 8 --no-baseline", "--no-baseline is for 'mmlab run'");
    }

    TEST_CASE("mmlab lab times the baseline: lab 2's judge uses it, lab 5 at its own shape up to 512^3 (scaled above)") {
        // Lab 5 at its 1024^3 spent 60 of 84 s on lab1.ijk (2 cores): above 512^3 it runs at 512^3 and is
        // scaled (Lab::baseline_limit_macs; the cli test "x ijk ... and x prev" checks that); at 24^3 it runs there.
        const Outcome lab5 = run_mmlab("lab 5 --size 24 --solution --reps 1 --threads 1 --quiet");
        INFO(lab5.output);
        CHECK(lab5.output.find("lab5.blis ") != std::string::npos);
        CHECK(lab5.output.find("\nlab1.ijk           reference 24^3") != std::string::npos);
        CHECK(lab5.output.find("x ijk*") == std::string::npos);  // measured, not scaled
        const Outcome lab2 = run_mmlab("lab 2 --size 24 --solution --reps 1 --threads 1 --quiet");
        INFO(lab2.output);
        CHECK(lab2.output.find("lab1.ijk ") != std::string::npos);
    }
}

TEST_SUITE("cli") {
    TEST_CASE("no room on the GPU: the message names whose it is, in units a person reads (gpu/memory_text.h)") {
        const double MiB = 1024.0 * 1024, GiB = 1024 * MiB;
        // Another program holds all but 3 MiB of an 80 GiB GPU; the test needs 12 MiB.
        const std::string held = mml::gpu::no_room_text(12 * MiB, 3 * MiB, 80 * GiB);
        CHECK(held.find("needs 12.0 MiB") != std::string::npos);
        CHECK(held.find("3.0 MiB free of its 80.0 GiB") != std::string::npos);
        CHECK(held.find("other programs hold the rest (it is not your shape") != std::string::npos);
        CHECK(held.find("smaller shape") == std::string::npos);
        CHECK(held.find("0.000000") == std::string::npos);
        // The shape itself is too big for the GPU: then the shape is the thing to change.
        const std::string big = mml::gpu::no_room_text(90 * GiB, 79 * GiB, 80 * GiB);
        CHECK(big.find("needs 90.0 GiB") != std::string::npos);
        CHECK(big.find("choose a smaller shape") != std::string::npos);
        CHECK(big.find("other programs") == std::string::npos);
        CHECK(mml::gpu::bytes_text(100) == "0 KiB");
        CHECK(mml::gpu::bytes_text(2048) == "2 KiB");
    }
}
