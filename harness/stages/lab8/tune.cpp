// mmlab tune (lab 8): the search behind lab8.autotile, shown. At each shape,
// every block-tile configuration x split-K factor the model considers
// (labs/common/lab8_tiles.h) is run once and checked (run_once_and_verify:
// fresh inputs, C poisoned, float64 check), then timed: CUDA events around
// the whole product (the GEMM and, with split-K, the reduction), the median
// of --reps runs after that first one. cuBLAS FP32 (lab8.cublas) is timed
// the same way in the same run. The table marks the fastest configuration
// and the model's choice, and says how far apart they are.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cpu/stats.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/gpu_backend.h"
#include "harness/report.h"
#include "harness/run_stage.h"
#include "harness/stages/lab8/autotile_param.h"
#include "harness/targets.h"
#include "labs/common/lab8_tiles.h"

namespace mml::lab8 {
namespace {

namespace tiles = common::lab8;

const char* kUsage = R"(usage: mmlab tune [--size LIST] [--tile LIST] [--split LIST] [--reps R] [--impl student|reference]
The search behind lab8.autotile, shown: at each shape (default 1000), every
block-tile configuration (--tile: indices into labs/common/lab8_tiles.h,
0 = 128x256 with stage 5's kernel, 1 = 128x256, 2 = 128x128,
3 = 128x64, 4 = 64x64 with stage 4's; default all) times every
split-K factor the model considers (--split to choose others, 1..64), each
checked against the float64 product, then timed with CUDA events (GEMM plus
reduction; median of R runs after a first, checked one; default 10), beside
cuBLAS FP32 timed the same way. Columns: blocks = tiles x split; waves =
blocks / (SMs x blocks per SM); model = the wave model's time; measured,
TFLOP/s (2 per multiply-add), % of cuBLAS's speed. Marks the measured best
and the model's choice (what lab8.autotile runs when not told).
The reference unless --impl student. Needs a CUDA GPU.
)";

struct Row {
    tiles::Plan plan;
    bool passed = false;
    std::string failure;
    double seconds = 0;
};

double median_seconds(Problem& p, const MatmulFn& fn, const StageParams& params, int reps) {
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) ms.push_back(p.device().run_timed_ms(fn, params));
    return median(ms) / 1e3;
}

int run_tune(const std::vector<std::string>& raw) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    CommandArgs a(raw, "tune");
    std::vector<Shape> shapes = {{1000, 1000, 1000}};
    std::vector<long long> tile_list, split_list;
    int reps = 10;
    Impl impl = Impl::Reference;
    for (std::string f; a.next(f);) {
        if (f == "--size") shapes = parse_shapes(a.value(f));
        else if (f == "--tile") tile_list = parse_integer_list(a.value(f), "--tile", 0, tiles::kTileConfigCount - 1);
        else if (f == "--split") split_list = parse_integer_list(a.value(f), "--split", 1, kMaxSplitParam);
        else if (f == "--reps") reps = int(parse_integer(a.value(f), "--reps", 1, 1000));
        else if (f == "--impl") impl = parse_impl(a.value(f));
        else a.unknown(f);
    }
    if (tile_list.empty())
        for (int t = 0; t < tiles::kTileConfigCount; ++t) tile_list.push_back(t);
    const Stage& stage = stage_or_error("lab8.autotile");
    const Stage& peer = stage_or_error("lab8.cublas");
    if (impl == Impl::Reference && !stage.reference)
        throw UsageError("'mmlab tune' times the reference unless --impl student, and " + std::string(kNoReference));
    for (Shape s : shapes) check_fits_in_memory(s, Device::Gpu);
    gpu::require_gpu("'mmlab tune'");

    const gpu::DeviceInfo info = gpu::probe();
    const tiles::GpuFacts g = tiles::gpu_facts(info);
    std::printf("GPU     : %s (sm_%d%d), %d SMs\n", info.name.c_str(), info.cc_major, info.cc_minor, info.sm_count);
    std::printf("model   : %.0f GFMA/s per SM (FP32 lanes x %.2f GHz, spec), DRAM %.0f GB/s (memory clock x bus "
                "width x 2, spec); labs/common/lab8_tiles.h\n",
                g.fma_per_s_per_sm / 1e9, info.sm_clock_ghz, g.dram_bytes_per_s / 1e9);
    std::printf("timed   : %s version of lab8.autotile and cuBLAS FP32, CUDA events around the product (GEMM + "
                "reduction), median of %d runs after a checked first run\n",
                impl_name(impl), reps);
    const MatmulFn& fn = version_of(stage, impl);
    const MatmulFn& peer_fn = version_of(peer, Impl::Reference);
    bool all_ok = true;
    for (Shape s : shapes) {
        std::fprintf(stderr, "[tune] %s: filling A and B, copying...\n", shape_text(s).c_str());
        Problem p(s);
        const double flops = 2.0 * double(s.M) * double(s.N) * double(s.K);
        const CheckedRun peer_check = run_once_and_verify(peer, peer_fn, p, {});
        const double peer_s = peer_check.check.passed ? median_seconds(p, peer_fn, {}, reps) : 0;

        const tiles::Plan chosen = tiles::choose_plan(s.M, s.N, s.K, g);
        std::vector<Row> rows;
        for (long long t : tile_list) {
            std::vector<int> splits;
            if (split_list.empty()) {
                for (int k = 1; k <= tiles::kMaxSplit; ++k)
                    if (tiles::split_considered(s.K, k)) splits.push_back(k);
            } else {
                for (long long k : split_list) splits.push_back(int(k));
            }
            for (int k : splits) {
                Row r;
                r.plan = tiles::plan_for(s.M, s.N, s.K, int(t), k, g);
                // A split asked for that makes the same slices as one already done (K too short for it).
                const bool repeat = std::any_of(rows.begin(), rows.end(), [&](const Row& q) {
                    return q.plan.tile == r.plan.tile && q.plan.split == r.plan.split;
                });
                if (repeat) continue;
                StageParams prm;
                prm.values["tile"] = t;
                prm.values["split"] = r.plan.split;
                const CheckedRun checked = run_once_and_verify(stage, fn, p, prm);
                r.passed = checked.check.passed;
                r.failure = checked.check.failure;
                if (r.passed) r.seconds = median_seconds(p, fn, prm, reps);
                all_ok = all_ok && r.passed;
                rows.push_back(r);
            }
        }

        std::size_t best = rows.size();
        for (std::size_t i = 0; i < rows.size(); ++i)
            if (rows[i].passed && (best == rows.size() || rows[i].seconds < rows[best].seconds)) best = i;
        std::printf("\nlab8.autotile at %s (%s):", shape_text(s).c_str(), impl_name(impl));
        if (peer_check.check.passed)
            std::printf(" cuBLAS FP32 %s (%.1f TFLOP/s)\n", format_seconds(peer_s).c_str(), flops / peer_s / 1e12);
        else
            std::printf(" cuBLAS FP32 WRONG: %s\n", peer_check.check.failure.c_str());
        std::printf("%-8s %5s %7s %7s %6s %6s %10s %10s %8s %8s\n", "tile", "split", "k/slice", "blocks", "blk/SM",
                    "waves", "model", "measured", "TFLOP/s", "% cuBLAS");
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const Row& r = rows[i];
            const tiles::TileConfig& c = tiles::kTileConfigs[r.plan.tile];
            std::printf("%-8s %5d %7lld %7lld %6d %6.2f %10s", c.name, r.plan.split, (long long)r.plan.k_slice,
                        (long long)r.plan.blocks, c.blocks_per_sm, r.plan.waves,
                        format_seconds(r.plan.predicted_s).c_str());
            if (!r.passed) {
                std::printf("  WRONG: %s\n", r.failure.c_str());
                continue;
            }
            std::string mark;
            if (i == best) mark += "  <- measured best";
            if (r.plan.tile == chosen.tile && r.plan.split == chosen.split) mark += "  <- model's choice";
            std::printf(" %10s %8.1f %8s%s\n", format_seconds(r.seconds).c_str(), flops / r.seconds / 1e12,
                        peer_s > 0 ? fixed(100 * peer_s / r.seconds, 1).c_str() : "-", mark.c_str());
        }
        if (best == rows.size()) {
            std::printf("summary %s: no configuration was correct\n", shape_text(s).c_str());
            continue;
        }
        const Row& b = rows[best];
        std::printf("summary %s: best %s split %d %s", shape_text(s).c_str(), tiles::kTileConfigs[b.plan.tile].name,
                    b.plan.split, format_seconds(b.seconds).c_str());
        if (peer_s > 0) std::printf(" (%.1f%% of cuBLAS)", 100 * peer_s / b.seconds);
        std::printf("; model's choice %s split %d", tiles::kTileConfigs[chosen.tile].name, chosen.split);
        const auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) {
            return r.passed && r.plan.tile == chosen.tile && r.plan.split == chosen.split;
        });
        if (it != rows.end())
            std::printf(" %s = %.3fx the best's time\n", format_seconds(it->seconds).c_str(), it->seconds / b.seconds);
        else
            std::printf(" (not among the rows timed)\n");
    }
    return all_ok ? 0 : 1;
}

CommandRegistrar tune_cmd({"tune", "lab 8: every block tile x split-K at a shape, timed and checked, beside the wave model",
                           kUsage, run_tune, 8});

}  // namespace
}  // namespace mml::lab8
