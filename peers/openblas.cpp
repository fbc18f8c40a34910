// The OpenBLAS peer (openblas.h): one cblas_sgemm call and what the library
// says about itself.
#include "peers/openblas.h"

#include <cblas.h>

#include <limits>
#include <stdexcept>

namespace mml::peers {

void matmul_openblas(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                     int threads) {
    constexpr std::int64_t kMax = std::numeric_limits<blasint>::max();
    if (M > kMax || N > kMax || K > kMax) throw std::invalid_argument("OpenBLAS takes dimensions below 2^31");
    // The pthread build keeps a pool; this sets how many of its threads the
    // next call uses (the OpenMP build would follow OMP_NUM_THREADS instead).
    openblas_set_num_threads(threads);
    // Row-major C = 1 * A * B + 0 * C: beta = 0 means C's old contents (the
    // poison) are not read.
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(M), blasint(N), blasint(K), 1.0f, A,
                blasint(K), B, blasint(N), 0.0f, C, blasint(N));
}

std::string openblas_description() {
    const int mode = openblas_get_parallel();
    return std::string(openblas_get_config()) + "; kernel " + openblas_get_corename() + "; " +
           (mode == 0 ? "sequential" : mode == 1 ? "pthreads" : "OpenMP") + " build";
}

int openblas_parallel_mode() { return openblas_get_parallel(); }
int openblas_threads() { return openblas_get_num_threads(); }

}  // namespace mml::peers
