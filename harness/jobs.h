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
// For a lab with Lab::baseline_limit_macs: the baseline at every shape within
// that limit (or all with --force), and for each shape above it one job at the
// shape halved until within it, standing for that shape (Job::scaled_to).
void add_lab_baseline(std::vector<Job>& jobs, const std::vector<Shape>& shapes, double limit_macs, bool force);
// The reference of `stage_name` (Lab::previous_best) at every shape, on the
// run's threads; nothing where the stage is not in this build.
void add_previous_best(std::vector<Job>& jobs, const std::string& stage_name, const std::vector<Shape>& shapes,
                       const StageParams& params);
// Fills Measurement::speedup_vs_previous from the rows of `stage_name` (reference).
void fill_previous_speedups(std::vector<Measurement>& rows, const std::string& stage_name);
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
