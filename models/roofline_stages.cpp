#include "models/roofline_stages.h"

namespace mml::roofline {

const char* ceiling_name(Ceiling c) {
    switch (c) {
        case Ceiling::Bf16Tensor: return "bf16 tensor cores";
        case Ceiling::Tf32Tensor: return "TF32 tensor cores";
        default: return "FP32";
    }
}

// The tile each CPU algorithm keeps in cache: the rows of C it finishes while
// their inputs stay there.
const std::vector<RooflineStage>& cpu_stages() {
    static const std::vector<RooflineStage> s = {
        {"lab1.ijk", 1, 1, "1x1: each element of C reads a row of A and a column of B"},
        {"lab2.interchanged", 1, -1, "1xN: row i of C stays in cache while B streams past"},
        {"lab2.transposed", 1, -1, "1xN: row i of A stays in cache while B^T streams past"},
        {"lab2.blocked", 0, 0, ""},
        {"lab4.omp_static", 0, 0, ""},
        {"lab5.blis", 0, 0, ""},
        {"lab5.openblas", 0, 0, ""},
    };
    return s;
}

// The tile of C each GPU kernel computes a thread (naive) or a block.
const std::vector<RooflineStage>& gpu_stages() {
    using C = Ceiling;
    static const std::vector<RooflineStage> s = {
        {"lab6.naive_coalesced", 1, 1, "each thread reads its row of A and column of B"},
        {"lab7.tiled16", 16, 16, "16x16 tiles of A and B in shared memory"},
        {"lab7.tiled32", 32, 32, "32x32 tiles"},
        {"lab7.volkov", 64, 128, "64 x 128 of C a block"},
        {"lab8.register_tile", 128, 128, "128 x 128 block tile"},
        {"lab8.double_buffer", 128, 256, "128 x 256 block tile"},
        {"lab8.cublas", 0, 0, ""},
        {"lab8.wmma_tf32", 128, 128, "128 x 128 block tile, float32 operands", C::Tf32Tensor, 4},
        {"lab8.cublas_tf32", 0, 0, "", C::Tf32Tensor, 4},
        {"lab11.wmma_bf16", 128, 128, "128 x 128 block tile, bf16 operands", C::Bf16Tensor, 2},
        {"lab11.mma_sync", 128, 256, "128 x 256 block tile", C::Bf16Tensor, 2},
        {"lab11.wgmma", 128, 256, "128 x 256 block tile (128 x 128 for products with few tiles)", C::Bf16Tensor, 2},
        {"lab11.cublas_bf16", 0, 0, "", C::Bf16Tensor, 2},
        {"lab11.wgmma_tf32", 128, 256, "128 x 256 block tile, TF32 in float32", C::Tf32Tensor, 4},
        {"lab11.cublas_tf32", 0, 0, "", C::Tf32Tensor, 4},
    };
    return s;
}

double bytes_at_input_size(double float32_bytes, long long M, long long N, int input_bytes) {
    const double c_bytes = 4.0 * double(M) * double(N);
    return c_bytes + (float32_bytes - c_bytes) * input_bytes / 4.0;
}

}  // namespace mml::roofline
