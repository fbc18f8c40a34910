// Which measured stages lab 10 places on the roofline, and the data-movement
// model each is placed with: always the compulsory traffic (every input read
// once, the output written once); a tile model when the algorithm keeps a
// tile of C whose inputs it reads once. Harness data, not a task: the
// students' functions (labs/lab10/models.h) turn these tiles into bytes.
// Each stage also names the ceiling it runs under (the FP32 units, or the
// tensor cores in bf16 or TF32: models/tensor_peaks.h) and the size of its
// input elements (bf16 stages read 2 bytes an element of A and B; C is float32).
#pragma once

#include <vector>

namespace mml::roofline {

enum class Ceiling { Fp32, Bf16Tensor, Tf32Tensor };
const char* ceiling_name(Ceiling c);  // "FP32", "bf16 tensor cores", "TF32 tensor cores"

struct RooflineStage {
    const char* stage;         // "lab2.interchanged"
    long long tile_m, tile_n;  // the tile of C; 0 = no tile model; -1 = all of that side (tile_n = -1: N)
    const char* tile_note;     // why that tile, one line
    Ceiling ceiling = Ceiling::Fp32;
    int input_bytes = 4;       // bytes an element of A and B as the kernel reads them (C: always 4)
};

// Labs 1-5, on the CPU.
const std::vector<RooflineStage>& cpu_stages();
// Labs 6-8 and cuBLAS on the FP32 units, then the tensor-core stages (lab 8's
// TF32 extension, lab 11 and cuBLAS bf16/TF32), on the GPU.
const std::vector<RooflineStage>& gpu_stages();

// A traffic model's bytes with A and B at `input_bytes` an element instead of
// the 4 the model functions count (labs/lab10/models.h): C's 4MN stay, the
// inputs' part scales by input_bytes / 4.
double bytes_at_input_size(double float32_bytes, long long M, long long N, int input_bytes);

}  // namespace mml::roofline
