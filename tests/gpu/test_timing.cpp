// The harness's GPU timing (DeviceProblem::run_timed_ms): the CUDA events
// bracket the GPU's work, not the host's launch of it (gpu/stream_hold.h), and
// a timed function that waits for the GPU from the host neither hangs nor
// stalls the run. Suite "gpu-harness", not "gpu-labN": it checks the harness,
// and the grader grades every test case of a lab's suites.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "harness/gpu_backend.h"
#include "peers/peer_cublas.h"

namespace {

using clock_type = std::chrono::steady_clock;

// A small product, so that its GPU time (a few microseconds) is far below the
// host delays the tests put in front of it.
constexpr mml::Shape kSmall{64, 64, 64};

void small_product(const float* A, const float* B, float* C, mml::Shape s) {
    mml::peers::cublas_sgemm_row_major(A, B, C, s, mml::peers::CublasMath::Fp32);
}

double seconds_since(clock_type::time_point t0) {
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

}  // namespace

TEST_SUITE("gpu-harness") {
    TEST_CASE("the timed region starts when the GPU reaches the work, not while the host is launching it") {
        mml::gpu::DeviceProblem dev(kSmall);
        const mml::StageParams params;
        const auto plain = [](const float* A, const float* B, float* C, mml::Shape s, const mml::StageParams&) {
            small_product(A, B, C, s);
        };
        dev.run_timed_ms(plain, params);  // cuBLAS's first call (its handle, its kernels' loading): untimed here
        // The host spends 500 us before it launches anything. Without the
        // hold, the start event fires on the idle GPU at once and the time
        // includes the 500 us; with it, the product alone (microseconds).
        const auto late = [](const float* A, const float* B, float* C, mml::Shape s, const mml::StageParams&) {
            std::this_thread::sleep_for(std::chrono::microseconds(500));
            small_product(A, B, C, s);
        };
        for (int run = 0; run < 3; ++run) {
            const double ms = dev.run_timed_ms(late, params);
            CAPTURE(run);
            CHECK_MESSAGE(ms < 0.25, "a 64^3 product timed at " << ms
                                     << " ms after a 0.5 ms host delay: the launch is inside the timed region");
            CHECK(ms > 0);
        }
    }

    TEST_CASE("one-off waits for the GPU, several stages' first runs in a row, do not stop the hold") {
        // A kernel's first launch waits for the GPU once: CUDA's lazy loading
        // loads its code then, and loading waits for the GPU, which the hold
        // keeps busy (so do a library's first-call set-ups). `mmlab run` checks
        // every stage once before it times any, so several such first runs
        // come in a row; they must not stop the hold for the timed runs after.
        // Here each of four functions waits for the GPU (a cudaMemcpy) on its
        // first call only - what a first launch does, without relying on how
        // this CUDA loads this binary's kernels.
        mml::gpu::DeviceProblem dev(kSmall);
        const mml::StageParams params;
        std::vector<float> host(std::size_t(kSmall.M * kSmall.N));
        int calls[4] = {0, 0, 0, 0};
        for (int f = 0; f < 4; ++f) {
            const auto waits_once = [&, f](const float* A, const float* B, float* C, mml::Shape s,
                                           const mml::StageParams&) {
                small_product(A, B, C, s);
                if (calls[f]++ == 0) dev.download_c(host.data());
            };
            CHECK(dev.run_timed_ms(waits_once, params) > 0);
        }
        const auto late = [](const float* A, const float* B, float* C, mml::Shape s, const mml::StageParams&) {
            std::this_thread::sleep_for(std::chrono::microseconds(500));
            small_product(A, B, C, s);
        };
        for (int run = 0; run < 3; ++run) {
            const double ms = dev.run_timed_ms(late, params);
            CAPTURE(run);
            CHECK_MESSAGE(ms < 0.25, "a 64^3 product timed at " << ms
                                     << " ms after a 0.5 ms host delay: one-off waits stopped the hold");
        }
    }

    TEST_CASE("a timed function that waits for the GPU from the host does not hang, and is held no longer") {
        mml::gpu::DeviceProblem dev(kSmall);
        std::vector<float> host(std::size_t(kSmall.M * kSmall.N));
        // download_c is a cudaMemcpy: the host waits for the GPU inside the
        // timed function, behind the hold, until the hold gives up.
        const auto waits = [&](const float* A, const float* B, float* C, mml::Shape s, const mml::StageParams&) {
            small_product(A, B, C, s);
            dev.download_c(host.data());
        };
        const auto t0 = clock_type::now();
        for (int run = 0; run < 20; ++run) CHECK(dev.run_timed_ms(waits, {}, {}, "waits") > 0);
        // Two lapses of at most 1 ms each (the run and its repeat), then no
        // hold: far below a second (a hold without its bound would never return).
        CHECK(seconds_since(t0) < 2.0);
        // Only that function: another one at this shape is still held.
        const auto late = [](const float* A, const float* B, float* C, mml::Shape s, const mml::StageParams&) {
            std::this_thread::sleep_for(std::chrono::microseconds(500));
            small_product(A, B, C, s);
        };
        CHECK(dev.run_timed_ms(late, {}, {}, "late") < 0.25);
    }
}
