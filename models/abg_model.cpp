// The alpha-beta-gamma model (abg_model.h).
#include "models/abg_model.h"

#include <algorithm>
#include <cmath>

namespace mml::model {

double Link::message_time(double bytes) const {
    if (curve.size() < 2) return alpha + bytes * beta;
    std::vector<Sample> c = curve;
    std::sort(c.begin(), c.end(), [](const Sample& a, const Sample& b) { return a.bytes < b.bytes; });
    if (bytes <= c.front().bytes) return c.front().seconds;
    std::size_t i = 1;
    while (i + 1 < c.size() && c[i].bytes < bytes) ++i;  // c[i-1].bytes < bytes <= c[i].bytes, or beyond the last
    const double slope = (c[i].seconds - c[i - 1].seconds) / (c[i].bytes - c[i - 1].bytes);
    return std::max(c.front().seconds, c[i - 1].seconds + (bytes - c[i - 1].bytes) * slope);
}

double broadcast_time(int q, double bytes, const Link& l) {
    return q <= 1 ? 0.0 : (q - 1) * l.alpha + (l.message_time(bytes) - l.alpha);
}

double allgather_time(int q, double bytes, const Link& l) {
    return q <= 1 ? 0.0 : (q - 1) * l.message_time(bytes / q);
}

double allreduce_time(int q, double bytes, const Link& l) {
    return q <= 1 ? 0.0 : 2.0 * (q - 1) * l.message_time(bytes / q);
}

namespace {

// Does a communicator with these member ranks (increasing) span two nodes?
bool spans_nodes(int first_rank, int last_rank, int per_node) {
    return per_node > 0 && first_rank / per_node != last_rank / per_node;
}

}  // namespace

Prediction predict(Algorithm a, Shape s, lab12::Grid grid, const Machine& m, bool overlap, std::int64_t max_panel) {
    Prediction p;
    p.P = grid.size();
    p.grid = grid;
    p.nodes = m.per_node > 0 ? (p.P + m.per_node - 1) / m.per_node : 1;
    const double share = m.cores > 0 && p.P > m.cores ? double(m.cores) / p.P : 1.0;
    const double gamma = m.gamma / share;
    // The largest blocks (uneven splits: the slowest process sets the time).
    const double rows = std::ceil(double(s.M) / grid.rows), cols = std::ceil(double(s.N) / grid.cols);
    // A process row's ranks are consecutive; a column's are grid.cols apart.
    bool row_cross = false, col_cross = false;
    for (int i = 0; i < grid.rows; ++i) row_cross |= spans_nodes(i * grid.cols, i * grid.cols + grid.cols - 1, m.per_node);
    for (int j = 0; j < grid.cols; ++j) col_cross |= spans_nodes(j, j + (grid.rows - 1) * grid.cols, m.per_node);
    const Link& row_link = row_cross ? m.inter : m.intra;
    const Link& col_link = col_cross ? m.inter : m.intra;
    p.crosses_nodes = (row_cross && grid.cols > 1) || (col_cross && grid.rows > 1);
    const double T1 = s.flops() * m.gamma;

    if (a == Algorithm::Rows) {
        p.steps = 1;
        p.comm_s = allgather_time(p.P, double(s.K) * double(s.N) * m.word_bytes, col_link);
        p.compute_s = 2.0 * rows * double(s.N) * double(s.K) * gamma;
        p.time_s = p.comm_s + p.compute_s;
    } else {
        const std::vector<lab12::Panel> panels = lab12::summa_panels(s, grid, max_panel);
        p.steps = static_cast<long long>(panels.size());
        std::vector<double> comm, comp;
        for (const lab12::Panel& pn : panels) {
            const double w = double(pn.width());
            comm.push_back(broadcast_time(grid.cols, rows * w * m.word_bytes, row_link) +
                           broadcast_time(grid.rows, w * cols * m.word_bytes, col_link));
            // after the first step, the product also reads and writes C once more (beta = 1)
            const double c_pass = comp.empty() ? 0.0 : 2.0 * rows * cols * 4.0 * m.memory_beta;
            comp.push_back(2.0 * rows * cols * w * gamma + c_pass);
            p.comm_s += comm.back();
            p.compute_s += comp.back();
        }
        p.time_s = pipeline_time(comm, comp, overlap);
    }
    p.efficiency = p.time_s > 0 ? T1 / (p.P * p.time_s) : 0;
    p.tflops = p.time_s > 0 ? s.flops() / p.time_s / 1e12 : 0;
    return p;
}

namespace {

// pipeline_time's recurrence from step `from` on, with the transfers' stream
// free at `ready` and the products before ending at done_prev2, done_prev.
double pipeline_from(const std::vector<double>& comm, const std::vector<double>& comp, bool overlap, std::size_t from,
                     double ready, double done_prev2, double done_prev) {
    // Without overlap the transfers of step k+1 also wait for product k.
    for (std::size_t k = from; k < comm.size() && k < comp.size(); ++k) {
        const double buffer_free = overlap ? done_prev2 : done_prev;
        ready = std::max(ready, buffer_free) + comm[k];
        const double done = std::max(ready, done_prev) + comp[k];
        done_prev2 = done_prev;
        done_prev = done;
    }
    return done_prev;
}

}  // namespace

double pipeline_time(const std::vector<double>& comm, const std::vector<double>& comp, bool overlap) {
    return pipeline_from(comm, comp, overlap, 0, 0.0, 0.0, 0.0);
}

double predict_run(const RunInputs& in, const std::vector<double>& widths, const std::vector<double>& bytes_a,
                   const std::vector<double>& bytes_b, bool overlap) {
    const std::size_t S = std::min(widths.size(), std::min(bytes_a.size(), bytes_b.size()));
    std::vector<double> comm(S), comp(S);
    // A step's transfers of `part` of its panels' bytes (each moving panel pays its alpha).
    auto moving = [&](std::size_t k, double part) {
        const double ba = bytes_a[k] * part, bb = bytes_b[k] * part;
        const double a = ba > 0 ? in.alpha_a + ba * in.beta_a : 0.0;
        const double b = bb > 0 ? in.alpha_b + bb * in.beta_b : 0.0;
        double both = in.parallel ? std::max(a, b) : a + b;
        if (in.parallel && ba > 0 && bb > 0 && in.beta_ab > 0) both = std::max(both, in.alpha_ab + (ba + bb) * in.beta_ab);
        return both;
    };
    for (std::size_t k = 0; k < S; ++k) {
        comm[k] = moving(k, 1.0) * (overlap && k > 0 ? in.comm_beside : 1.0);
        // With overlap, product k runs beside step k+1's transfers, if any.
        const bool beside = overlap && k + 1 < S && bytes_a[k + 1] + bytes_b[k + 1] > 0;
        const double slow = beside && in.gamma_step > 0 ? in.gamma_beside / in.gamma_step : 1.0;
        comp[k] = 2.0 * in.rows * in.cols * widths[k] * (k == 0 ? in.gamma_first : in.gamma_step) * slow;
    }
    if (in.split_parts > 1 && overlap && S > 0 && bytes_a[0] + bytes_b[0] > 0) {
        // The first step in split_parts equal pieces of its bytes, one after
        // the other; after piece j, the product over the rows (where A moves)
        // and columns (where B moves) that j+1 pieces have brought, less
        // what was multiplied before. Step 1's transfers follow the last
        // piece into buffer 1 (free); step 2's wait for all of step 0.
        const int parts = in.split_parts;
        const double piece = moving(0, 1.0 / parts), q = comp[0];
        double ready = 0, done = 0, area_before = 0;
        for (int j = 0; j < parts; ++j) {
            const double f = (j + 1.0) / parts, area = (bytes_a[0] > 0 ? f : 1.0) * (bytes_b[0] > 0 ? f : 1.0);
            ready += piece;
            done = std::max(ready, done) + q * (area - area_before);
            area_before = area;
        }
        return pipeline_from(comm, comp, overlap, 1, ready, 0.0, done);
    }
    return pipeline_time(comm, comp, overlap);
}

Link fit_link(const std::vector<Sample>& samples, const std::string& source) {
    Link l;
    l.source = source;
    if (samples.empty()) return l;
    auto smallest = std::min_element(samples.begin(), samples.end(),
                                     [](const Sample& a, const Sample& b) { return a.bytes < b.bytes; });
    auto largest = std::max_element(samples.begin(), samples.end(),
                                    [](const Sample& a, const Sample& b) { return a.bytes < b.bytes; });
    l.alpha = smallest->seconds;
    if (largest->bytes > smallest->bytes)
        l.beta = std::max(0.0, (largest->seconds - l.alpha) / (largest->bytes - smallest->bytes));
    if (samples.size() >= 2) l.curve = samples;
    return l;
}

std::int64_t default_gpu_panel(Shape s, lab12::Grid g, const Machine& m) {
    constexpr std::int64_t kMinWidth = 256, kMostSteps = 128;
    std::int64_t best = s.K;
    double best_time = predict(Algorithm::Summa, s, g, m, true, s.K).time_s;
    const std::int64_t most = std::min<std::int64_t>(kMostSteps, (s.K + kMinWidth - 1) / kMinWidth);
    for (std::int64_t steps = 2; steps <= most; ++steps) {
        const std::int64_t w = ((s.K + steps - 1) / steps + kMinWidth - 1) / kMinWidth * kMinWidth;
        if (w >= s.K) continue;  // one panel: weighed above
        const double t = predict(Algorithm::Summa, s, g, m, true, w).time_s;
        if (t < best_time) {  // strictly: of equal predictions the wider (found first) stays
            best_time = t;
            best = w;
        }
    }
    // Panels are cut inside the blocks of K evenly (summa_panels): say the
    // widest one they come to, which gives the same panels.
    std::int64_t widest = 0;
    for (const lab12::Panel& p : lab12::summa_panels(s, g, best)) widest = std::max(widest, p.width());
    return widest > 0 ? widest : best;
}

void assume_gpu_links(Machine& m) {
    m.per_node = 8;
    m.intra.beta = 1.0 / 275e9;
    m.intra.alpha = 5e-6;
    m.intra.curve.clear();
    m.intra.source = "not measured here: beta = 1/(275 GB/s), NCCL's bus bandwidth between two H200s over NVLink "
                     "measured 2026-11-24 (issue 17; the NVLink 4 spec sheet says 450 GB/s each way); alpha = 5 us assumed";
    m.inter.beta = 1.0 / 50e9;
    m.inter.alpha = 5e-6;
    m.inter.curve.clear();
    m.inter.source = "spec sheet: one NVIDIA ConnectX-7 NDR InfiniBand port per GPU (as in a DGX H100), 400 Gb/s = "
                     "50 GB/s each way; alpha = 5 us assumed (latency is not on the spec sheet)";
}

}  // namespace mml::model
