// The tensor cores' dense peak of a GPU, from what the device reports (its
// compute capability, SM count and clock) and a small table of spec values:
// the FLOPs one SM's tensor cores do per clock, per input format, with FP32
// accumulation, dense (no 2:4 sparsity). The table's values come from NVIDIA's
// datasheets (models/tensor_peaks.cpp names each source); they are spec
// values, not measurements, and the peaks made from them are ceilings, not
// what any kernel reaches (lab 11 measures how close each one comes).
// Lab 10's roofline draws them beside the FP32 peak (gpu/device_info.h).
#pragma once

namespace mml::peaks {

enum class TensorFormat { Bf16, Tf32 };
const char* format_name(TensorFormat f);  // "bf16", "TF32"

// FLOPs (2 per multiply-add) one SM's tensor cores do per clock in format
// `f` with FP32 accumulation, dense; 0 where the table has no spec value
// for this compute capability (then there is no tensor-core ceiling).
double tensor_flops_per_clock_per_sm(int cc_major, int cc_minor, TensorFormat f);

// SMs x FLOPs per clock per SM x clock, in GFLOP/s; 0 where the table has no value.
double tensor_peak_gflops(int cc_major, int cc_minor, int sm_count, double clock_ghz, TensorFormat f);

// Where the table's values for this compute capability come from, or why it
// has none: one line, for reports.
const char* tensor_rate_source(int cc_major, int cc_minor);

}  // namespace mml::peaks
