#include "harness/run_stage.h"

#include <chrono>
#include <stdexcept>

#include "harness/runner/remote.h"

namespace mml {

const MatmulFn& version_of(const Stage& stage, Impl impl) {
    if (impl == Impl::Student && !stage.student)
        throw std::invalid_argument("stage " + stage.name + " has no student version");
    if (impl == Impl::Reference && !stage.reference)
        throw std::invalid_argument("stage " + stage.name + ": " + kNoReference);
    return impl == Impl::Student ? stage.student : stage.reference;
}

Problem::Problem(Shape s, std::uint64_t seed) : shape(s), A(s.M, s.K), B(s.K, s.N), C(s.M, s.N), check_seed(seed + 1) {
    fill_inputs(A, B, seed);
}

gpu::DeviceProblem& Problem::device() {
    if (!dev) {
        dev = std::make_unique<gpu::DeviceProblem>(shape);
        dev->upload(A.data(), B.data());
    }
    return *dev;
}

namespace {
// A copy of m with every element rounded as a reduced-precision stage rounds its inputs.
Matrix rounded_copy(const Matrix& m, InputRounding r) {
    Matrix out(m.rows(), m.cols());
    const float* in = m.data();
    float* o = out.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t e = 0; e < m.size(); ++e) o[e] = round_input(in[e], r);
    return out;
}
}  // namespace

std::string not_written_message(const Stage& stage) {
    const std::string handout = "handouts/" + ("lab" + std::to_string(stage.lab)) + ".md";  // handouts/labN.md
    return "not written yet: " + (stage.task.empty() ? std::string("its task") : stage.task) + " in " + handout +
           " (C was never written: every element still holds the poison value)";
}

CheckedRun run_once_and_verify(const Stage& stage, const MatmulFn& fn, Problem& p, const StageParams& params,
                               VerifyMethod method) {
    CheckedRun out;
    poison(p.C);
    // A version in another process (the grader's runner, harness/runner/remote.h)
    // takes host pointers on every device: the runner moves them to its GPU.
    if (stage.device == Device::Cpu || runner::remote_version(fn)) {
        const auto t0 = std::chrono::steady_clock::now();
        fn(p.A.data(), p.B.data(), p.C.data(), p.shape, params);
        out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } else {
        gpu::DeviceProblem& dev = p.device();
        dev.poison_c();
        out.seconds = dev.run_timed_ms(fn, params, stage.prepare, stage.name) / 1e3;  // prepare: first, untimed
        dev.download_c(p.C.data());
    }
    if (stage.input_rounding == InputRounding::None) {
        out.check = verify_product(p.A.data(), p.B.data(), p.C.data(), p.shape, stage.bound(p.shape, params),
                                   method, p.check_seed);
        if (out.check.never_written) out.check.failure = not_written_message(stage);
        return out;
    }
    // Reduced precision (Stage::input_rounding): judged against the product of
    // the rounded inputs, so that only the accumulation is judged; the error
    // against the inputs as given is measured for the report, not judged.
    const Matrix A = rounded_copy(p.A, stage.input_rounding), B = rounded_copy(p.B, stage.input_rounding);
    out.check = verify_product(A.data(), B.data(), p.C.data(), p.shape, stage.bound(p.shape, params), method,
                               p.check_seed);
    if (out.check.never_written) out.check.failure = not_written_message(stage);
    if (out.check.passed)
        out.check.error_vs_unrounded = relative_error_sampled(p.A.data(), p.B.data(), p.C.data(), p.shape,
                                                              p.check_seed + 1);
    return out;
}

CheckResult run_and_check(const Stage& stage, Impl impl, Shape s, const StageParams& params, std::uint64_t seed,
                          VerifyMethod method) {
    Problem problem(s, seed);
    return run_once_and_verify(stage, version_of(stage, impl), problem, params, method).check;
}

}  // namespace mml
