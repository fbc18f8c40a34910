// The cublasXt peer of build/bin/mmlab-nccl (--algo cublasxt): cublasXtSgemm
// on every GPU present, A, B and C in rank 0's host memory (one process).
#include "harness/stages/lab12/peer_cublasxt.h"

#include <cublasXt.h>
#include <mpi.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/cuda_check.h"
#include "harness/stages/lab12/gpu_setup.h"

namespace mml::lab12 {

namespace {

double cublasxt_seconds(const Matrix& A, const Matrix& B, Matrix& C, Shape s) {
    cublasXtHandle_t xt = nullptr;
    auto check = [](cublasStatus_t st, const char* what) {
        if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusString(st));
    };
    check(cublasXtCreate(&xt), "cublasXtCreate");
    std::vector<int> ids(g_devices);
    for (int d = 0; d < g_devices; ++d) ids[d] = d;
    check(cublasXtDeviceSelect(xt, g_devices, ids.data()), "cublasXtDeviceSelect");
    const float one = 1.0f, zero = 0.0f;
    const double t0 = MPI_Wtime();
    // Row-major C = A*B as column-major C^T = B^T A^T; cublasXt moves the
    // tiles between host and GPUs itself.
    check(cublasXtSgemm(xt, CUBLAS_OP_N, CUBLAS_OP_N, s.N, s.M, s.K, &one, B.data(), s.N, A.data(), s.K, &zero, C.data(),
                        s.N),
          "cublasXtSgemm");
    CUDA_CHECK(cudaDeviceSynchronize());
    const double t = MPI_Wtime() - t0;
    check(cublasXtDestroy(xt), "cublasXtDestroy");
    return t;
}

}  // namespace

Measured run_cublasxt(const GemmArgs& g, ShapeRun& r) {
    Measured m;
    for (int rep = 0; rep < g.warmup + g.reps; ++rep) {
        poison(r.C);
        const double t = cublasxt_seconds(r.A, r.B, r.C, r.shape);
        if (rep >= g.warmup) m.seconds.push_back(t);
    }
    m.fields.add("tile_product", "cublasXt on " + std::to_string(g_devices) + " GPU(s), A, B, C in host memory");
    return m;
}

}  // namespace mml::lab12
