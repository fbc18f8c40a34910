// mmlab lh-model (lab 10): part 2 of make lab10 on its own (lh_model.cpp),
// with its options and CSV output for plots, and --explain: where the model's
// time goes for one kernel, block by block.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/csv_file.h"
#include "harness/gpu_backend.h"
#include "harness/report.h"
#include "harness/stages/lab10/lab10.h"
#include "models/lh_kernels.h"

namespace mml::lab10 {
namespace {

std::string recorded_sizes_text() {
    std::string t;
    for (long long n : lh::recorded_h100_sizes()) t += (t.empty() ? "" : ", ") + std::to_string(n);
    return t;
}

// ---------------------------------------------------------------- --explain: where the time goes

// The kernel's model on `inputs` with `memory`; the C1060 has only the DRAM-only one.
lh::Kernel model_for(const std::string& kernel, const std::string& inputs, long long n, lh::Memory memory) {
    const Shape s{n, n, n};
    const auto& known = lh::modelled_kernels();
    if (std::find(known.begin(), known.end(), kernel) == known.end())
        throw UsageError("--explain takes naive, tiled16, tiled32 or volkov, got '" + kernel + "'");
    if (inputs == "c1060") {
        if (kernel != "naive" && kernel != "tiled16")
            throw UsageError("on the C1060's inputs --explain takes naive or tiled16 (Table 3 gives only their "
                             "occupancy; tile 32 needs 1024 threads a block, more than the C1060 allows)");
        const lh::Hardware hw = lh::paper_c1060();
        return kernel == "naive" ? lh::naive_model(hw, s, 16, 16, {8, 4}) : lh::tiled_model(hw, s, 16, {8, 4});
    }
    if (inputs == "gpu") {
        gpu::require_gpu("--inputs gpu");
        const std::string why_not = gpu_lh_unavailable();
        if (!why_not.empty()) throw UsageError("--inputs gpu: " + why_not);
        for (const LhCase& c : gpu_sections().lh({n}, 1, true).cases)
            if (c.kernel == kernel) return memory == lh::Memory::Caches ? c.cached : c.model;
        throw UsageError("no case for kernel " + kernel);
    }
    if (inputs != "recorded") throw UsageError("--inputs takes gpu, recorded or c1060, got '" + inputs + "'");
    return lh::kernel_model(kernel, lh::recorded_h100(), s, lh::recorded_h100_occupancy(kernel), memory);
}

// One row per kind of basic block (blocks with the same description added
// up): how often it runs, its inputs, and its share of TimeOneRep, with the
// model functions `f`.
void explain(const lh::Kernel& k, const std::string& inputs, lh::Memory memory, long long n, const ModelFns& f) {
    struct Kind {
        std::string what;
        long long count = 0, barriers = 0;
        double ilp = 0, latency = 0, bandwidth = 0, issue = 0, exposed = 0;
    };
    std::vector<Kind> kinds;
    const int tnt = k.occupancy.warps_on_sm();
    for (std::size_t i = 0; i < k.blocks.size(); ++i) {
        const lh::Block& b = k.blocks[i];
        const lh::Block& next = k.blocks[(i + 1) % k.blocks.size()];
        double exposed = 0;
        for (int j = 1; j <= tnt; ++j)
            exposed = std::max(exposed, f.waiting_cycles(b, k.occupancy, j) * f.latency_hidden(b, next, k.occupancy, j));
        auto it = std::find_if(kinds.begin(), kinds.end(), [&](const Kind& x) { return x.what == b.what; });
        if (it == kinds.end()) {
            kinds.push_back({b.what, 0, 0, b.ilp, b.latency, b.bandwidth, 0, 0});
            it = kinds.end() - 1;
        }
        ++it->count;
        it->barriers += b.barrier ? 1 : 0;
        it->issue += tnt * b.ilp;
        it->exposed += exposed;
    }
    const double one_rep = f.time_one_rep(k.blocks, k.occupancy);
    const long long reps = f.rep_num(k.grid_blocks, k.occupancy.blocks_per_sm, k.sm_count);
    std::printf("\n%s at n = %lld on the %s inputs, %s: TLP x BLP = %d x %d warps, NB %lld, RepNum %lld, clock %.2f GHz\n",
                k.name.c_str(), n, inputs.c_str(), lh::memory_name(memory), k.occupancy.warps_per_block,
                k.occupancy.blocks_per_sm, k.grid_blocks, reps, k.clock_ghz);
    std::printf("%-64s %7s %8s %8s %8s %12s %12s %7s\n", "basic block (one warp)", "count", "ILP", "La", "Bw",
                "TNT x ILP", "exposed", "share");
    for (const Kind& x : kinds)
        std::printf("%-64s %7lld %8.2f %8.1f %8.2f %12.0f %12.0f %6.1f%%\n",
                    (x.what + (x.barriers == x.count ? (x.what.find("barrier") == std::string::npos ? ", barrier" : "")
                               : x.barriers    ? " (" + std::to_string(x.barriers) + " at barrier)"
                                               : std::string())).c_str(), x.count, x.ilp, x.latency, x.bandwidth, x.issue,
                    x.exposed, 100 * (x.issue + x.exposed) / one_rep);
    std::printf("TimeOneRep %.0f cycles x RepNum %lld = %.0f cycles = %s. In cycles: ILP, La, Bw of one block;\n"
                "the last three columns add up over its count. exposed = max over warps j of W(i,j) x LH(i,j).%s\n",
                one_rep, reps, one_rep * double(reps), format_seconds(one_rep * double(reps) / (k.clock_ghz * 1e9)).c_str(),
                memory == lh::Memory::Caches
                    ? "\n[L1/L2/DRAM a/b/c%]: where a global block's bytes come from (models/lh_reuse.h)."
                    : "");
}

// ---------------------------------------------------------------- mmlab lh-model

const char* kUsage = R"(usage: mmlab lh-model [--sizes LIST] [--reps R] [--student] [--csv FILE] [--quiet]
       mmlab lh-model --explain KERNEL [--n N] [--inputs gpu|recorded|c1060]
The latency-hidden-factor model (Yuan et al. 2010) for lab 6's naive kernel, lab 7's tiled16/tiled32
(the paper's CUBLAS 1.1 scheme) and lab 7's Volkov kernel. First on the paper's Tesla C1060
inputs (Tables 2-3; no GPU needed), then on this GPU: occupancy from the compiled kernels
(cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor), latencies from the
pointer-chasing micro-benchmarks (mmlab gpu-latency), bandwidth measured, and each kernel timed
(CUDA events, median of --reps, default 5) at every n of --sizes (default: 2^i + 32 as in the
paper and 2^i, i = 9..12). Without a GPU, the H100 run recorded on 2026-11-25 stands in for this
GPU: --sizes then picks from its sizes (544, 1056, 2080, 4128, 512, 1024, 2048, 4096); --reps and --csv need
a GPU. Every row shows two predictions: the paper's model (every global load to DRAM) and lab 10's
cache-aware one (models/lh_reuse.h). --student uses your labs/lab10 functions (default: the
reference). --csv writes the GPU rows.
--explain KERNEL (naive, tiled16, tiled32, volkov) shows where the model's time goes for one
kernel at n = N (default 4096): one row per kind of basic block, with its ILP, latency, transfer
time, issue time and exposed wait, for the paper's model (every global load to DRAM) and for lab 10's
cache-aware one (each load split between L1, L2 and DRAM); --inputs: this GPU's (default where there is one), the H100's
recorded on 2026-11-25 (default elsewhere) or the paper's C1060 (naive, tiled16).
)";

int run_lh(const std::vector<std::string>& raw) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    CommandArgs a(raw, "lh-model");
    std::vector<long long> sizes;
    int reps = 5;
    Impl impl = Impl::Reference;
    std::string csv, explain_kernel, inputs;
    long long n = 4096;
    bool quiet = false;
    for (std::string fl; a.next(fl);) {
        if (fl == "--quiet") quiet = true;
        else if (fl == "--sizes") sizes = parse_integer_list(a.value(fl), "--sizes", 1, 65536);
        else if (fl == "--reps") reps = int(parse_integer(a.value(fl), "--reps", 1, 1000));
        else if (fl == "--student") impl = Impl::Student;
        else if (fl == "--csv") csv = a.value(fl);
        else if (fl == "--explain") explain_kernel = a.value(fl);
        else if (fl == "--n") n = parse_integer(a.value(fl), "--n", 1, 65536);
        else if (fl == "--inputs") inputs = a.value(fl);
        else a.unknown(fl);
    }
    const ModelFns& f = model_fns_or_error(impl, "'mmlab lh-model'");
    // Whose model functions compute every prediction below, said before any of
    // them (and after every usage check: a usage error stays one line).
    auto say_whose_model = [impl] {
        std::printf("model: %s (waiting_cycles, latency_hidden, time_one_rep, rep_num, time_total_cycles)%s\n",
                    impl == Impl::Student ? "your lab 10 functions, labs/lab10/" : "the reference's lab 10 functions",
                    impl == Impl::Student ? "" : "; --student uses yours");
    };
    if (!explain_kernel.empty()) {
        if (inputs.empty()) inputs = gpu_lh_unavailable().empty() ? "gpu" : "recorded";
        // The paper's model (every load to DRAM), then, where the inputs have caches, lab 10's extension.
        const auto dram_only = model_for(explain_kernel, inputs, n, lh::Memory::DramOnly);
        say_whose_model();
        explain(dram_only, inputs, lh::Memory::DramOnly, n, f);
        if (inputs != "c1060")
            explain(model_for(explain_kernel, inputs, n, lh::Memory::Caches), inputs, lh::Memory::Caches, n, f);
        return 0;
    }
    if (!gpu_lh_unavailable().empty()) {
        // No GPU: the recorded H100 rows stand in, and they exist at their sizes only.
        const std::vector<long long>& recorded = lh::recorded_h100_sizes();
        for (long long size : sizes)
            if (std::find(recorded.begin(), recorded.end(), size) == recorded.end())
                throw UsageError("--sizes " + std::to_string(size) + ": with no GPU here, lh-model shows the H100 run "
                                 "recorded on " + std::string(lh::kRecordedH100Date) + ", which has n = " + recorded_sizes_text() + " only");
    }
    if (sizes.empty()) sizes = default_lh_sizes();
    CsvFile out(csv);
    say_whose_model();
    Comparison unused;  // `mmlab lh-model` shows the numbers; make lab10 judges them
    const int measured_here = lh_sections(sizes, reps, quiet, f, unused, &out);
    if (!csv.empty() && measured_here > 0) std::printf("wrote %s\n", csv.c_str());
    else if (!csv.empty())
        std::printf("--csv %s not written: it holds this GPU's measured rows, and none were measured here\n", csv.c_str());
    return 0;
}

CommandRegistrar lh_cmd({"lh-model", "lab 10: the latency-hidden model (Yuan et al. 2010), predicted vs measured (naive, tiled, Volkov)",
                         kUsage, run_lh, 10});

}  // namespace
}  // namespace mml::lab10
