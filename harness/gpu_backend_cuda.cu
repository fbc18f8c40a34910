// The harness's GPU side (harness/gpu_backend.h) implemented with CUDA.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "gpu/memory_text.h"
#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "gpu/device_info.h"
#include "gpu/event_timer.h"
#include "gpu/guard_band.h"
#include "gpu/stream_hold.h"
#include "cpu/stats.h"
#include "harness/format.h"
#include "harness/gpu_backend.h"
#include "harness/runner/remote.h"

namespace mml::gpu {

bool built_with_cuda() { return true; }

DeviceInfo probe() { return read_device_info(); }

// C is allocated with a guard band of poison behind it: a kernel that stores
// for a row >= M (a missing row check) writes there, and download_c says so.
// Without it such a kernel passes every check: the rows it adds lie outside C,
// and cudaMalloc's rounding keeps the write from faulting.
struct DeviceProblem::State {
    State(Shape s, std::size_t a, std::size_t b, std::size_t c, std::size_t guard)
        : shape(s), A(a), B(b), C(c + guard), c_count(c), guard_count(guard) {}
    Shape shape;
    DeviceBuffer<float> A, B, C;
    std::size_t c_count, guard_count;  // C holds c_count floats, then guard_count of poison
    bool guard_poisoned = false;       // set by poison_c: only then does download_c check the guard
    EventTimer timer;
    StreamHold hold;  // the timed work waits behind it until enqueued: the launch is not timed
    std::set<std::string> unheld;  // run_timed_ms's `who`s whose every run lapsed the hold
};

namespace {
std::size_t count(std::int64_t rows, std::int64_t cols) { return std::size_t(rows) * std::size_t(cols); }
// A whole row past the end of C (the first row a missing `row < M` check
// writes), plus the widest column overhang of the labs' tiles.
std::size_t guard_floats(Shape s) { return std::size_t(s.N) + 256; }
}  // namespace

DeviceProblem::DeviceProblem(Shape s) {
    const DeviceInfo info = probe();
    if (!info.available) throw std::runtime_error(info.why_not);
    // After a kernel fault (cudaErrorIllegalAddress, ...) the CUDA context is
    // dead and every later call fails: say so, instead of a misleading message
    // about the next test's allocation ("need 0 GB but the GPU has 0 GB free").
    const cudaError_t earlier = cudaDeviceSynchronize();
    if (earlier != cudaSuccess)
        throw std::runtime_error(std::string("the GPU is unusable after an earlier error in this process (") +
                                 cudaGetErrorName(earlier) + ": " + cudaGetErrorString(earlier) +
                                 "); fix the FIRST GPU failure above - every later GPU test of this run fails "
                                 "like this one");
    const double need = 4.0 * (double(s.M) * s.K + double(s.K) * s.N + double(s.M) * s.N);
    if (need > 0.95 * double(info.free_bytes))
        throw std::runtime_error(gpu::no_room_text(need, double(info.free_bytes), double(info.total_bytes)));
    state_ = std::make_unique<State>(s, count(s.M, s.K), count(s.K, s.N), count(s.M, s.N), guard_floats(s));
}

DeviceProblem::~DeviceProblem() = default;

void DeviceProblem::upload(const float* A, const float* B) {
    state_->A.copy_from_host(A);
    state_->B.copy_from_host(B);
}

void DeviceProblem::poison_c() {
    // cudaMemset writes one repeated byte, and the poison's 4 bytes differ,
    // so copy the pattern from the host in chunks of at most 4 MB.
    const std::size_t n = state_->C.count();  // C and its guard band
    std::vector<float> pattern(std::min<std::size_t>(n, 1 << 20), poison_value());
    for (std::size_t done = 0; done < n; done += pattern.size()) {
        const std::size_t chunk = std::min(pattern.size(), n - done);
        CUDA_CHECK(cudaMemcpy(state_->C.get() + done, pattern.data(), chunk * sizeof(float),
                              cudaMemcpyHostToDevice));
    }
    state_->guard_poisoned = true;
    // The poison is in place before the code under test starts, on whatever
    // stream it launches (a stream of its own does not wait for this one).
    CUDA_CHECK(cudaDeviceSynchronize());
}

namespace {
// Writes twice the L2's size (cudaDevAttrL2CacheSize: 50 MB on the H100) so
// that no line of A, B or C survives in it; the buffer is kept for the process.
void evict_l2() {
    static DeviceBuffer<unsigned char>* buffer = [] {
        int device = 0, l2_bytes = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
        return new DeviceBuffer<unsigned char>(2 * std::size_t(std::max(l2_bytes, 1 << 20)));
    }();  // (never freed: freeing GPU memory from a static destructor can run after CUDA's teardown)
    CUDA_CHECK(cudaMemsetAsync(buffer->get(), 0, buffer->count()));
}

// A version in the grader's runner (harness/runner/remote.h) runs in another
// process: it takes host pointers, never this process's device pointers.
void refuse_remote(const MatmulFn& fn) {
    if (runner::remote_version(fn))
        throw std::runtime_error("this version runs in the grader's runner process: it is run only through "
                                 "run_once_and_verify and the timing loop, with host pointers");
}
}  // namespace

// `lapsed`: whether the hold gave up before the host had enqueued the work
// (then the launch is timed).
double DeviceProblem::timed_once(const MatmulFn& fn, const StageParams& p, const MatmulFn& untimed_first, bool held,
                                 bool& lapsed) {
    State& st = *state_;
    if (untimed_first) {
        untimed_first(st.A.get(), st.B.get(), st.C.get(), st.shape, p);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    // Enqueued in this order on one stream, the GPU held at the front until
    // the host has launched everything: the flush (untimed), the start event,
    // the work, the stop event. The events then bracket the work alone, not
    // the host's launch of it (gpu/stream_hold.h).
    if (held) st.hold.hold();
    if (flush_l2()) evict_l2();
    st.timer.start();
    try {
        fn(st.A.get(), st.B.get(), st.C.get(), st.shape, p);
        CUDA_CHECK_LAUNCH();
        st.timer.record_stop();
    } catch (...) {
        st.hold.release();
        throw;
    }
    st.hold.release();
    const double ms = st.timer.wait_ms();  // synchronises: errors in the kernel surface here
    lapsed = st.hold.settle();
    return ms;
}

double DeviceProblem::run_timed_ms(const MatmulFn& fn, const StageParams& p, const MatmulFn& untimed_first,
                                   const std::string& who) {
    refuse_remote(fn);
    State& st = *state_;
    const bool held = st.unheld.count(who) == 0;
    bool lapsed = false;
    const double ms = timed_once(fn, p, untimed_first, held, lapsed);
    if (!lapsed) return ms;
    // The host had not enqueued the work within the hold's 1 ms. Once per
    // kernel that is expected: its first launch loads its code (CUDA's lazy
    // loading), and loading waits for the GPU, which the hold keeps busy; so
    // do a library's first-call set-ups (allocations). Run again: a one-off
    // is then timed held. A function that lapses twice in a row waits for the
    // GPU itself (a cudaMemcpy inside it, or compute-sanitizer's slow
    // launches): it is not held from then on (each held run of it would
    // cost the 1 ms bound); other stages at this shape still are.
    const double again = timed_once(fn, p, untimed_first, true, lapsed);
    if (!lapsed) return again;
    st.unheld.insert(who);
    std::fprintf(stderr,
                 "note: %s did not reach the GPU within 1 ms of being launched, twice in a row: it waits for the GPU "
                 "from the host (a cudaDeviceSynchronize or cudaMemcpy inside it?) or its launches are slow "
                 "(compute-sanitizer); from here on its GPU times at %s include the host's launch work\n",
                 who.empty() ? "a timed function" : who.c_str(), shape_text(st.shape).c_str());
    return again;
}

void DeviceProblem::download_c(float* C) {
    // Every stream's work done, not only the default stream's: C is read as
    // the code under test left it (a kernel on a stream of its own included).
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(C, state_->C.get(), state_->c_count * sizeof(float), cudaMemcpyDeviceToHost));
    if (!state_->guard_poisoned) return;
    check_guard_band(state_->C.get(), state_->c_count, state_->guard_count, state_->shape.M, state_->shape.N);
}

namespace {

// One product from scratch: allocate, copy in, compute, copy out, free.
// Host clocks around the allocation and the free (cudaMalloc/cudaFree are
// synchronous host calls); CUDA events around the copies and the kernel.
CostBreakdown breakdown_once(const MatmulFn& fn, const float* A, const float* B, float* C, Shape s,
                             const StageParams& p, EventTimer& timer) {
    using clock = std::chrono::steady_clock;
    auto ms_since = [](clock::time_point t0) {
        return std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    };
    CostBreakdown out;
    auto t0 = clock::now();
    auto dA = std::make_unique<DeviceBuffer<float>>(count(s.M, s.K));
    auto dB = std::make_unique<DeviceBuffer<float>>(count(s.K, s.N));
    auto dC = std::make_unique<DeviceBuffer<float>>(count(s.M, s.N));
    CUDA_CHECK(cudaDeviceSynchronize());
    out.alloc_ms = ms_since(t0);
    timer.start();
    dA->copy_from_host(A);
    dB->copy_from_host(B);
    out.copy_in_ms = timer.stop_ms();
    timer.start();
    fn(dA->get(), dB->get(), dC->get(), s, p);
    CUDA_CHECK_LAUNCH();
    out.kernel_ms = timer.stop_ms();
    timer.start();
    dC->copy_to_host(C);
    out.copy_out_ms = timer.stop_ms();
    t0 = clock::now();
    dA.reset();
    dB.reset();
    dC.reset();
    CUDA_CHECK(cudaDeviceSynchronize());
    out.free_ms = ms_since(t0);
    return out;
}

}  // namespace

CostBreakdown measure_breakdown(const MatmulFn& fn, const float* A, const float* B, float* C,
                                Shape s, const StageParams& p, int repetitions) {
    refuse_remote(fn);
    CUDA_CHECK(cudaFree(nullptr));  // create the context first: it is not part of the product
    EventTimer timer;
    breakdown_once(fn, A, B, C, s, p, timer);  // warm-up: loads the kernel's code
    std::vector<double> alloc, in, kernel, out, release;
    for (int r = 0; r < std::max(1, repetitions); ++r) {
        const CostBreakdown b = breakdown_once(fn, A, B, C, s, p, timer);
        alloc.push_back(b.alloc_ms);
        in.push_back(b.copy_in_ms);
        kernel.push_back(b.kernel_ms);
        out.push_back(b.copy_out_ms);
        release.push_back(b.free_ms);
    }
    return {median(alloc), median(in), median(kernel), median(out), median(release)};
}

}  // namespace mml::gpu
