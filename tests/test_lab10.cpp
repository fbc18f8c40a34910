// Lab 10, everything that needs no GPU: the roofline's traffic counts and
// bound, Yuan et al. 2010's LH(i, j) (its edge cases: j = 1, j = TLP*BLP, the
// max{0, ...} clamp, the barrier variant), TimeOneRep, RepNum and TimeTotal,
// all against values computed by hand; then the kernel descriptions the
// model is evaluated on (models/lh_kernels.h) and the CPU bandwidth measurement.
// The student's functions are tested under `make lab10` (MML_IMPL=student),
// the reference's under `make test`, both looked up where the harness looks
// them up (harness/stages/lab10/lab10.h). What only the reference has (the
// printed sum over warps on the paper's inputs) is tested in
// the instructors' tests/reference/test_lab10.cpp.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "cpu/stream_bandwidth.h"
#include "harness/gpu_backend.h"
#include "harness/stages/lab10/lab10.h"
#include "models/lh_kernels.h"
#include "models/roofline_stages.h"
#include "models/tensor_peaks.h"
#include "tests/run_mmlab.h"
#include "tests/stage_check.h"

using mml::Shape;
using mml::lh::Block;
using mml::lh::Occupancy;

namespace {

using Fns = mml::lab10::ModelFns;

// The functions under test: the student's or the reference's.
Fns fns() {
    const Fns* f = mml::lab10::model_fns(mml::testing::impl_under_test());
    REQUIRE_MESSAGE(f != nullptr, "the reference is not in this build: run the tests with MML_IMPL=student");
    return *f;
}

Block block(double ilp, double latency, double bandwidth, bool barrier = false) {
    Block b;
    b.ilp = ilp, b.latency = latency, b.bandwidth = bandwidth, b.barrier = barrier;
    return b;
}

// The real mmlab's exit code; its output (stdout and stderr) in `output`.
int run_mmlab(const std::string& args, std::string& output) {
    const mml::testing::Outcome o = mml::testing::run_mmlab(args);
    output += o.output;
    return o.exit_code;
}

#define EXPECT(task, got, want)                                                                            \
    CHECK_MESSAGE((got) == doctest::Approx(want).epsilon(1e-12),                                          \
                  "labs/lab10/models.cpp, " task ": " #got " gave " << (got) << ", expected " << (want)   \
                                                    << " (handouts/lab10.md, " task ")")

}  // namespace

TEST_SUITE("lab10") {
    TEST_CASE("task 1: compulsory traffic 4(MK + KN + MN)") {
        const Fns f = fns();
        EXPECT("task 1", f.compulsory_bytes({2, 3, 4}), 4.0 * (8 + 12 + 6));
        EXPECT("task 1", f.compulsory_bytes({1000, 1000, 1000}), 12e6);
        EXPECT("task 1", f.compulsory_bytes({100000, 100000, 100000}), 1.2e11);  // no int overflow
    }

    TEST_CASE("task 2: tiled traffic: A read ceil(N/tn) times, B ceil(M/tm) times, C written once") {
        const Fns f = fns();
        const Shape s{100, 60, 50};
        EXPECT("task 2", f.tiled_bytes(s, 16, 32), 4.0 * (2 * 100 * 50 + 7 * 50 * 60 + 100 * 60));  // partial tiles count
        EXPECT("task 2", f.tiled_bytes(s, 1, 1), 4.0 * (60 * 5000 + 100 * 3000 + 6000));           // the naive algorithm
        EXPECT("task 2", f.tiled_bytes(s, 100, 60), 4.0 * (5000 + 3000 + 6000));                  // one tile = all of C: compulsory
        EXPECT("task 2", f.tiled_bytes(s, 1000, 1000), 4.0 * (5000 + 3000 + 6000));
    }

    TEST_CASE("task 3: arithmetic intensity 2MNK / bytes") {
        const Fns f = fns();
        EXPECT("task 3", f.arithmetic_intensity({2, 3, 4}, 104), 48.0 / 104);
        EXPECT("task 3", f.arithmetic_intensity({1000, 1000, 1000}, 12e6), 2e9 / 12e6);
    }

    TEST_CASE("task 4: roofline min(peak, intensity x bandwidth), both sides of the ridge") {
        const Fns f = fns();
        EXPECT("task 4", f.roofline_gflops(0.5, 100, 20), 10.0);   // memory-bound
        EXPECT("task 4", f.roofline_gflops(10, 100, 20), 100.0);   // compute-bound
        EXPECT("task 4", f.roofline_gflops(5, 100, 20), 100.0);    // at the ridge point
    }

    TEST_CASE("tasks 5-6: LH without a barrier, ILP_i >= Bw_i (latency-bound: cases 1-2 of the paper)") {
        const Fns f = fns();
        const Block b = block(10, 100, 4), next = block(5, 0, 0);
        const Occupancy occ{2, 3};  // TNT = 6
        // j = 1: nobody ahead; the 5 warps behind issue block i: 50 of the 104 cycles.
        EXPECT("task 5", f.waiting_cycles(b, occ, 1), 104.0);
        EXPECT("task 6", f.latency_hidden(b, next, occ, 1), 1 - 50.0 / 104);
        // j = 3: 3 behind (30) + 2 ahead in block i+1 at min{5, max{10, 4}} = 5 each (10).
        EXPECT("task 5", f.waiting_cycles(b, occ, 3), 104.0);  // Bw < ILP: no queue
        EXPECT("task 6", f.latency_hidden(b, next, occ, 3), 1 - 40.0 / 104);
        // j = TNT = 6: nobody behind; 5 ahead at 5 each.
        EXPECT("task 6", f.latency_hidden(b, next, occ, 6), 1 - 25.0 / 104);
    }

    TEST_CASE("tasks 5-6: LH without a barrier, Bw_i > ILP_i (transfers queue: cases 3-4)") {
        const Fns f = fns();
        const Block b = block(2, 50, 10), next = block(3, 0, 0);
        const Occupancy occ{4, 1};  // TNT = 4
        EXPECT("task 5", f.waiting_cycles(b, occ, 1), 60.0);
        EXPECT("task 6", f.latency_hidden(b, next, occ, 1), 1 - 6.0 / 60);
        EXPECT("task 5", f.waiting_cycles(b, occ, 2), 60.0 + 8);         // one warp ahead: +(10 - 2)
        EXPECT("task 6", f.latency_hidden(b, next, occ, 2), 1 - 7.0 / 68);  // 2*2 + 1*min{3, max{2, 10}}
        EXPECT("task 5", f.waiting_cycles(b, occ, 4), 60.0 + 3 * 8);
        EXPECT("task 6", f.latency_hidden(b, next, occ, 4), 1 - 9.0 / 84);
    }

    TEST_CASE("task 6: the max{0, ...} clamp: the other warps cover the whole wait, or only part of it") {
        const Fns f = fns();
        const Block b = block(50, 100, 1), next = block(50, 0, 0);
        const Occupancy occ{4, 2};  // 7 warps x 50 cycles behind warp 1 > 101 cycles of wait
        EXPECT("task 6", f.latency_hidden(b, next, occ, 1), 0.0);
        EXPECT("task 6", f.latency_hidden(b, next, occ, 8), 0.0);
        // Either side of the clamp: block i+1 issues 1 cycle a warp, so the
        // warps ahead cover little. W = 100 + 1 = 101 for every j (Bw < ILP).
        // j = 6: 2 behind x 50 + 5 ahead x min{1, max{50, 1}} = 105 > 101: clamped to 0.
        // j = 7: 1 x 50 + 6 x 1 = 56 covered: LH = 1 - 56/101 (positive, not clamped).
        // j = 8: 0 x 50 + 7 x 1 = 7 covered:  LH = 1 - 7/101.
        const Block light_next = block(1, 0, 0);
        EXPECT("task 6", f.latency_hidden(b, light_next, occ, 6), 0.0);
        EXPECT("task 6", f.latency_hidden(b, light_next, occ, 7), 45.0 / 101);
        EXPECT("task 6", f.latency_hidden(b, light_next, occ, 8), 94.0 / 101);
        // A block that waits for nothing hides nothing: LH = 0, not a division by zero.
        EXPECT("task 6", f.latency_hidden(block(1, 0, 0), next, occ, 1), 0.0);
        // ... also when nothing issues either: 0/0 would be NaN, which max{0, NaN} may pass on.
        EXPECT("task 6", f.latency_hidden(block(0, 0, 0), block(0, 0, 0), occ, 8), 0.0);
    }

    TEST_CASE("tasks 5-6: the barrier variant rounds j-1 to whole thread blocks (NT warps)") {
        const Fns f = fns();
        const Block b = block(2, 50, 10, true), next = block(3, 0, 0);
        const Occupancy occ{2, 2};  // NT = 2 warps a block, TNT = 4
        // j = 1: nothing to round: the same as without the barrier.
        EXPECT("task 5", f.waiting_cycles(b, occ, 1), 60.0);
        EXPECT("task 6", f.latency_hidden(b, next, occ, 1), 1 - 6.0 / 60);
        // j = 2: j-1 = 1 rounds down to 0 (numerator) and up to 2 (denominator).
        EXPECT("task 5", f.waiting_cycles(b, occ, 2), 60.0 + 2 * 8);
        EXPECT("task 6", f.latency_hidden(b, next, occ, 2), 1 - 4.0 / 76);
        // j = 3: j-1 = 2 is a whole block: 2 ahead, 2 in the queue.
        EXPECT("task 5", f.waiting_cycles(b, occ, 3), 60.0 + 2 * 8);
        EXPECT("task 6", f.latency_hidden(b, next, occ, 3), 1 - (2.0 + 2 * 3) / 76);
        // j = 4: j-1 = 3 rounds down to 2 and up to 4.
        EXPECT("task 5", f.waiting_cycles(b, occ, 4), 60.0 + 4 * 8);
        EXPECT("task 6", f.latency_hidden(b, next, occ, 4), 1 - 6.0 / 92);
    }

    TEST_CASE("task 7: TimeOneRep = sum of TNT x ILP_i + the longest exposed wait; block i+1 wraps to block 0") {
        const Fns f = fns();
        const std::vector<Block> blocks = {block(10, 100, 4), block(5, 20, 2)};
        const Occupancy occ{2, 1};
        // Block 0: warps expose 104-10 = 94 and 104-5 = 99 -> 99; issue 2 x 10.
        // Block 1 (next: block 0): 22-5 = 17 and 22-5 = 17 -> 17; issue 2 x 5.
        EXPECT("task 7", f.time_one_rep(blocks, occ), 20.0 + 99 + 10 + 17);
        // One block, one warp: nothing hides anything.
        EXPECT("task 7", f.time_one_rep({block(10, 100, 4)}, Occupancy{1, 1}), 10.0 + 104);
    }

    TEST_CASE("task 8: RepNum rounds up; TimeTotal = TimeOneRep x RepNum") {
        const Fns f = fns();
        CHECK_MESSAGE(f.rep_num(1000, 4, 30) == 9, "task 8a: rep_num(1000, 4, 30) gave " << f.rep_num(1000, 4, 30) << ", expected ceil(1000/120) = 9");
        CHECK_MESSAGE(f.rep_num(120, 4, 30) == 1, "task 8a: rep_num(120, 4, 30) gave " << f.rep_num(120, 4, 30) << ", expected 1");
        CHECK_MESSAGE(f.rep_num(121, 4, 30) == 2, "task 8a: rep_num(121, 4, 30) gave " << f.rep_num(121, 4, 30) << ", expected 2");
        CHECK_MESSAGE(f.rep_num(1, 8, 132) == 1, "task 8a: rep_num(1, 8, 132) gave " << f.rep_num(1, 8, 132) << ", expected 1");
        mml::lh::Kernel k;
        k.blocks = {block(10, 100, 4), block(5, 20, 2)};
        k.occupancy = {2, 1};
        k.grid_blocks = 5;
        k.sm_count = 2;
        k.clock_ghz = 1;
        EXPECT("task 8b", f.time_total_cycles(k), 146.0 * 3);
    }

    TEST_CASE("reference kernel descriptions: the paper's basic-block counts and the occupancy clamp") {
        using namespace mml::lh;
        const Hardware hw = paper_c1060();
        const Shape s{1056, 1056, 1056};
        const Occupancy occ{8, 4};
        // Naive: the setup block, K-1 loop blocks, the store (the paper: WA + 2 with a separate first load).
        CHECK(naive_model(hw, s, 16, 16, occ).blocks.size() == 1056 + 1);
        // CUBLAS 1.1 scheme: NBB = 3 (WA / BS) + 1 (Table 3), partial last tile included.
        CHECK(tiled_model(hw, s, 16, occ).blocks.size() == 3 * 66 + 1);
        CHECK(tiled_model(hw, {100, 100, 100}, 16, occ).blocks.size() == 3 * 7 + 1);
        // Volkov: per 32 of K, load + store + 8 groups; then the store of C.
        CHECK(volkov_model(hw, s, Occupancy{4, 2}).blocks.size() == 10 * 33 + 1);
        // Barriers where the code has __syncthreads; CUDA 1.x ends with one (the paper's rule).
        const auto t = tiled_model(hw, s, 16, occ);
        CHECK_FALSE(t.blocks[0].barrier);
        CHECK(t.blocks[1].barrier);
        CHECK(t.blocks[2].barrier);
        CHECK(t.blocks.back().barrier);
        // C1060 naive 16x16: a warp moves 2 rows x (64 bytes of B + a 32-byte sector of A) a step,
        // at 102 GB/s / 30 SMs / 1.3 GHz.
        CHECK(naive_model(hw, s, 16, 16, occ).blocks[1].bandwidth == doctest::Approx(192.0 / (102.0 / (30 * 1.3))));
        CHECK(naive_model(hw, s, 16, 16, occ).grid_blocks == 66 * 66);
        // A launch smaller than the GPU: 4 blocks over 30 SMs leaves one block on an SM.
        CHECK(naive_model(hw, {32, 32, 8}, 16, 16, occ).occupancy.blocks_per_sm == 1);
        CHECK(naive_model(hw, s, 16, 16, occ).occupancy.blocks_per_sm == 4);
    }

    TEST_CASE("CPU read bandwidth (STREAM-style) is measured and plausible") {
        const mml::StreamBandwidth b = mml::measure_stream_bandwidth(1, 2);
        CHECK(b.read_gbs > 0.5);
        CHECK(b.read_gbs < 2000);
        CHECK(b.triad_gbs > 0.5);
        CHECK(b.array_bytes == 64.0 * 1024 * 1024);
    }

    TEST_CASE("mmlab lh-model prints the C1060 table, and the GPU part or why it is skipped; bad options exit 2") {
        // The version under test (a build without the answers has only the student's).
        const std::string version = mml::testing::impl_under_test() == mml::Impl::Student ? " --student" : "";
        std::string out;
        CHECK(run_mmlab("lh-model --sizes 1056 --reps 1" + version, out) == 0);  // a recorded size: no GPU needed
        CHECK(out.find("Tesla C1060") != std::string::npos);
        CHECK(out.find("naive16   4128") != std::string::npos);
        const bool gpu = mml::gpu::probe().available;
        CHECK(out.find(gpu ? "predicted vs measured" : "skipped") != std::string::npos);
        std::string ex;
        CHECK(run_mmlab("lh-model --explain volkov --n 1056 --inputs recorded" + version, ex) == 0);
        CHECK(ex.find("4 B loads, 64 As loads, 256 FMA") != std::string::npos);
        CHECK(ex.find("TimeOneRep") != std::string::npos);
        std::string bad;
        CHECK(run_mmlab("lh-model --explain volkov --inputs c1060", bad) == 2);
        CHECK(run_mmlab("lh-model --explain nosuch", bad) == 2);
        CHECK(run_mmlab("roofline --size 0", bad) == 2);
        CHECK(run_mmlab("lh-model --bogus", bad) == 2);
        CHECK(run_mmlab("lab 10 --json /tmp/never.json", bad) == 2);
    }
}

// What the harness gives lab 10's roofline, not a task (never graded): the
// tensor-core ceilings' table (models/tensor_peaks.h) against the datasheets'
// own numbers, and the stages placed under each ceiling (models/roofline_stages.h).
TEST_SUITE("lab10-given") {
    TEST_CASE("tensor-core ceilings: the table x SMs x clock gives the datasheets' dense TFLOP/s") {
        using mml::peaks::TensorFormat;
        using mml::peaks::tensor_peak_gflops;
        // H100 SXM5: 132 SMs at 1.83 GHz x 4096 (bf16) / 2048 (TF32) FLOPs a clock: 989.4 / 494.7 TFLOP/s.
        CHECK(tensor_peak_gflops(9, 0, 132, 1.83, TensorFormat::Bf16) == doctest::Approx(989429.76).epsilon(1e-12));
        CHECK(tensor_peak_gflops(9, 0, 132, 1.83, TensorFormat::Tf32) == doctest::Approx(494714.88).epsilon(1e-12));
        // The same part at the 1.98 GHz its driver reports: the ceiling follows the clock given.
        CHECK(tensor_peak_gflops(9, 0, 132, 1.98, TensorFormat::Bf16) == doctest::Approx(1070530.56).epsilon(1e-12));
        // A100: 108 SMs at 1.41 GHz x 2048 / 1024: 312 / 156 TFLOP/s.
        CHECK(tensor_peak_gflops(8, 0, 108, 1.41, TensorFormat::Bf16) == doctest::Approx(311869.44).epsilon(1e-12));
        CHECK(tensor_peak_gflops(8, 0, 108, 1.41, TensorFormat::Tf32) == doctest::Approx(155934.72).epsilon(1e-12));
        // No spec value, no ceiling, and the reason says why.
        for (auto [major, minor] : {std::pair{7, 0}, std::pair{7, 5}, std::pair{8, 6}, std::pair{8, 9}, std::pair{12, 0}}) {
            CHECK(tensor_peak_gflops(major, minor, 100, 2.0, TensorFormat::Bf16) == 0);
            CHECK(std::string(mml::peaks::tensor_rate_source(major, minor)).find("no tensor-core ceiling") == 0);
        }
        CHECK(std::string(mml::peaks::tensor_rate_source(9, 0)).find("spec: H100") == 0);
    }

    TEST_CASE("roofline stages: the tensor-core stages run under their format's ceiling, bf16 inputs at 2 bytes") {
        using mml::roofline::Ceiling;
        int bf16 = 0, tf32 = 0;
        for (const mml::roofline::RooflineStage& s : mml::roofline::gpu_stages()) {
            const std::string name = s.stage;
            INFO(name);
            const bool is_tf32 = name.find("tf32") != std::string::npos;
            const bool tensor = name.rfind("lab11.", 0) == 0 || is_tf32;
            const Ceiling want = !tensor ? Ceiling::Fp32 : is_tf32 ? Ceiling::Tf32Tensor : Ceiling::Bf16Tensor;
            CHECK(s.ceiling == want);
            CHECK(s.input_bytes == (want == Ceiling::Bf16Tensor ? 2 : 4));
            bf16 += want == Ceiling::Bf16Tensor;
            tf32 += want == Ceiling::Tf32Tensor;
            if (mml::gpu::built_with_cuda())  // the GPU labs are in this build: the names must be registered stages
                CHECK(mml::Registry::instance().find(name) != nullptr);
        }
        CHECK(bf16 == 4);  // lab 11: wmma_bf16, mma_sync, wgmma, cuBLAS bf16
        CHECK(tf32 == 4);  // lab 8's wmma_tf32 and cuBLAS TF32, lab 11's wgmma_tf32 and cuBLAS TF32
        // bf16 A and B at 2 bytes an element, C at 4: 2x3x4 moves 2(8 + 12) + 4 * 6 = 64 bytes, not 4 * 26.
        CHECK(mml::roofline::bytes_at_input_size(4.0 * (8 + 12 + 6), 2, 3, 2) == doctest::Approx(64));
        CHECK(mml::roofline::bytes_at_input_size(4.0 * (8 + 12 + 6), 2, 3, 4) == doctest::Approx(104));
    }
}
