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

// The L2's read bandwidth, all SMs together: every SM's threads read an 8 MiB
// buffer (inside the L2, past every L1) again and again with 16-byte loads
// that bypass the L1 (__ldcg), 64 passes a launch. Median of 9 launches after
// a warm-up that brings the buffer into the L2. Lab 10's cache-aware model
// gives each SM 1/NSM of it. The first call measures, later calls return the
// same numbers. Throws std::runtime_error without a GPU.
struct L2Bandwidth {
    ReadBandwidth read;   // the L2's read bandwidth, all SMs together
    double l2_bytes = 0;  // the L2's size as the device reports it (both partitions on an H100)
};
const L2Bandwidth& measured_l2_read_bandwidth();

}  // namespace mml::gpu
