// What the core commands (run, lab, demo) share: turning stages and shapes
// into the jobs that harness/bench.h measures, the baseline row, and the
// checks made before anything is printed or run.
#pragma once

#include <string>
#include <vector>

#include "harness/bench.h"
#include "harness/cli.h"

namespace mml {

// One job per (shape, stage, version): the student's version where `choice`
// asks for it and the stage has one (the reference's code under --solution),
// the reference where asked or where the stage is a peer row.
std::vector<Job> make_jobs(const std::vector<const Stage*>& stages, const std::vector<Shape>& shapes,
                           ImplChoice choice, bool solution);
// Adds the baseline's reference (lab1.ijk) at every shape, for the "x ijk" column.
void add_baseline(std::vector<Job>& jobs, const std::vector<Shape>& shapes);
// The shapes at which the baseline runs at all: within its size limit (max_macs), or all with --force.
std::vector<Shape> baseline_shapes(const std::vector<Shape>& shapes, bool force);
// Memory, --param names and values, and a GPU where a GPU stage is asked for:
// a UsageError before anything runs.
void validate(const std::vector<Job>& jobs, const StageParams& params);
// --json FILE must be writable before the (long) run starts.
void check_json_path(const std::string& path);
BenchSettings settings_from(const Options& o);
bool all_passed(const BenchOutput& out);
// --no-baseline is for `run`: lab and demo need the baseline row.
void refuse_no_baseline(const Options& o);

}  // namespace mml
