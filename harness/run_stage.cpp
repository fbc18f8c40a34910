#include "harness/run_stage.h"

#include <stdexcept>

#include "harness/gpu_backend.h"

namespace mml {

const MatmulFn& version_of(const Stage& stage, Impl impl) {
    if (impl == Impl::Student && !stage.student)
        throw std::invalid_argument("stage " + stage.name + " has no student version");
    return impl == Impl::Student ? stage.student : stage.reference;
}

CheckResult run_and_check(const Stage& stage, Impl impl, Shape s, const StageParams& params,
                          std::uint64_t seed, VerifyMethod method) {
    const MatmulFn& fn = version_of(stage, impl);
    Matrix A(s.M, s.K), B(s.K, s.N), C(s.M, s.N);
    fill_inputs(A, B, seed);
    poison(C);
    if (stage.device == Device::Cpu) {
        fn(A.data(), B.data(), C.data(), s, params);
    } else {
        gpu::DeviceProblem dev(s);
        dev.upload(A.data(), B.data());
        dev.poison_c();
        dev.run_timed_ms(fn, params);
        dev.download_c(C.data());
    }
    return verify_product(A.data(), B.data(), C.data(), s, stage.bound(s, params), method, seed + 1);
}

}  // namespace mml
