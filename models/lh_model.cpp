#include "models/lh_model.h"

namespace mml::lh {

double time_one_rep_as_printed(const std::vector<Block>& blocks, const Occupancy& occ, WaitingCyclesFn waiting_cycles,
                               LatencyHiddenFn latency_hidden) {
    const int tnt = occ.warps_on_sm();
    double total = 0;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const Block& b = blocks[i];
        const Block& next = blocks[(i + 1) % blocks.size()];
        total += tnt * b.ilp;
        for (int j = 1; j <= tnt; ++j) total += waiting_cycles(b, occ, j) * latency_hidden(b, next, occ, j);
    }
    return total;
}

}  // namespace mml::lh
