// The CPU's measured memory bandwidth, STREAM-style (McCalpin): the slope
// of the roofline for the CPU stages, measured, never taken from a datasheet.
#pragma once

namespace mml {

struct StreamBandwidth {
    int threads = 1;
    double read_gbs = 0;   // 10^9 bytes/s: summing an array far larger than the caches
    double triad_gbs = 0;  // a[i] = b[i] + s*c[i], counted as 12 bytes an element (STREAM's rule:
                           // the write-allocate read of a[i] is not counted)
    double array_bytes = 0;
};

// Three float arrays of 64 MiB each (larger than any L3 we run on), touched
// first by the threads that use them; each kernel runs `passes` times after a
// warm-up and the best (fastest) pass counts, as STREAM does. About 0.2 s.
StreamBandwidth measure_stream_bandwidth(int threads, int passes = 7);

// The read bandwidth for `threads` threads, measured once per run (cached).
double measured_read_bandwidth_gbs(int threads);

}  // namespace mml
