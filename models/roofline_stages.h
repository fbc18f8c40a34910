// Which measured stages lab 10 places on the roofline, and the data-movement
// model each is placed with: always the compulsory traffic (every input read
// once, the output written once); a tile model when the algorithm keeps a
// tile of C whose inputs it reads once. Harness data, not a task: the
// students' functions (labs/lab10/models.h) turn these tiles into bytes.
#pragma once

#include <vector>

namespace mml::roofline {

struct RooflineStage {
    const char* stage;         // "lab2.interchanged"
    long long tile_m, tile_n;  // the tile of C; 0 = no tile model; -1 = all of that side (tile_n = -1: N)
    const char* tile_note;     // why that tile, one line
};

// Labs 1-5, on the CPU.
const std::vector<RooflineStage>& cpu_stages();
// Labs 6-8 and cuBLAS, on the GPU.
const std::vector<RooflineStage>& gpu_stages();

}  // namespace mml::roofline
