// What lab 10's harness files share. Lab 10 is not a table of stages: it
// evaluates the students' model functions (labs/lab10/models.h) on measured
// stages and modelled kernels.
//   stages.cpp          the lab itself: `make lab10`'s report and target, the
//                       student's functions
//   roofline.cpp        part 1, the roofline, and `mmlab roofline`
//   lh_model.cpp        part 2, Yuan et al. 2010's latency-hidden model
//   lh_command.cpp      `mmlab lh-model` (part 2 alone, and --explain)
//   measured_gpu.cpp    what both parts measure on a GPU (CUDA builds only)
//   references.cpp      binds the reference's model functions
//   references_gpu.cpp  binds the compiled reference kernels the model describes (CUDA builds only)
// The two references files are the only ones that include solutions/; a
// build without the answers leaves them out.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cpu/matrix.h"
#include "gpu/occupancy.h"
#include "harness/bench.h"
#include "harness/stage.h"
#include "models/lh_model.h"
#include "models/roofline_stages.h"

namespace mml {
class CsvFile;  // harness/csv_file.h
}

namespace mml::lab10 {

// ---------------------------------------------------------------- the model functions

// The eight functions of labs/lab10/models.h, of one version.
struct ModelFns {
    double (*compulsory_bytes)(Shape);
    double (*tiled_bytes)(Shape, std::int64_t, std::int64_t);
    double (*arithmetic_intensity)(Shape, double);
    double (*roofline_gflops)(double, double, double);
    lh::WaitingCyclesFn waiting_cycles;
    lh::LatencyHiddenFn latency_hidden;
    double (*time_one_rep)(const std::vector<lh::Block>&, const lh::Occupancy&);
    long long (*rep_num)(long long, int, int);
    double (*time_total_cycles)(const lh::Kernel&);
};
// The student's (stages.cpp) or the reference's (bound by references.cpp);
// nullptr for the reference in a build without the answers.
const ModelFns* model_fns(Impl impl);
// The reference's where this build has it, else `fallback`: for the columns
// every table shows from the reference (RepNum, the printed sum), whoever's
// functions it evaluates.
const ModelFns& reference_or(const ModelFns& fallback);
// The version `impl` names, or a UsageError saying that the reference is not
// in this build (`what`: the command that needs it).
const ModelFns& model_fns_or_error(Impl impl, std::string_view what);

// In references.cpp: static ReferenceModels r(ModelFns{reference::lab10::compulsory_bytes, ...});
struct ReferenceModels {
    explicit ReferenceModels(const ModelFns& fns);
};

// ---------------------------------------------------------------- the modelled kernels

// The compiled reference kernel behind each of models/lh_kernels.h's kernels
// ("naive", "tiled16"...), whose registers and occupancy the model takes from
// the device, and the stage that runs it. Bound by references_gpu.cpp; empty
// in a build without the answers (the GPU part of lh-model then says so).
struct ModelledKernel {
    std::string kernel;  // models/lh_kernels.h's name
    std::string stage;   // the stage timed beside the prediction: "lab6.naive_coalesced"...
    gpu::KernelHandle handle;
};
void bind_modelled_kernel(const ModelledKernel& k);
const std::vector<ModelledKernel>& modelled_kernels();  // in models/lh_kernels.h's order

// ---------------------------------------------------------------- what the GPU build measures

// For the roofline: the stages it timed, the ceilings (spec FP32 from
// gpu/device_info.h; spec bf16 and TF32 tensor cores from
// models/tensor_peaks.h, 0 where that table has no value) and the measured
// read bandwidth.
struct GpuRoofline {
    std::string device;  // one line
    std::string ceilings;  // the ceilings, where they come from, and the stages left off for want of one
    double peak_gflops = 0, bf16_peak_gflops = 0, tf32_peak_gflops = 0, bandwidth_gbs = 0;
    std::vector<Measurement> rows;
    std::vector<roofline::RooflineStage> stages;  // those timed: a stage whose ceiling is 0 here is left off
    double peak_for(roofline::Ceiling c) const;
};

// One kernel at one size for the latency-hidden model: the model's inputs
// (from the device: occupancy, latencies, bandwidth) and the measured time.
struct LhCase {
    std::string kernel;       // "naive", "tiled16"...
    Shape shape;
    lh::Kernel model;         // blocks, occupancy, NB, NSM, clock: the paper's model (every load to DRAM)
    lh::Kernel cached;        // the same with lab 10's caches (models/lh_reuse.h)
    int regs_per_thread = 0, shared_bytes = 0, blocks_per_sm_device = 0;
    double measured_ms = 0;   // kernel time, median (CUDA events); <0 when not run
    std::string check;        // "ok" or what is wrong
};
struct GpuLh {
    std::string device;       // one line
    std::string inputs;       // the hardware inputs, one line
    std::vector<LhCase> cases;
};

// Filled in by measured_gpu.cpp in CUDA builds; empty otherwise.
struct GpuSections {
    std::function<GpuRoofline(Shape, const BenchSettings&)> roofline;
    std::function<GpuLh(const std::vector<long long>& sizes, int reps, bool quiet)> lh;  // quiet: no progress on stderr
};
GpuSections& gpu_sections();

// Why the latency-hidden model cannot be measured on this GPU ("" when it can):
// no CUDA in this build, no GPU, or no reference kernels in this build.
std::string gpu_lh_unavailable();

// ---------------------------------------------------------------- the sections `make lab10` prints

// The student's numbers against the reference's, row by row: make lab10's
// target. Two numbers are the same when their relative difference is at most 1e-9.
bool same_number(double a, double b);
struct Comparison {
    int rows = 0, differ = 0;
    std::string first;  // the first row that differs
    void check(bool ok, const std::string& what);
};

// Part 1 (roofline.cpp): the CPU stages at `cpu_shapes` on `threads`
// threads and, where a GPU is (with_gpu), the GPU stages at `gpu_shape`, on
// the roofline with `f`'s traffic and bound functions; compared with the
// reference's into `c` where this build has it; every row into `csv` when
// given (committed at the end). Returns the number of stages whose result
// failed its check (left off the table).
int roofline_section(const std::vector<Shape>& cpu_shapes, int threads, Shape gpu_shape, bool with_gpu,
                     const BenchSettings& settings, const ModelFns& f, Comparison& c, CsvFile* csv = nullptr);

// Part 2 (lh_model.cpp): the model with `f` on the paper's C1060 inputs,
// then on this GPU beside the measured times at `sizes` (or, without a GPU,
// on the recorded H100 inputs beside that run's times, handouts/data/lab10-lh-h100.csv),
// compared with the reference's into `c` where this build has it. Returns
// the number of rows measured on this GPU, which go into `csv` when given
// (committed at the end; without a GPU there are none, and it is left alone).
int lh_sections(const std::vector<long long>& sizes, int reps, bool quiet, const ModelFns& f, Comparison& c,
                CsvFile* csv = nullptr);
// The paper's sizes 2^i + 32, then 2^i, i = 9..12 (those of the recorded H100 run).
std::vector<long long> default_lh_sizes();

}  // namespace mml::lab10
