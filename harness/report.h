// Printing what the harness measured: the machine header, the results table,
// and the JSON file for plots and grading.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/bench.h"
#include "harness/cli.h"

namespace mml {

void print_machine_header(bool include_gpu);
// One line per peer row in `jobs` (OpenBLAS, cuBLAS): the library version and
// the kernel it picked (Stage::describe_library), once per stage.
void print_peer_libraries(const std::vector<Job>& jobs);
void print_table(const std::vector<Measurement>& rows);
std::string format_seconds(double s);

// Writes to `path` + ".tmp" and renames, so a reader never sees half a file.
void write_json(const std::string& path, const Options& options, const BenchOutput& out,
                const std::optional<TargetVerdict>& verdict, const std::string& lab_target);

}  // namespace mml
