// lab 11's cuBLASLt FP8 peer (peers/peer_cublaslt_fp8.h).
//
// cuBLASLt is column-major, and its FP8 kernels take only the "TN" form (A
// transposed, B not: cublasLtMatmul's documented requirements). As in
// peers/peer_cublas_lowp.cu: the row-major C (M x N) is the column-major C^T
// (N x M) = B^T A^T; our Bt buffer read column-major is ld x N, transposed
// (OP_T) it is B^T; our A buffer read column-major is A^T (ld x M), OP_N.
// So m = N, n = M, "TN", both leading dimensions ld, and k = ld: the pad
// columns K..ld-1 are zeros (adding zero products changes no sum), and ld, a
// multiple of 128, meets the FP8 kernels' 16-byte rule where K may not.
// Where cuBLASLt has no kernel for m = N, n = M as they are (its FP8 kernels
// want 16-aligned dimensions), it multiplies the operands' zero-padded rows
// (up to multiples of 16) into a scratch buffer, and the call copies the
// M x N part into C - that copy is inside the timed call, and said so in
// the table's library line.
#include "peers/peer_cublaslt_fp8.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>

#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"

namespace mml::peers {
namespace {

void check(cublasStatus_t st, const char* what) {
    if (st != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string("cuBLASLt FP8: ") + what + " failed: " + cublasGetStatusString(st));
}

constexpr std::size_t kWorkspaceBytes = 32u << 20;  // what NVIDIA's samples give Hopper's kernels

// The handle, the workspace and the scales (1.0f, on the device), made on
// first use and kept for the process (creating them must not be timed; the
// OS reclaims them at exit).
struct Context {
    cublasLtHandle_t handle = nullptr;
    gpu::DeviceBuffer<unsigned char> workspace{kWorkspaceBytes};
    gpu::DeviceBuffer<float> one{1};  // the A and B scale (a cudaMalloc'd pointer: cuBLASLt checks alignment)
    gpu::DeviceBuffer<float> scratch;  // the padded product, where it is needed
    Context() {
        check(cublasLtCreate(&handle), "cublasLtCreate");
        const float value = 1.0f;
        CUDA_CHECK(cudaMemcpy(one.get(), &value, sizeof value, cudaMemcpyHostToDevice));
    }
};
Context& context() {
    static Context* c = new Context;
    return *c;
}

// One matmul description and its algorithm for m x n x k, kept: the
// heuristic query is host work of tens of microseconds.
constexpr int kCandidates = 8;
struct Plan {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    cublasLtMatmulHeuristicResult_t algos[kCandidates]{};  // the heuristic's best first
    int count = 0;
    int chosen = 0;  // the first that ran (a later one where an earlier said "not supported")
    bool found = false;
};

Plan make_plan(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t ld, std::int64_t ldd) {
    Context& ctx = context();
    Plan p;
    check(cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    check(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "TRANSA");
    check(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "TRANSB");
    const float* scale = ctx.one.get();
    check(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale, sizeof scale),
          "A_SCALE_POINTER");
    check(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale, sizeof scale),
          "B_SCALE_POINTER");
    const std::int8_t fast_accumulation = 0;
    check(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accumulation,
                                         sizeof fast_accumulation),
          "FAST_ACCUM");
    check(cublasLtMatrixLayoutCreate(&p.a, CUDA_R_8F_E4M3, std::uint64_t(k), std::uint64_t(m), ld), "layout A");
    check(cublasLtMatrixLayoutCreate(&p.b, CUDA_R_8F_E4M3, std::uint64_t(k), std::uint64_t(n), ld), "layout B");
    check(cublasLtMatrixLayoutCreate(&p.d, CUDA_R_32F, std::uint64_t(m), std::uint64_t(n), ldd), "layout D");
    cublasLtMatmulPreference_t pref = nullptr;
    check(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    const std::size_t workspace = kWorkspaceBytes;
    check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                               sizeof workspace),
          "MAX_WORKSPACE_BYTES");
    const cublasStatus_t st =
        cublasLtMatmulAlgoGetHeuristic(ctx.handle, p.op, p.a, p.b, p.d, p.d, pref, kCandidates, p.algos, &p.count);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS && st != CUBLAS_STATUS_NOT_SUPPORTED) check(st, "cublasLtMatmulAlgoGetHeuristic");
    if (st != CUBLAS_STATUS_SUCCESS) p.count = 0;
    p.found = p.count > 0;
    return p;
}

Plan& plan_for(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t ld, std::int64_t ldd) {
    static auto* plans = new std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>, Plan>;
    const auto key = std::make_tuple(m, n, k, ld, ldd);
    auto it = plans->find(key);
    if (it == plans->end()) it = plans->emplace(key, make_plan(m, n, k, ld, ldd)).first;
    return it->second;
}

// Runs the chosen candidate; one that says "not supported" (which the
// heuristic can offer and the call refuse) moves the choice to the next.
cublasStatus_t run(Plan& p, const void* a, const void* b, float* d) {
    Context& ctx = context();
    const float alpha = 1.0f, beta = 0.0f;
    cublasStatus_t st = CUBLAS_STATUS_NOT_SUPPORTED;
    for (; p.chosen < p.count; ++p.chosen) {
        st = cublasLtMatmul(ctx.handle, p.op, &alpha, a, p.a, b, p.b, &beta, d, p.d, d, p.d, &p.algos[p.chosen].algo,
                            ctx.workspace.get(), kWorkspaceBytes, nullptr);
        if (st != CUBLAS_STATUS_NOT_SUPPORTED) return st;
    }
    p.found = false;
    return st;
}

}  // namespace

void cublaslt_fp8_gemm(const gpu::LowpOperands& ops, float* C) {
    constexpr long long kIntMax = std::numeric_limits<int>::max();
    const Shape s = ops.shape;
    if (ops.format != InputRounding::E4m3) throw std::logic_error("cublaslt_fp8_gemm: e4m3 operands only");
    if (s.M > kIntMax || s.N > kIntMax || ops.ld > kIntMax)
        throw std::runtime_error("cuBLASLt FP8: this shape is too large (32-bit dimensions)");
    // As they are: C itself is the column-major N x M result.
    Plan& direct = plan_for(s.N, s.M, ops.ld, ops.ld, s.N);
    if (direct.found) {
        const cublasStatus_t st = run(direct, ops.Bt, ops.A, C);
        if (st != CUBLAS_STATUS_NOT_SUPPORTED) return check(st, "cublasLtMatmul");
    }
    // Padded: the operands' rows up to multiples of 16 (zeros), into scratch.
    const std::int64_t pad = ops.rows_padded_to;
    const std::int64_t m = (s.N + pad - 1) / pad * pad, n = (s.M + pad - 1) / pad * pad;
    Plan& padded = plan_for(m, n, ops.ld, ops.ld, m);
    if (!padded.found)
        throw std::runtime_error("cuBLASLt FP8 has no kernel for " + std::to_string(m) + " x " + std::to_string(n) +
                                 " x " + std::to_string(ops.ld) + " (TN, e4m3, FP32 out) on this GPU");
    Context& ctx = context();
    if (ctx.scratch.count() < std::size_t(m * n)) ctx.scratch = gpu::DeviceBuffer<float>(std::size_t(m * n));
    check(run(padded, ops.Bt, ops.A, ctx.scratch.get()), "cublasLtMatmul (padded)");
    CUDA_CHECK(cudaMemcpy2DAsync(C, std::size_t(s.N) * sizeof(float), ctx.scratch.get(), std::size_t(m) * sizeof(float),
                                 std::size_t(s.N) * sizeof(float), std::size_t(s.M), cudaMemcpyDeviceToDevice));
}

std::string cublaslt_fp8_description() {
    const std::size_t v = cublasLtGetVersion();  // major * 10000 + minor * 100 + patch
    return "cuBLASLt " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
           std::to_string(v % 100) +
           " (cublasLtMatmul, e4m3 TN, FP32 accumulation and output, no fast accumulation; shapes cuBLASLt "
           "takes only 16-aligned: padded, the copy-out timed)";
}

}  // namespace mml::peers
