// mmlab phvm-model (lab 9): Lei et al. 2024's time-cost model (models/phvm_config_model.h)
// alone - every configuration of Eq. 2-4 and the optimum under the three
// readings of Eq. 11. No GPU needed for the paper's two GPUs; --gpu this reads
// the device and measures the latencies.
#include <cstdio>
#include <string>
#include <vector>

#include "gpu/latency.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/format.h"
#include "harness/gpu_backend.h"
#include "harness/report.h"
#include "harness/stages/lab9/command_helpers.h"
#include "models/phvm_config_model.h"

namespace mml::lab9 {
namespace {

const char* kUsage = R"(usage: mmlab phvm-model [--gpu a100|2080ti|this] [--size LIST] [--usm U]
                        [--sigma-g C] [--sigma-s C] [--sigma-add C] [--sigma-mul C]
                        [--sm-num N] [--sms T] [--cores C]
The time-cost model of Lei et al. 2024 (Eq. 1-11) alone: the predicted time of
every configuration that satisfies Eq. 2-4, which equation (9 or 10) applies, and
the optimum, under the three readings of Eq. 11 (u_SM dividing all of t_prep,
only its load term, or only its reduction term). --gpu a100 / 2080ti use the
paper's Tables 3-4 and need no GPU; --gpu this (default when a GPU is present)
reads the device and measures the latencies. The --sigma-*, --usm, --sm-num,
--sms (max threads per SM) and --cores options replace single inputs, e.g. an
H100 without a GPU at hand: --gpu a100 --sm-num 132 --cores 16896 --sigma-g 696
--sigma-s 29 --sigma-add 4 --sigma-mul 4.
)";

int run_model(const std::vector<std::string>& raw) {
    CommandArgs a(raw, "phvm-model");
    std::vector<Shape> shapes = parse_shapes("MTX1,MTX2,MTX3");
    std::string which = gpu::probe().available ? "this" : "a100";
    double usm = -1, sg = -1, ss = -1, sadd = -1, smul = -1;
    long long sm_num = 0, sms = 0, cores = 0;
    for (std::string f; a.next(f);) {
        if (f == "--size") shapes = parse_shapes(a.value(f));
        else if (f == "--gpu") which = a.value(f);
        else if (f == "--usm") usm = parse_real(a.value(f), "--usm", 1e-3, 1);
        else if (f == "--sigma-g") sg = parse_real(a.value(f), "--sigma-g", 0, 1e6);
        else if (f == "--sigma-s") ss = parse_real(a.value(f), "--sigma-s", 0, 1e6);
        else if (f == "--sigma-add") sadd = parse_real(a.value(f), "--sigma-add", 0, 1e6);
        else if (f == "--sigma-mul") smul = parse_real(a.value(f), "--sigma-mul", 0, 1e6);
        else if (f == "--sm-num") sm_num = parse_integer(a.value(f), "--sm-num", 1, 100000);
        else if (f == "--sms") sms = parse_integer(a.value(f), "--sms", 32, 100000);
        else if (f == "--cores") cores = parse_integer(a.value(f), "--cores", 1, 10000000);
        else a.unknown(f);
    }
    phvm::ModelGpu g;
    if (which == "a100") g = phvm::paper_a100();
    else if (which == "2080ti") g = phvm::paper_rtx2080ti();
    else if (which == "this") {
        gpu::require_gpu("--gpu this");
        g = this_gpu_model(gpu::measure_latencies(), 0.16);
    } else throw UsageError("--gpu must be a100, 2080ti or this, got '" + which + "'");
    if (usm > 0) g.u_sm = usm;
    if (sg >= 0) g.sigma_g = sg;
    if (ss >= 0) g.sigma_s = ss;
    if (sadd >= 0) g.sigma_add = sadd;
    if (smul >= 0) g.sigma_mul = smul;
    if (sm_num) g.sm_num = int(sm_num);
    if (sms) g.sms = int(sms);
    if (cores) g.cores = int(cores);
    if (sm_num || sms || cores || sg >= 0 || ss >= 0 || sadd >= 0 || smul >= 0 || usm > 0) g.name += ", with the inputs given";
    print_model_inputs(g);
    const phvm::UsmReading readings[] = {phvm::UsmReading::WholePrep, phvm::UsmReading::LoadTermOnly,
                                         phvm::UsmReading::ReductionTermOnly};
    const char* reading_names[] = {"t_prep/u_SM", "load term/u_SM", "reduction/u_SM"};
    for (Shape s : shapes) {
        std::printf("\n%s: predicted cycles (Eq. 1) for the configurations of Eq. 2-4\n", shape_text(s).c_str());
        std::printf("%7s %5s %13s %13s %13s %13s %4s\n", "GS", "BS", "t_prep", "t_post", "t_single", "total", "Eq.");
        for (const auto& c : phvm::feasible_configs(g)) {
            const auto t = phvm::predict(g, s.M, s.N, s.K, c.gs, c.bs);
            std::printf("%7lld %5lld %13.5g %13.5g %13.5g %13.5g %4d\n", (long long)c.gs, (long long)c.bs, t.t_prep,
                        t.t_post, t.t_single, t.total, t.equation);
        }
        for (int r = 0; r < 3; ++r) {
            const auto o = phvm::model_optimum(g, s.M, s.N, s.K, readings[r]);
            std::printf("optimum (%s): GS %lld BS %lld, %.5g cycles (Eq. %d)\n", reading_names[r],
                        (long long)o.config.gs, (long long)o.config.bs, o.time.total, o.time.equation);
        }
    }
    return 0;
}

CommandRegistrar model_cmd({"phvm-model", "lab 9: the PHVM time-cost model (Eq. 1-11) and its optimum", kUsage,
                            run_model, 9});

}  // namespace
}  // namespace mml::lab9
