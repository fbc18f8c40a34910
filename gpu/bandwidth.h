// The device's measured read bandwidth: the ceiling of a kernel that must
// read its inputs once (lab 9's one-pass skinny product). Plain C++ header.
#pragma once

namespace mml::gpu {

struct ReadBandwidth {
    double gbs = 0;          // 10^9 bytes read per second, median of the runs
    double bytes = 0;        // bytes read per run
    int runs = 0;
};

// Reads a buffer of about 1 GiB (less if the GPU has less free) with 16-byte
// loads, coalesced, several loads in flight per thread, and sums it so that
// nothing is optimised away; one float per block is written. Median of 9
// runs after a warm-up. The first call measures (about 0.1 s), later calls
// return the same numbers. Throws std::runtime_error without a GPU.
const ReadBandwidth& measured_read_bandwidth();

}  // namespace mml::gpu
