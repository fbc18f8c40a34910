// The BLIS peer (blis.h), through BLIS's typed API looked up with dlsym.
#include "peers/blis.h"

#include <dlfcn.h>

#include <stdexcept>

namespace mml::peers {
namespace {

// BLIS's own types, as its typed API declares them (blis.h, 0.8-1.0): dim_t
// and inc_t are its gint_t, 64 bits wide unless BLIS was configured with
// 32-bit integers (checked at load: bli_info_get_int_type_size), trans_t an
// enum whose BLIS_NO_TRANSPOSE is 0.
using dim_t = std::int64_t;
using inc_t = std::int64_t;
enum trans_t : int { kNoTranspose = 0 };
using SgemmFn = void (*)(trans_t, trans_t, dim_t, dim_t, dim_t, const float*, const float*, inc_t, inc_t,
                         const float*, inc_t, inc_t, const float*, float*, inc_t, inc_t);

struct Blis {
    std::string why_not;  // empty when loaded
    SgemmFn sgemm = nullptr;
    void (*set_threads)(dim_t) = nullptr;
    const char* (*version)() = nullptr;
    int (*arch_id)() = nullptr;
    const char* (*arch_name)(int) = nullptr;
};

// The sanitizer runtimes refuse RTLD_DEEPBIND (ASan aborts the program at the
// dlopen), so a sanitizer build (make sanitize) leaves the BLIS peer out, saying why.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizerBuild = true;
#else
constexpr bool kSanitizerBuild = false;
#endif

const Blis& blis() {
    static const Blis b = [] {
        Blis out;
        if (kSanitizerBuild) {
            out.why_not = "not loaded in a sanitizer build (the sanitizers cannot load it with RTLD_DEEPBIND); "
                          "the normal build has the BLIS row";
            return out;
        }
        // RTLD_DEEPBIND: BLIS's calls to its own BLAS/CBLAS symbols stay inside
        // BLIS even though OpenBLAS, linked into this program, exports the same names.
        void* lib = nullptr;
        for (const char* name : {"libblis.so.4", "libblis.so.3", "libblis.so"})
            if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND))) break;
        if (!lib) {
            out.why_not = "BLIS is not installed (sudo apt-get install libblis-dev)";
            return out;
        }
        auto* int_size = reinterpret_cast<std::int64_t (*)()>(dlsym(lib, "bli_info_get_int_type_size"));
        out.sgemm = reinterpret_cast<SgemmFn>(dlsym(lib, "bli_sgemm"));
        out.set_threads = reinterpret_cast<void (*)(dim_t)>(dlsym(lib, "bli_thread_set_num_threads"));
        out.version = reinterpret_cast<const char* (*)()>(dlsym(lib, "bli_info_get_version_str"));
        out.arch_id = reinterpret_cast<int (*)()>(dlsym(lib, "bli_arch_query_id"));
        out.arch_name = reinterpret_cast<const char* (*)(int)>(dlsym(lib, "bli_arch_string"));
        if (!int_size || !out.sgemm || !out.set_threads || !out.version)
            out.why_not = "the BLIS library found lacks its typed API (bli_sgemm); install libblis-dev 0.8 or newer";
        else if (int_size() != 64)
            out.why_not = "this BLIS was built with " + std::to_string(int_size()) +
                          "-bit integers; the peer expects BLIS's default 64";
        return out;
    }();
    return b;
}

}  // namespace

std::string blis_unavailable_reason() { return blis().why_not; }

void matmul_blis_library(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                         int threads) {
    const Blis& b = blis();
    if (!b.why_not.empty()) throw std::runtime_error(b.why_not);
    b.set_threads(threads);
    const float one = 1.0f, zero = 0.0f;  // beta = 0: C's old contents (the poison) are not read
    // Row-major: the row stride is the row length, the column stride 1.
    b.sgemm(kNoTranspose, kNoTranspose, M, N, K, &one, A, K, 1, B, N, 1, &zero, C, N, 1);
}

std::string blis_description() {
    const Blis& b = blis();
    if (!b.why_not.empty()) return "BLIS: " + b.why_not;
    std::string arch = b.arch_id && b.arch_name ? b.arch_name(b.arch_id()) : "?";
    return std::string("BLIS ") + b.version() + "; kernel " + arch + "; threads set per call";
}

}  // namespace mml::peers
