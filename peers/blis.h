// The second CPU peer: BLIS's sgemm (the OS package libblis-dev, or libblis4
// alone), the lab5.blis_lib row. BLIS is the library lab 5's own lab5.blis
// stage is modelled on, so the row answers "how far is our BLIS-style code
// from BLIS itself?", and beside OpenBLAS it keeps the target honest: the
// target compares with the faster of the two on the same threads.
//
// Loaded at run time (dlopen), not linked: BLIS exports the same CBLAS and
// BLAS symbols as OpenBLAS, and linking both would make one library's calls
// land in the other's. Where BLIS is not installed the row says so and is
// skipped; nothing else depends on it.
#pragma once

#include <cstdint>
#include <string>

namespace mml::peers {

// Empty when BLIS is loaded and usable here; otherwise why not, and the fix.
std::string blis_unavailable_reason();
// C = A*B (row-major float32) on `threads` threads of BLIS's own. Throws
// std::runtime_error when BLIS is unavailable.
void matmul_blis_library(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                         int threads);
// Version, the kernel set BLIS chose for this CPU (its "arch"), integer size.
std::string blis_description();

}  // namespace mml::peers
