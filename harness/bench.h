// The measuring loop: verify each (stage, version, shape) once on fresh
// inputs, then time it with Google Benchmark and keep the median.
#pragma once

#include <string>
#include <vector>

#include "cpu/stats.h"
#include "harness/stage.h"

namespace mml {

struct Job {
    const Stage* stage = nullptr;
    Impl impl = Impl::Reference;  // the label in the table
    Impl runs = Impl::Reference;  // the code that runs (--solution runs the reference as "student")
    Shape shape;
    bool own_params = false;  // use `params` below instead of the settings' (sweeps)
    StageParams params;
    // The baseline timed at a smaller shape for this one (Lab::baseline_limit_macs);
    // {0,0,0}: none.
    Shape scaled_to{0, 0, 0};
};


struct BenchSettings {
    int reps = 0;  // 0 = automatic
    StageParams params;
    bool force = false;
    bool quiet = false;
};

// One repetition or aggregate exactly as Google Benchmark reported it.
struct RawRun {
    std::string name;       // the name registered with Google Benchmark (unique within a run)
    int job = -1;           // the job it measured (index into the jobs given to measure)
    std::string run_type;   // "iteration" or "aggregate"
    std::string aggregate;  // "mean", "median", "stddev", "cv" for aggregates
    long long iterations = 0;
    long long repetitions = 0, repetition_index = 0;
    int threads = 1;        // Google Benchmark's threads (1: our stages start their own)
    double real_seconds_per_iteration = 0;  // manual (CUDA event) time for GPU stages
    double cpu_seconds_per_iteration = 0;
};

struct BenchOutput {
    std::vector<Measurement> rows;  // in job order
    std::vector<RawRun> raw;
};

BenchOutput measure(const std::vector<Job>& jobs, const BenchSettings& settings);

// The jobs timed in ALTERNATION: `rounds` rounds of one timed repetition per
// job (a, b, a, b, ...), one row per job in job order, each with the median
// over the rounds and the rounds' fastest and slowest as its range (a row
// that failed in any round keeps that failure). A burst of another program's
// work then lands on one sample of each job, not on all samples of one: the
// way to compare two versions on the same machine (lab 4's scaling and
// judge, lab 2's judge).
std::vector<Measurement> measure_in_rounds(const std::vector<Job>& jobs, int rounds, const BenchSettings& settings);

}  // namespace mml
