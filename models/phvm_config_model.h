// The time-cost model of PHVM and its optimal kernel configuration (Eq. 1-11)
// of Lei, Liu and Song ("Time Cost Model and Optimal Configuration Method for
// GPU Parallel Computation of Matrix Multiplication", Computer Science 2024),
// written as the paper states it. Plain C++: it runs without a GPU.
// A model the harness evaluates (mmlab phvm-model, phvm-sweep), not a task:
// students read it (handouts/lab9.md) and compare it with their measurements.
//
// Inputs: the hardware (Table 3: SM count SM_NUM, max resident threads per SM
// SMS, warp size WS, CUDA cores CoreS), operation latencies in cycles (Table 4:
// sigma_add, sigma_mul, sigma_g global memory, sigma_s shared memory, measured
// with pointer-chasing micro-benchmarks) and the SM utilisation u_SM (Table 4,
// measured by the paper with Nsight Compute while PHVM runs).
//   t_prep = K/(BS*GS) * (2 sigma_g + sigma_add + sigma_mul)
//            + sigma_s + log2(BS) * (sigma_add + 3 sigma_s)            (Eq. 7)
//   t_post = sigma_s + sigma_g + sigma_add + sigma_g                     (Eq. 8)
//   if t_prep < (CoreS/BS) * t_post:
//        t_single = t_prep + GS * t_post                                (Eq. 9)
//   else t_single = (GS*BS/CoreS) * t_prep + (CoreS/BS) * GS * t_post    (Eq. 10)
//   Eq. 11: t_prep is divided by u_SM (see UsmReading);
//   total = M * N * t_single                                            (Eq. 1)
// minimised over (GS, BS) subject to BS*GS = SMS*SM_NUM (Eq. 2), BS a whole
// number of warps (Eq. 3) and a whole number of blocks filling an SM (Eq. 4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mml::phvm {

struct ModelGpu {
    std::string name;
    int sm_num = 0;        // SM_NUM
    int sms = 0;           // SMS: max resident threads per SM
    int ws = 32;           // WS: warp size
    int cores = 0;         // CoreS: FP32 CUDA cores on the chip
    double sigma_add = 1, sigma_mul = 2, sigma_g = 0, sigma_s = 0;  // cycles
    double u_sm = 1;       // SM utilisation while PHVM runs, (0, 1]
    int max_block = 1024;  // largest block the GPU launches
};

// Tables 3 and 4 of the paper, exactly.
ModelGpu paper_rtx2080ti();
ModelGpu paper_a100();

// Eq. 11 is printed ambiguously: which part of t_prep 1/u_SM multiplies.
// The text says t_prep was derived assuming fully loaded SMs, so by default
// the whole of t_prep is divided by u_SM; the other two readings are kept so
// that one can check that they do not change the optimum.
enum class UsmReading { WholePrep, LoadTermOnly, ReductionTermOnly };

struct ModelTime {
    double t_prep = 0, t_post = 0;  // cycles, Eq. 7 (with Eq. 11) and Eq. 8
    double t_single = 0;            // cycles, Eq. 9 or 10
    double total = 0;               // cycles, Eq. 1: M*N*t_single
    int equation = 0;               // 9 or 10: which case applied
};

ModelTime predict(const ModelGpu& g, std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t gs,
                  std::int64_t bs, UsmReading reading = UsmReading::WholePrep);

// Eq. 2-4: BS*GS = SMS*SM_NUM, BS = k1*WS, k2*BS = SMS (and BS <= max_block).
bool satisfies_constraints(const ModelGpu& g, std::int64_t gs, std::int64_t bs);
struct Config {
    std::int64_t gs = 0, bs = 0;
};
std::vector<Config> feasible_configs(const ModelGpu& g);

struct Optimum {
    Config config;
    ModelTime time;
};
// The model's optimum over the feasible set of Eq. 2-4.
Optimum model_optimum(const ModelGpu& g, std::int64_t M, std::int64_t N, std::int64_t K,
                      UsmReading reading = UsmReading::WholePrep);

}  // namespace mml::phvm
