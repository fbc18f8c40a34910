// harness/runner/device.h with CUDA.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/memory_text.h"
#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "gpu/device_info.h"
#include "gpu/guard_band.h"
#include "harness/runner/device.h"
#include "harness/runner/scale_factors.h"

namespace mml::runner {

using gpu::DeviceBuffer;

namespace {

// Grid-stride loops, so that any size runs in one launch of a bounded grid.
__global__ void fill_bits(float* p, std::size_t n, std::uint32_t bits) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = __uint_as_float(bits);
}

// out[k][j] = fl(d_k * B[k][j]), d_k = scale_factor(seed, k): __fmul_rn, one
// IEEE multiply (never fused into anything), the same float32 the checker
// computes on the host. One read of B and one write of B': the whole cost of
// the secret inside the checker's interval (handouts/grading.md, instructors' repository).
__global__ void scale_rows(const float* B, std::uint64_t seed, float* out, std::size_t K, std::size_t N) {
    const std::size_t n = K * N;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = __fmul_rn(scale_factor(seed, i / N), B[i]);
}

unsigned blocks_for(std::size_t n) { return unsigned(std::min<std::size_t>((n + 255) / 256, std::size_t(1) << 20)); }

std::size_t count(std::int64_t rows, std::int64_t cols) { return std::size_t(rows) * std::size_t(cols); }

// As DeviceProblem's: a whole row past the end of C, plus the widest column
// overhang of the labs' tiles.
std::size_t guard_floats(Shape s) { return std::size_t(s.N) + 256; }

// After a kernel fault the CUDA context is dead and every later call fails:
// say so instead of a misleading message about the next allocation.
void require_usable_context() {
    const cudaError_t earlier = cudaDeviceSynchronize();
    if (earlier != cudaSuccess)
        throw std::runtime_error(std::string("the GPU is unusable after an earlier error in this runner (") +
                                 cudaGetErrorName(earlier) + ": " + cudaGetErrorString(earlier) +
                                 "); fix the FIRST GPU failure - every later GPU run fails like this one");
}

}  // namespace

struct DeviceSide::State {
    Shape shape;
    DeviceBuffer<float> A, B, C, scaled;  // scaled: B' = diag(d) * B, made on the first scaled run
    std::size_t c_count = 0, guard_count = 0;
    // The host memory C is copied to (the checker's shared memory), page-locked
    // on first use, so that the copy, which the checker's clock includes, runs at
    // the link's speed; nullptr when not registered (then the copy is pageable).
    float* pinned = nullptr;
    ~State() {
        if (pinned) cudaHostUnregister(pinned);  // no check: a destructor must not throw
    }
};

DeviceSide::DeviceSide() = default;
DeviceSide::~DeviceSide() = default;

// Before the shared memory goes (a new prepare): its pages must be unregistered first.
void DeviceSide::reset() { state_.reset(); }

bool DeviceSide::loaded(Shape s) const {
    return state_ && state_->shape == s;
}

void DeviceSide::load(Shape s, const float* A, const float* B) {
    if (!loaded(s)) {
        state_.reset();
        const gpu::DeviceInfo info = gpu::read_device_info();
        if (!info.available) throw std::runtime_error(info.why_not);
        require_usable_context();
        const double need = 4.0 * (double(s.M) * s.K + 2.0 * double(s.K) * s.N + double(s.M) * s.N);
        if (need > 0.95 * double(info.free_bytes))
            throw std::runtime_error(gpu::no_room_text(need, double(info.free_bytes), double(info.total_bytes)));
        auto st = std::make_unique<State>();
        st->shape = s;
        st->A = DeviceBuffer<float>(count(s.M, s.K));
        st->B = DeviceBuffer<float>(count(s.K, s.N));
        st->c_count = count(s.M, s.N);
        st->guard_count = guard_floats(s);
        st->C = DeviceBuffer<float>(st->c_count + st->guard_count);
        state_ = std::move(st);
    }
    state_->A.copy_from_host(A);
    state_->B.copy_from_host(B);
}

void DeviceSide::run(const MatmulFn& fn, const MatmulFn& prepare, const StageParams& p, bool scaled, std::uint64_t seed,
                     float* C) {
    if (!state_) throw std::runtime_error("a GPU run before its inputs were loaded");
    State& st = *state_;
    const Shape s = st.shape;
    const float* B = st.B.get();
    if (scaled) {
        if (!st.scaled.get()) st.scaled = DeviceBuffer<float>(count(s.K, s.N));
        scale_rows<<<blocks_for(count(s.K, s.N)), 256>>>(st.B.get(), seed, st.scaled.get(), std::size_t(s.K),
                                                          std::size_t(s.N));
        CUDA_CHECK_LAUNCH();
        B = st.scaled.get();
    }
    fill_bits<<<blocks_for(st.C.count()), 256>>>(st.C.get(), st.C.count(), kPoisonBits);
    CUDA_CHECK_LAUNCH();
    if (prepare) {  // the stage's own input conversion (lab 11's bf16/TF32 operands), as DeviceProblem runs it
        prepare(st.A.get(), B, st.C.get(), s, p);
        CUDA_CHECK_LAUNCH();
    }
    // The poison (and the inputs) in place before the code under test starts, on whatever stream it launches:
    // a stream of its own does not wait for the default stream's fill (it raced it, and C read "never written").
    CUDA_CHECK(cudaDeviceSynchronize());
    fn(st.A.get(), B, st.C.get(), s, p);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());  // errors raised while the kernel ran surface here
    if (st.pinned != C) {
        if (st.pinned) cudaHostUnregister(st.pinned);
        st.pinned = nullptr;
        // Best effort: where the memory cannot be locked (a limit), the copy is slower, nothing else.
        if (cudaHostRegister(C, st.c_count * sizeof(float), cudaHostRegisterDefault) == cudaSuccess) st.pinned = C;
        else cudaGetLastError();  // clear it: it is not the kernel's error
    }
    CUDA_CHECK(cudaMemcpy(C, st.C.get(), st.c_count * sizeof(float), cudaMemcpyDeviceToHost));
    gpu::check_guard_band(st.C.get(), st.c_count, st.guard_count, s.M, s.N);
}

}  // namespace mml::runner
