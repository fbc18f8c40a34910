// Lab 12 on GPUs: the GPU SUMMA (build/bin/mmlab-nccl, one MPI process per
// GPU) at odd, tiny, tall and wide shapes, fp32 and bf16, overlap on and off,
// with narrow panels and with the default ones, checked against the float64
// product gathered on rank 0. Ranks: $MML_LAB12_RANKS (default 1: one GPU; on
// a machine of N GPUs, tools/lab12-gpu.sh sets N). With one rank every
// broadcast still goes through NCCL (--always-broadcast), so the NCCL path is
// tested on one GPU. Suite gpu-lab12 (graded: the version under test);
// gpu-lab12-peers: cuBLAS, cublasXt, lab 8's and lab 11's kernels as the
// tile product, the copy-engine transport (given code and peers, never graded).
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "harness/gpu_backend.h"
#include "tests/lab12_runs.h"

using mml::Shape;
using namespace mml::testing;
namespace l12 = mml::lab12;

namespace {

const bool kNoNccl = mml::gpu::built_with_cuda() && lab12_skip(l12::nccl_missing(), "NCCL", "gpu-lab12*");

int ranks() {
    const char* r = std::getenv("MML_LAB12_RANKS");
    const int n = r ? std::atoi(r) : 1;
    return n >= 1 ? n : 1;
}

const std::vector<Shape>& gpu_shapes() {
    static const std::vector<Shape> s = {{1, 1, 1},   {2, 3, 5},     {13, 17, 19},  {1, 64, 33},      {64, 1, 33},
                                         {37, 29, 1}, {101, 3, 257}, {3, 257, 101}, {127, 129, 131}, {300, 200, 100}};
    return s;
}

bool check_gpu(const std::vector<std::string>& extra, const std::vector<Shape>& shapes = gpu_shapes(), int np = ranks()) {
    std::vector<std::string> args = {"gemm", "--impl", lab12_impl(), "--size", lab12_sizes(shapes), "--reps", "1",
                                     "--warmup", "0"};
    args.insert(args.end(), extra.begin(), extra.end());
    return check_lab12_run("mmlab-nccl", np, args, shapes.size());
}

}  // namespace

TEST_SUITE("gpu-lab12") {
    TEST_CASE("lab12 GPU SUMMA fp32 through NCCL, overlap on and off, default and narrow panels" * doctest::skip(kNoNccl)) {
        for (const char* ov : {"on", "off"})
            for (const char* panel : {"0", "7"})
                if (!check_gpu({"--always-broadcast", "--overlap", ov, "--panel", panel})) return;
    }
    TEST_CASE("lab12 GPU SUMMA bf16 through NCCL (the bf16 error bound)" * doctest::skip(kNoNccl)) {
        check_gpu({"--always-broadcast", "--precision", "bf16", "--panel", "7"});
    }
    TEST_CASE("lab12 GPU 1-D (grid P x 1) and SUMMA without forced broadcasts" * doctest::skip(kNoNccl)) {
        if (check_gpu({"--algo", "rows", "--always-broadcast", "--panel", "5"})) check_gpu({"--panel", "9"});
    }
    TEST_CASE("lab12 GPU SUMMA, big odd shapes (randomized check)" * doctest::skip(kNoNccl)) {
        check_gpu({"--always-broadcast"}, {{1025, 777, 2049}, {2000, 3000, 1000}});
    }
}

TEST_SUITE("gpu-lab12-peers") {
    TEST_CASE("cuBLAS fp32 and bf16, and cublasXt, on one process" * doctest::skip(kNoNccl)) {
        const std::vector<Shape> shapes = {{1, 1, 1}, {37, 29, 1}, {127, 129, 131}, {1025, 777, 2049}};
        for (const char* prec : {"fp32", "bf16"})
            check_lab12_run("mmlab-nccl", 1,
                            {"gemm", "--algo", "cublas", "--precision", prec, "--size", lab12_sizes(shapes), "--reps", "1"},
                            shapes.size());
        check_lab12_run("mmlab-nccl", 1,
                        {"gemm", "--algo", "cublasxt", "--size", lab12_sizes(shapes), "--reps", "1", "--warmup", "0"},
                        shapes.size());
    }
    TEST_CASE("the copy-engine transport (given code: CUDA IPC, cudaMemcpy2DAsync), fp32 and bf16, overlap on and off" *
              doctest::skip(kNoNccl)) {
        // One rank copies every panel from itself (--always-broadcast); several fetch them from their
        // owners over NVLink. Narrow panels (5, 7: many steps, both buffers reused), the default (the width
        // the launch measures, choose_copy_panel: K = 1, empty blocks, odd widths), big odd shapes.
        const std::vector<std::string> copy = {"--transport", "copy", "--impl", "reference"};
        auto with = [&](std::vector<std::string> extra) {
            extra.insert(extra.end(), copy.begin(), copy.end());
            return extra;
        };
        // Each rank starts at a step it holds (owned_first), or all in K order (--step-order k).
        if (check_gpu(with({"--always-broadcast", "--panel", "7"})) &&
            check_gpu(with({"--always-broadcast", "--overlap", "off", "--panel", "5"})) &&
            check_gpu(with({"--always-broadcast", "--precision", "bf16", "--panel", "7"})) && check_gpu(with({})) &&
            check_gpu(with({"--panel", "9", "--step-order", "k"})))
            check_gpu(with({}), {{1025, 777, 2049}, {2000, 3000, 1000}});
    }
    TEST_CASE("lab 8's kernel as the tile product (strided panels, accumulation through cublasSgeam)" *
              doctest::skip(kNoNccl)) {
        const l12::Launch info = l12::launch("mmlab-nccl", 1, {"gemm", "--tile", "lab8", "--size", "1", "--reps", "1"});
        if (info.error().find("not in this build") != std::string::npos) {
            MESSAGE("lab 8's kernel is not in this build (no references): nothing to test");
            return;
        }
        check_gpu({"--tile", "lab8", "--panel", "7", "--impl", "reference"}, gpu_shapes(), 1);
        check_gpu({"--tile", "lab8", "--impl", "reference"}, {{1025, 777, 2049}}, 1);
    }
    TEST_CASE("lab 11's wgmma kernel as the tile product (bf16, sm_90; B transposed, accumulation through cublasSgeam)" *
              doctest::skip(kNoNccl)) {
        const l12::Launch info =
            l12::launch("mmlab-nccl", 1, {"gemm", "--tile", "lab11", "--precision", "bf16", "--size", "1", "--reps", "1"});
        if (info.error().find("not in this build") != std::string::npos) {
            MESSAGE("lab 11's kernel is not in this build (no references): nothing to test");
            return;
        }
        if (info.error().find("runs only on Hopper") != std::string::npos) {
            // Any other GPU: the one-line answer, exit 2, and nothing to multiply with.
            INFO(info.command << "\n" << info.output);
            CHECK(info.exit_code == 2);
            MESSAGE("skipped: " << info.error());
            return;
        }
        // Odd shapes through NCCL with panels that break the TMA's 16-byte rule (7: A copied) and keep it
        // (64: the packed panel used where it lies); without broadcasts, A read in place with a row stride
        // wider than the panel (K = 2048, 1000 in panels of 256), and the default (one panel of K = 2049:
        // copied); the bound: bf16-rounded inputs (bf16_bound).
        const std::vector<std::string> tile = {"--tile", "lab11", "--precision", "bf16", "--impl", "reference"};
        auto with = [&](std::vector<std::string> extra) {
            extra.insert(extra.end(), tile.begin(), tile.end());
            return extra;
        };
        if (check_gpu(with({"--always-broadcast", "--panel", "7"}), gpu_shapes(), 1) &&
            check_gpu(with({"--always-broadcast", "--panel", "64", "--overlap", "off"}), gpu_shapes(), 1))
            if (check_gpu(with({"--panel", "256"}), {{1025, 777, 2048}, {200, 300, 1000}}, 1))
                check_gpu(with({}), {{1025, 777, 2049}, {64, 64, 1}, {1, 1, 1}}, 1);
        // Over the copy engines B is stored transposed once and its panels move as such: panels that break
        // the 16-byte rule (7: both copied to one stride) and keep it (64), on one rank copying from
        // itself and on every rank; the default panels at big odd shapes.
        const std::vector<std::string> copy = {"--transport", "copy"};
        auto by_copy = [&](std::vector<std::string> extra) {
            extra.insert(extra.end(), copy.begin(), copy.end());
            return with(extra);
        };
        if (check_gpu(by_copy({"--always-broadcast", "--panel", "7"}), gpu_shapes(), 1) &&
            check_gpu(by_copy({"--always-broadcast", "--panel", "64"}), gpu_shapes(), 1) &&
            check_gpu(by_copy({"--panel", "7"})))
            check_gpu(by_copy({}), {{1025, 777, 2049}, {2000, 3000, 1000}});
    }
    TEST_CASE("the NCCL program's answers to bad input: one line, exit 2" * doctest::skip(kNoNccl)) {
        struct Case {
            int np;
            std::vector<std::string> args;
            const char* says;
        };
        const std::vector<Case> cases = {
            {1, {"gemm", "--grid", "2x1"}, "needs 2 processes"},
            {1, {"gemm", "--tile", "lab8", "--precision", "bf16"}, "float32 kernel"},
            {1, {"gemm", "--algo", "cublasxt", "--precision", "bf16"}, "no bf16 product"},
            {1, {"gemm", "--overlap", "maybe"}, "use on or off"},
            {1, {"gemm", "--tile", "lab11"}, "add --precision bf16"},
            {1, {"gemm", "--transport", "pigeon"}, "use nccl or copy"},
            {1, {"gemm", "--transport", "copy", "--impl", "student"}, "not yours"},
            {1, {"gemm", "--transport", "copy", "--algo", "cublas"}, "moves SUMMA's panels"},
            {1, {"gemm", "--transport", "copy", "--step-order", "sideways"}, "use owned or k"},
        };
        for (const Case& c : cases) {
            const l12::Launch l = l12::launch("mmlab-nccl", c.np, c.args);
            INFO(l.command << "\n" << l.output);
            CHECK(l.exit_code == 2);
            CHECK(l.error().find(c.says) != std::string::npos);
        }
    }
}
