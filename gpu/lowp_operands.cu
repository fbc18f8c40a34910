// Lab 11's operand conversion (gpu/lowp_operands.h): float32 -> bf16, TF32
// or FP8 e4m3, rounded to nearest-even by cpu/rounding.h (the check's function, so
// the check's rounded inputs are the kernel's inputs bit for bit), A copied
// row by row, B transposed through shared memory, pad columns zeroed.
#include "gpu/lowp_operands.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"

namespace mml::gpu {
namespace {

// One output element: bf16 keeps the top 16 bits of the rounded float, TF32
// all 32, e4m3 its byte (cpu/rounding.h: e4m3_bits).
template <typename Out>
__device__ __forceinline__ Out convert(float x, InputRounding format);
template <>
__device__ __forceinline__ unsigned short convert<unsigned short>(float x, InputRounding) {
    return static_cast<unsigned short>(__float_as_uint(round_to_bf16(x)) >> 16);
}
template <>
__device__ __forceinline__ float convert<float>(float x, InputRounding) {
    return round_to_tf32(x);
}
template <>
__device__ __forceinline__ unsigned char convert<unsigned char>(float x, InputRounding) {
    return e4m3_bits(round_to_e4m3(x));
}

// out (rows x ld) = in (rows x cols) rounded, zeros in columns cols..ld-1.
template <typename Out>
__global__ void convert_rows(const float* __restrict__ in, Out* __restrict__ out, std::int64_t rows,
                             std::int64_t cols, std::int64_t ld, InputRounding format) {
    const std::int64_t total = rows * ld;
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t r = e / ld, c = e % ld;
        out[e] = convert<Out>(c < cols ? in[r * cols + c] : 0.0f, format);
    }
}

// out (cols x ld) = in (rows x cols) transposed and rounded, zeros in columns
// rows..ld-1 of out: 32 x 32 tiles through shared memory, so that both the
// reads and the writes are coalesced. blockIdx.y walks the tile rows in
// steps of gridDim.y: a grid's y is at most 65535, and a long K (B has K
// rows) needs more tile rows than that (K = 50,000,000: 1,562,500).
template <typename Out>
__global__ void convert_transposed(const float* __restrict__ in, Out* __restrict__ out, std::int64_t rows,
                                   std::int64_t cols, std::int64_t ld, InputRounding format) {
    __shared__ float tile[32][33];
    const std::int64_t c0 = std::int64_t(blockIdx.x) * 32, tile_rows = (ld + 31) / 32;
    for (std::int64_t ty = blockIdx.y; ty < tile_rows; ty += gridDim.y) {
        const std::int64_t r0 = ty * 32;
        for (int y = threadIdx.y; y < 32; y += blockDim.y) {
            const std::int64_t r = r0 + y, c = c0 + threadIdx.x;
            tile[y][threadIdx.x] = (r < rows && c < cols) ? in[r * cols + c] : 0.0f;
        }
        __syncthreads();
        for (int y = threadIdx.y; y < 32; y += blockDim.y) {
            const std::int64_t oc = c0 + y, orow_k = r0 + threadIdx.x;  // out row = input column
            if (oc < cols && orow_k < ld) out[oc * ld + orow_k] = convert<Out>(tile[threadIdx.x][y], format);
        }
        __syncthreads();  // the tile is read before the next one overwrites it
    }
}

struct Store {
    LowpOperands ops;
    DeviceBuffer<unsigned char> a, bt;  // grown, never shrunk
};
// One per format, alive for the whole process (the OS reclaims them at exit:
// freeing GPU memory from a static destructor can run after CUDA's own teardown).
Store& store_for(InputRounding format) {
    static Store* bf16 = new Store;
    static Store* tf32 = new Store;
    static Store* e4m3 = new Store;
    if (format == InputRounding::Bf16) return *bf16;
    if (format == InputRounding::Tf32) return *tf32;
    if (format == InputRounding::E4m3) return *e4m3;
    throw std::logic_error("lab 11 operands: no conversion for fp32 (InputRounding::None)");
}

template <typename Out>
void convert_all(const float* A, const float* B, Shape s, std::int64_t ld, Out* a, Out* bt, InputRounding format) {
    const int threads = 256;
    const std::int64_t total = s.M * ld;
    const unsigned blocks = unsigned(std::min<std::int64_t>((total + threads - 1) / threads, 65535));
    convert_rows<Out><<<blocks, threads>>>(A, a, s.M, s.K, ld, format);
    CUDA_CHECK_LAUNCH();
    // B is K x N: its transpose is N x K with rows ld apart; the tiles cover the pad columns too.
    const std::int64_t tiles_n = (s.N + 31) / 32, tiles_k = (ld + 31) / 32;
    if (tiles_n > 0x7fffffff)
        throw std::runtime_error("lab 11 operands: N = " + std::to_string(s.N) +
                                 " needs more than 2^31 - 1 blocks of 32 columns; use N < 68,719,476,704");
    const dim3 grid(unsigned(tiles_n), unsigned(std::min<std::int64_t>(tiles_k, 65535)));
    convert_transposed<Out><<<grid, dim3(32, 8)>>>(B, bt, s.K, s.N, ld, format);
    CUDA_CHECK_LAUNCH();
}

}  // namespace

void prepare_lowp_operands(const float* A, const float* B, Shape s, InputRounding format) {
    Store& st = store_for(format);
    const std::int64_t ld = lowp_leading_dim(s.K, format);
    const std::size_t elem = format == InputRounding::Bf16 ? 2 : format == InputRounding::E4m3 ? 1 : 4;
    const std::int64_t pad = format == InputRounding::E4m3 ? 16 : 1;
    const std::int64_t rows_a = (s.M + pad - 1) / pad * pad, rows_b = (s.N + pad - 1) / pad * pad;
    const std::size_t a_bytes = std::size_t(rows_a * ld) * elem, b_bytes = std::size_t(rows_b * ld) * elem;
    st.ops = LowpOperands{};  // invalid until the conversion below has finished
    if (st.a.count() < a_bytes) st.a = DeviceBuffer<unsigned char>(a_bytes);
    if (st.bt.count() < b_bytes) st.bt = DeviceBuffer<unsigned char>(b_bytes);
    if (pad > 1) {  // the rows past M and N: zeros
        CUDA_CHECK(cudaMemset(st.a.get() + std::size_t(s.M * ld) * elem, 0, a_bytes - std::size_t(s.M * ld) * elem));
        CUDA_CHECK(cudaMemset(st.bt.get() + std::size_t(s.N * ld) * elem, 0, b_bytes - std::size_t(s.N * ld) * elem));
    }
    if (format == InputRounding::Bf16)
        convert_all(A, B, s, ld, reinterpret_cast<unsigned short*>(st.a.get()),
                    reinterpret_cast<unsigned short*>(st.bt.get()), format);
    else if (format == InputRounding::E4m3)
        convert_all(A, B, s, ld, st.a.get(), st.bt.get(), format);
    else
        convert_all(A, B, s, ld, reinterpret_cast<float*>(st.a.get()), reinterpret_cast<float*>(st.bt.get()),
                    format);
    CUDA_CHECK(cudaDeviceSynchronize());
    st.ops = LowpOperands{format, s, ld, st.a.get(), st.bt.get(), pad, A, B};
}

const LowpOperands& lowp_operands_for(const float* A, const float* B, Shape s, InputRounding format) {
    const LowpOperands& ops = store_for(format).ops;
    if (ops.format != format || ops.made_from_A != A || ops.made_from_B != B || ops.shape != s)
        throw std::logic_error(std::string("lab 11: the ") + rounding_name(format) +
                               " operands were not prepared from these inputs: Stage::prepare "
                               "(prepare_lowp_operands) must run before every call");
    return ops;
}

}  // namespace mml::gpu
