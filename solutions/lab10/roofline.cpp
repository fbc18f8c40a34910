// Lab 10 reference, part 1: data movement, arithmetic intensity and the
// roofline bound (Williams, Waterman, Patterson, CACM 2009).
#include <algorithm>
#include <cmath>

#include "solutions/lab10/models.h"

namespace reference::lab10 {

// The least any algorithm can move between memory and the chip: every input
// read once, every output written once (4 bytes a float).
double compulsory_bytes(mml::Shape s) {
    const double M = double(s.M), N = double(s.N), K = double(s.K);
    return 4.0 * (M * K + K * N + M * N);
}

// A tile of C of tile_m x tile_n needs tile_m rows of A and tile_n columns of
// B, all K deep. With nothing shared between tiles, A is read once by every
// column of tiles (ceil(N / tile_n) times) and B once by every row of tiles
// (ceil(M / tile_m) times); C is written once. Tiles of 1 x 1 are the naive
// algorithm (2K reads per output); a tile as large as C is the compulsory
// traffic. So bigger tiles -> fewer bytes per FLOP -> higher intensity.
double tiled_bytes(mml::Shape s, std::int64_t tile_m, std::int64_t tile_n) {
    const double M = double(s.M), N = double(s.N), K = double(s.K);
    const double row_tiles = std::ceil(M / double(tile_m));
    const double col_tiles = std::ceil(N / double(tile_n));
    return 4.0 * (col_tiles * M * K + row_tiles * K * N + M * N);
}

double arithmetic_intensity(mml::Shape s, double bytes) {
    return 2.0 * double(s.M) * double(s.N) * double(s.K) / bytes;
}

// Below the ridge point (intensity < peak / bandwidth) memory cannot feed
// the arithmetic units fast enough; above it, they are the limit.
double roofline_gflops(double intensity, double peak_gflops, double bandwidth_gbs) {
    return std::min(peak_gflops, intensity * bandwidth_gbs);
}

}  // namespace reference::lab10
