// The time-cost model of Lei et al. 2024 (see phvm_config_model.h for the equations).
#include "models/phvm_config_model.h"

#include <cmath>
#include <limits>

namespace mml::phvm {

ModelGpu paper_rtx2080ti() {
    ModelGpu g;
    g.name = "RTX 2080 Ti (paper, Tables 3-4)";
    g.sm_num = 68, g.sms = 1024, g.ws = 32, g.cores = 4352;
    g.sigma_add = 1, g.sigma_mul = 2, g.sigma_g = 346, g.sigma_s = 49.39, g.u_sm = 0.27;
    return g;
}

ModelGpu paper_a100() {
    ModelGpu g;
    g.name = "A100-PCIE-40GB (paper, Tables 3-4)";
    g.sm_num = 108, g.sms = 2048, g.ws = 32, g.cores = 6912;
    g.sigma_add = 1, g.sigma_mul = 2, g.sigma_g = 317, g.sigma_s = 34.46, g.u_sm = 0.16;
    return g;
}

ModelTime predict(const ModelGpu& g, std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t gs,
                  std::int64_t bs, UsmReading reading) {
    ModelTime t;
    const double GS = double(gs), BS = double(bs), u = g.u_sm;
    // Eq. 7, split into its three terms: the loads and multiply-adds of L4, the
    // store to shared memory, and the log2(BS) halving steps of L5.
    double load = double(K) / (BS * GS) * (2 * g.sigma_g + g.sigma_add + g.sigma_mul);
    double store = g.sigma_s;
    double reduce = std::log2(BS) * (g.sigma_add + 3 * g.sigma_s);
    switch (reading) {  // Eq. 11
        case UsmReading::WholePrep: load /= u, store /= u, reduce /= u; break;
        case UsmReading::LoadTermOnly: load /= u; break;
        case UsmReading::ReductionTermOnly: reduce /= u; break;
    }
    t.t_prep = load + store + reduce;
    t.t_post = g.sigma_s + g.sigma_g + g.sigma_add + g.sigma_g;  // Eq. 8 (L6)
    const double cores = double(g.cores);
    if (t.t_prep < cores / BS * t.t_post) {
        t.t_single = t.t_prep + GS * t.t_post;  // Eq. 9: the atomics are the bottleneck
        t.equation = 9;
    } else {
        // Eq. 10: GS*BS/CoreS rounds of blocks; each round's atomics overlap the next round.
        t.t_single = GS * BS / cores * t.t_prep + cores / BS * GS * t.t_post;
        t.equation = 10;
    }
    t.total = double(M) * double(N) * t.t_single;  // Eq. 1
    return t;
}

bool satisfies_constraints(const ModelGpu& g, std::int64_t gs, std::int64_t bs) {
    return bs >= g.ws && bs <= g.max_block && bs % g.ws == 0 && g.sms % bs == 0 &&
           gs * bs == std::int64_t(g.sms) * g.sm_num;
}

std::vector<Config> feasible_configs(const ModelGpu& g) {
    std::vector<Config> out;
    for (std::int64_t bs = g.ws; bs <= g.max_block && bs <= g.sms; bs += g.ws)
        if (g.sms % bs == 0) {
            const std::int64_t total = std::int64_t(g.sms) * g.sm_num;
            if (total % bs == 0) out.push_back({total / bs, bs});
        }
    return out;
}

Optimum model_optimum(const ModelGpu& g, std::int64_t M, std::int64_t N, std::int64_t K, UsmReading reading) {
    Optimum best;
    best.time.total = std::numeric_limits<double>::infinity();
    for (const Config& c : feasible_configs(g)) {
        const ModelTime t = predict(g, M, N, K, c.gs, c.bs, reading);
        if (t.total < best.time.total) best = {c, t};
    }
    return best;
}

}  // namespace mml::phvm
