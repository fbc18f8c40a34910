#include "models/tensor_peaks.h"

namespace mml::peaks {
namespace {

// Dense FLOPs per clock per SM with FP32 accumulation. Each row is the
// datasheet's TFLOP/s divided by its SM count and the boost clock it was
// computed at, so that the row times this GPU's own SMs and clock gives the
// same kind of number for any part of that architecture.
struct Row {
    int cc_major, cc_minor;
    double bf16, tf32;
    const char* source;
};
constexpr Row kTable[] = {
    {8, 0, 2048, 1024,
     "spec: A100 datasheet, 312 (bf16) and 156 (TF32) dense TFLOP/s = 108 SMs x 1.41 GHz x 2048 / 1024 FLOPs a "
     "clock an SM"},
    {9, 0, 4096, 2048,
     "spec: H100 SXM5 datasheet, 989.4 (bf16) and 494.7 (TF32) dense TFLOP/s = 132 SMs x 1.83 GHz x 4096 / 2048 "
     "FLOPs a clock an SM"},
};

const Row* row_of(int cc_major, int cc_minor) {
    for (const Row& r : kTable)
        if (r.cc_major == cc_major && r.cc_minor == cc_minor) return &r;
    return nullptr;
}

}  // namespace

const char* format_name(TensorFormat f) { return f == TensorFormat::Bf16 ? "bf16" : "TF32"; }

double tensor_flops_per_clock_per_sm(int cc_major, int cc_minor, TensorFormat f) {
    const Row* r = row_of(cc_major, cc_minor);
    if (!r) return 0;
    return f == TensorFormat::Bf16 ? r->bf16 : r->tf32;
}

double tensor_peak_gflops(int cc_major, int cc_minor, int sm_count, double clock_ghz, TensorFormat f) {
    return sm_count * clock_ghz * tensor_flops_per_clock_per_sm(cc_major, cc_minor, f);
}

const char* tensor_rate_source(int cc_major, int cc_minor) {
    if (const Row* r = row_of(cc_major, cc_minor)) return r->source;
    if (cc_major < 8)
        return "no tensor-core ceiling: GPUs below sm_80 have no bf16 or TF32 tensor cores (V100 and Turing take fp16)";
    return "no tensor-core ceiling: models/tensor_peaks.cpp has spec values for sm_80 (A100) and sm_90 (H100) only; "
           "consumer parts of other architectures differ by product (GeForce halves the rate with FP32 "
           "accumulation), and export variants (H20) by SKU";
}

}  // namespace mml::peaks
