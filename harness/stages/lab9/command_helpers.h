// What lab 9's commands share (one file each: phvm.cpp, phvm_sweep.cpp,
// phvm_model.cpp, gpu_latency.cpp): option parsing beyond harness/cli.h,
// fitting a paper shape into this machine's memory, the model's inputs for
// this GPU, and the timing of one skinny product's kernel and copies.
#pragma once

#include <string>

#include "cpu/matrix.h"
#include "gpu/latency.h"
#include "harness/run_stage.h"
#include "models/phvm_config_model.h"

namespace mml::lab9 {

// A real number in [lo, hi]; `what` names the flag in the error (UsageError).
double parse_real(const std::string& text, const std::string& what, double lo, double hi);

// The largest K whose E and F fit both in the GPU's free memory (90 %, less
// the one-pass workspace) and in the host's available memory (60 %: the host
// holds E and F too, and the check a little more). If the shape's K does not
// fit, says so and returns the shape at that K (rounded down to a round number).
Shape fit_shape(Shape s);

// "GPU     : <name> (sm_XY), ... measured read bandwidth N GB/s"
void print_device_line(double read_bandwidth_gbs);

// The model's inputs for this GPU: limits read from the device, latencies
// measured (gpu-latency), u_SM as given.
phvm::ModelGpu this_gpu_model(const gpu::Latencies& latencies, double usm);
void print_model_inputs(const phvm::ModelGpu& g);

// The copies the kernel time leaves out, as Lei et al. 2024's tables count them:
// E and F in (synchronous, from pageable memory), R out. upload_ms makes the
// problem's device copy, so it comes before the first run.
double upload_ms(Problem& p);
double download_ms(Problem& p);

// The median (cpu/stats.h) kernel time of `reps` runs of `fn` on the
// problem's device copy, after run_once_and_verify has checked it.
double median_kernel_ms(Problem& p, const MatmulFn& fn, const StageParams& params, int reps);

}  // namespace mml::lab9
