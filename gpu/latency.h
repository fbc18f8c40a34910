// Latency micro-benchmarks in the manner of Wong et al. (ISPASS 2010), which
// Lei et al. 2024 used for its Table 4: one thread follows a chain of dependent
// loads (pointer chasing) or dependent arithmetic, timed with the SM's cycle
// counter (clock64), so each step costs exactly one latency. Plain C++ header.
#pragma once

namespace mml::gpu {

struct Latencies {
    double global_dram = 0;  // cycles: load that misses L1 and L2 (the model's sigma_g)
    double global_l2 = 0;    // cycles: load that hits L2 (L1 bypassed)
    double global_l1 = 0;    // cycles: global load that hits L1 (lab 10's cache-aware model)
    double shared = 0;       // cycles: shared-memory load (sigma_s)
    double fadd = 0;         // cycles: dependent FP32 add (sigma_add)
    double fmul = 0;         // cycles: dependent FP32 multiply (sigma_mul)
    double sm_clock_ghz = 0; // to turn cycles into seconds
};

// About 0.1 s. Throws std::runtime_error without a GPU.
Latencies measure_latencies();

// The thread limits the PHVM configuration model needs (Lei et al. 2024, Table 3),
// read from the device. Throws std::runtime_error without a GPU.
struct ThreadLimits {
    int sm_count = 0;
    int max_threads_per_sm = 0;  // SMS
    int warp_size = 0;           // WS
    int max_block = 0;           // largest block (threads)
};
ThreadLimits thread_limits();

}  // namespace mml::gpu
