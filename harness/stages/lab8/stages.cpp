// Lab 8 - register blocking on the GPU: thread tiles, float4 loads,
// conflict-free shared memory, double buffering; cuBLAS FP32 as the peer;
// TF32 tensor cores (WMMA, and cuBLAS TF32) as the extension. The cuBLAS
// rows are peers: the library call is their one version, registered here;
// the reference versions of the student stages are bound in references.cpp.
#include <algorithm>
#include <cstdint>

#include "peers/peer_cublas.h"
#include "harness/cli.h"
#include "harness/stage.h"
#include "harness/stages/lab8/autotile_param.h"
#include "harness/targets.h"
#include "labs/common/lab8_tiles.h"
#include "labs/lab8/lab8.h"

namespace {

using namespace mml;

constexpr const char* kPeer = "lab8.cublas";
constexpr double kGoal = 0.85;  // best FP32 stage's speed / cuBLAS FP32's

void add_stage(Registry& reg, const char* name, PlainMatmul student, const char* summary, bool tf32 = false) {
    Stage s = make_stage(8, name, summary, from_plain(student), {});  // the reference: references.cpp
    // TF32 rounds every input to 10 mantissa bits: its own, looser bound.
    if (tf32) s.bound = [](Shape shape, const StageParams&) { return tf32_bound(shape); };
    reg.add(std::move(s));
}

void add_cublas(Registry& reg, const char* name, peers::CublasMath math, const char* summary) {
    Stage s = make_stage(8, name, summary, {},
                         [math](const float* A, const float* B, float* C, Shape shape, const StageParams&) {
                             peers::cublas_sgemm_row_major(A, B, C, shape, math);
                         });
    if (math == peers::CublasMath::Tf32) s.bound = [](Shape shape, const StageParams&) { return tf32_bound(shape); };
    s.describe_library = peers::cublas_description;
    reg.add(std::move(s));
}

bool is_fp32_student_stage(const Measurement& r) {
    return r.impl == Impl::Student && r.stage.rfind("lab8.", 0) == 0 && r.stage != "lab8.wmma_tf32";
}

// The course's goal is stated at 4096^3 and 8192^3: products large enough to
// fill the GPU with the lab's tiles. At every shape with M, N, K >= 4096 where
// cuBLAS FP32 was timed, the fastest of the student's FP32 stages must reach
// kGoal of cuBLAS's speed (time ratio cuBLAS / own). Smaller shapes are
// reported, not judged (cuBLAS switches to kernels made for small products).
constexpr std::int64_t kJudgedFrom = 4096;

TargetVerdict judge_lab8(const std::vector<Measurement>& rows) {
    if (auto failed = first_failure(rows, Impl::Student)) return *failed;
    TargetVerdict v{true, ""};
    int judged = 0, reported = 0;
    for (const Measurement& peer : rows) {
        if (peer.stage != kPeer || peer.skipped || !peer.passed || peer.median_seconds <= 0) continue;
        const Measurement* best = nullptr;
        for (const Measurement& r : rows)
            if (is_fp32_student_stage(r) && !r.skipped && r.passed && r.median_seconds > 0 &&
                r.shape == peer.shape &&
                (!best || r.median_seconds < best->median_seconds))
                best = &r;
        if (!best) continue;
        const double ratio = peer.median_seconds / best->median_seconds;
        const bool counts = std::min({peer.shape.M, peer.shape.N, peer.shape.K}) >= kJudgedFrom;
        if (counts) {
            v.met = v.met && ratio >= kGoal;
            ++judged;
        }
        v.explanation += std::string(reported++ ? "; " : "") + "at " + shape_text(peer.shape) + " your fastest, " +
                         best->stage + ", runs at " + fixed(100 * ratio, 1) + "% of cuBLAS FP32 (" +
                         fixed(best->gflops, 0) + " vs " + fixed(peer.gflops, 0) + " GFLOP/s)" +
                         (counts ? "" : " [not judged: below 4096]");
    }
    if (!judged)
        return {false, v.explanation + (reported ? "; " : "") +
                           "no shape with M, N, K >= 4096 had both a correct FP32 stage of yours and cuBLAS FP32 timed"};
    v.explanation += " (goal >= " + fixed(100 * kGoal, 0) + "% at every size >= 4096)";
    return v;
}

}  // namespace

void mml::lab8::check_autotile_params(const StageParams& p) {
    if (p.values.count("tile")) {
        const long long t = p.values.at("tile");
        if (t < 0 || t >= common::lab8::kTileConfigCount) {
            std::string names;
            for (int i = 0; i < common::lab8::kTileConfigCount; ++i)
                names += std::string(i ? ", " : "") + std::to_string(i) + " = " + common::lab8::kTileConfigs[i].name;
            throw UsageError("lab8.autotile: --param tile must be one of the configurations (" + names + "), got " +
                             std::to_string(t));
        }
    }
    if (p.values.count("split")) {
        const long long s = p.values.at("split");
        if (s < 1 || s > kMaxSplitParam)
            throw UsageError("lab8.autotile: --param split must be in [1, " + std::to_string(kMaxSplitParam) +
                             "] (the number of k-slices), got " + std::to_string(s));
    }
}

mml::MatmulFn mml::lab8::autotiled(AutotileMatmul fn) {
    return [fn](const float* A, const float* B, float* C, Shape s, const StageParams& p) {
        check_autotile_params(p);
        fn(A, B, C, s.M, s.N, s.K, int(p.get("tile", -1)), int(p.get("split", 0)));
    };
}

void mml::lab8::check_streamk_params(const StageParams& p) {
    if (p.values.count("sk") && p.values.at("sk") != 0 && p.values.at("sk") != 1)
        throw UsageError("lab8.streamk: --param sk must be 1 (stream-K, the default) or 0 (every tile whole, the "
                         "last wave as it falls), got " + std::to_string(p.values.at("sk")));
}

mml::MatmulFn mml::lab8::streamk_switched(StreamkMatmul fn) {
    return [fn](const float* A, const float* B, float* C, Shape s, const StageParams& p) {
        check_streamk_params(p);
        fn(A, B, C, s.M, s.N, s.K, p.get("sk", 1) != 0);
    };
}

namespace {

Registrar lab8_stages([](Registry& reg) {
    namespace st = student::lab8;
    add_stage(reg, "register_tile", st::register_tile, "8x8 thread tile in registers, 128x128 block tile, k-step 8");
    add_stage(reg, "vector_loads", st::vector_loads, "+ 16-byte (float4) global and shared loads, A transposed in shared");
    add_stage(reg, "conflict_free", st::conflict_free, "+ padded shared rows and split thread tiles: no bank conflicts");
    add_stage(reg, "double_buffer", st::double_buffer,
              "+ double buffering, warp tiles, 128x256 block tile, L2-friendly tile order");
    add_stage(reg, "async_copy", st::async_copy,
              "+ cp.async 3-stage shared-memory pipeline, register-double-buffered fragments (128x256)");
    {
        // The model's choice of tile and split-K per shape; --param tile=, split= force them (mmlab tune).
        // Its bound stays gamma_K (06_autotile.cu says why).
        Stage s = make_stage(8, "autotile", "+ block tile (stage 4's or 5's kernel) and split-K chosen per shape by a wave model (mmlab tune; --param tile=,split=)",
                             lab8::autotiled(st::autotile), {});
        s.check_params = lab8::check_autotile_params;
        s.param_names = {"tile", "split"};
        reg.add(std::move(s));
    }
    {
        // --param sk=0: the same persistent kernel without stream-K (the last wave whole), for the before/after.
        Stage s = make_stage(8, "streamk", "+ persistent blocks: full waves' tiles whole, the last wave's shared out by k-steps (stream-K; --param sk=0: off)",
                             lab8::streamk_switched(st::streamk), {});
        s.check_params = lab8::check_streamk_params;
        s.param_names = {"sk"};
        reg.add(std::move(s));
    }
    add_cublas(reg, "cublas", peers::CublasMath::Fp32, "the peer: cuBLAS SGEMM, FP32 (tensor cores off)");
    add_stage(reg, "wmma_tf32", st::wmma_tf32, "extension: TF32 tensor cores through WMMA (looser bound: tf32_bound)",
              true);
    add_cublas(reg, "cublas_tf32", peers::CublasMath::Tf32, "the extension's peer: cuBLAS SGEMM with TF32 tensor cores");

    Lab lab;
    lab.number = 8;
    lab.default_shapes = {{4096, 4096, 4096}};
    lab.target = "every stage correct; your fastest FP32 stage >= 85% of cuBLAS FP32 SGEMM's speed "
                 "(tensor cores off) at every size >= 4096 timed (the course's goal: 4096^3 and 8192^3)";
    lab.judge = judge_lab8;
    reg.add_lab(std::move(lab));
});

}  // namespace
