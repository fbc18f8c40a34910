// Lab 10 helpers shared by its CPU-side registration and commands
// (harness/stages/lab10/stages.cpp) and its GPU measurements
// (harness/stages/lab10/measured_gpu.cpp, built only with CUDA).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cpu/matrix.h"
#include "gpu/lh_model.h"
#include "harness/bench.h"
#include "harness/stage.h"

namespace mml::lab10 {

// The eight model functions of one version: the student's (labs/lab10) or
// the reference (solutions/lab10).
struct ModelFns {
    double (*compulsory_bytes)(Shape);
    double (*tiled_bytes)(Shape, std::int64_t, std::int64_t);
    double (*arithmetic_intensity)(Shape, double);
    double (*roofline_gflops)(double, double, double);
    double (*time_total_cycles)(const lh::Kernel&);
};
ModelFns model_fns(Impl impl);

// One stage placed on the roofline, and the data-movement models it is
// placed with: always the compulsory traffic; a tile when the algorithm
// has one (tile_m x tile_n of C whose inputs it reads once).
struct RooflineStage {
    const char* stage;
    long long tile_m, tile_n;  // 0 = no tile model
    const char* tile_note;
};

// What the GPU build measures for the roofline: the stages it timed, the
// peak (spec FP32, from gpu/device_info.h) and the measured read bandwidth.
struct GpuRoofline {
    std::string device;  // one line
    double peak_gflops = 0, bandwidth_gbs = 0;
    std::vector<Measurement> rows;
    std::vector<RooflineStage> stages;
};

// One kernel at one size for the latency-hidden model: the model's inputs
// (from the device: occupancy, latencies, bandwidth) and the measured time.
struct LhCase {
    std::string kernel;       // "naive", "tiled16"...
    Shape shape;
    lh::Kernel model;         // blocks, occupancy, NB, NSM, clock
    int regs_per_thread = 0, shared_bytes = 0, blocks_per_sm_device = 0;
    double measured_ms = 0;   // kernel time, median (CUDA events); <0 when not run
    std::string check;        // "ok" or what is wrong
};
struct GpuLh {
    std::string device;       // one line
    std::string inputs;       // the hardware inputs, one line
    std::vector<LhCase> cases;
};

// Filled in by harness/stages/lab10/measured_gpu.cpp in CUDA builds; empty otherwise.
struct GpuSections {
    std::function<GpuRoofline(Shape, const BenchSettings&)> roofline;
    std::function<GpuLh(const std::vector<long long>& sizes, int reps, bool quiet)> lh;  // quiet: no progress on stderr
};
GpuSections& gpu_sections();

}  // namespace mml::lab10
