// --csv outputs appear whole or not at all (harness/csv_file.h): a path that
// cannot be written is refused in one line before any work, a finished run
// leaves exactly the file (no .tmp beside it), a run with nothing to write
// leaves nothing.
#include <doctest/doctest.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "harness/gpu_backend.h"
#include "tests/run_mmlab.h"

namespace {

using mml::testing::Outcome;
using mml::testing::run_mmlab;

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

std::vector<std::string> lines_of(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

}  // namespace

TEST_SUITE("cli") {
    TEST_CASE("--csv: refused at once when it cannot be written; whole when the run ends; nothing when there is nothing") {
        const Outcome bad = run_mmlab("roofline --size 8 --no-gpu --quiet --csv /nonexistent-folder/r.csv");
        CHECK(bad.exit_code == 2);
        CHECK(bad.output.find("cannot write --csv /nonexistent-folder/r.csv") != std::string::npos);
        CHECK(bad.output.find("measured FMA peak") == std::string::npos);  // refused before measuring anything

        const std::string path = "build/test-roofline-" + std::to_string(getpid()) + ".csv";
        const Outcome ok = run_mmlab("roofline --size 8 --no-gpu --quiet --csv " + path);
        INFO(ok.output);
        CHECK(ok.exit_code == 0);
        REQUIRE(exists(path));
        const auto lines = lines_of(path);
        REQUIRE(lines.size() >= 2);  // the header, then at least one row
        CHECK(lines[0].find("device,stage,") == 0);
        CHECK(lines[1].find("CPU,lab") == 0);
        CHECK_FALSE(exists(path + ".tmp"));
        std::remove(path.c_str());

        // lh-model writes the rows it measured on this machine's GPU; without
        // one it says so and leaves no file at all.
        const std::string lh = "build/test-lh-" + std::to_string(getpid()) + ".csv";
        const Outcome o = run_mmlab("lh-model --sizes 1056 --reps 1 --csv " + lh);
        INFO(o.output);
        CHECK(o.exit_code == 0);
        const bool gpu = mml::gpu::probe().available;
        CHECK(exists(lh) == gpu);
        CHECK((o.output.find("not written") != std::string::npos) == !gpu);
        CHECK_FALSE(exists(lh + ".tmp"));
        std::remove(lh.c_str());
    }
}
