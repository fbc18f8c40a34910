// Printing what the harness measured: the machine header, the results table,
// and the JSON file for plots and grading.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cpu/peak.h"
#include "harness/bench.h"
#include "harness/cli.h"

namespace mml {

void print_machine_header(bool include_gpu);
// The header's line under the peak when its runs spread (empty when they did
// not): who moved them - other programs, or the CPU's clock on an idle machine;
// and where this run's peak was not used: the stored quiet one instead, or none
// (no speed verdict).
std::string peak_spread_note(const PeakSpread& peak);
// One line per peer row in `jobs` (OpenBLAS, cuBLAS): the library version and
// the kernel it picked (Stage::describe_library), once per stage.
void print_peer_libraries(const std::vector<Job>& jobs);
void print_table(const std::vector<Measurement>& rows);
std::string format_seconds(double s);

// A row's benchmark name in --json, in Google Benchmark's style and stable
// from run to run, so two runs can be compared by name (tools/compare.py, or
// Google Benchmark's compare.py): "lab5.blis/reference/2048x2048x2048/threads:2".
std::string benchmark_name(const Measurement& m);

// --json: Google Benchmark's own format ("context", "benchmarks": every
// repetition and aggregate) plus what the harness adds: "machine", "gpu",
// "date", "command", "threads", "summary" (one entry per table row, with the
// check) and, for `lab`, "target". Written to `path` + ".tmp" and renamed, so
// a reader never sees half a file.
void write_json(const std::string& path, const Options& options, const BenchOutput& out,
                const std::optional<TargetVerdict>& verdict, const std::string& lab_target);

}  // namespace mml
