// The model's inputs measured in the run's own launch (model_inputs.h).
#include "harness/stages/lab12/model_inputs.h"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/stats.h"
#include "gpu/cuda_check.h"
#include "harness/stages/lab12/gpu_setup.h"
#include "harness/stages/lab12/mpi_blocks.h"
#include "models/abg_model.h"

namespace mml::lab12 {

namespace {

bool bcast_a(const GpuSumma& g) { return g.L.grid.cols > 1 || g.always_broadcast; }
bool bcast_b(const GpuSumma& g) { return g.L.grid.rows > 1 || g.always_broadcast; }

// Step s through NCCL, as the reference (the instructors' solutions/lab12/summa_nccl.cu)
// moves it (the panels `moves` picks; collective: every rank picks the same).
StepOperands nccl_step(const GpuSumma& g, std::size_t s, cudaStream_t stream, int moves) {
    const Layout& L = g.L;
    const Panel& p = g.panels[s];
    const std::int64_t m = L.rows(), n = L.cols(), ka = L.a_depth(), w = p.width();
    const std::size_t es = g.elem_bytes;
    const int buf = static_cast<int>(s % 2);
    const char* A = static_cast<const char*>(g.A_loc);
    const char* B = static_cast<const char*>(g.B_loc);
    StepOperands op;
    if (!bcast_a(g)) {
        op.a = A + (p.k0 - L.ka0) * es;
        op.lda = ka;
    } else if (moves & kMoveA) {
        if (L.col == p.a_owner && m > 0)
            CUDA_CHECK(cudaMemcpy2DAsync(g.a_panel[buf], w * es, A + (p.k0 - L.ka0) * es, ka * es, w * es, m,
                                         cudaMemcpyDeviceToDevice, stream));
        nccl_check(ncclBroadcast(g.a_panel[buf], g.a_panel[buf], m * w, g.nccl_type, p.a_owner, g.row_comm, stream),
                   "ncclBroadcast (A panel)");
        op.a = g.a_panel[buf];
        op.lda = w;
    } else {
        op.a = g.a_panel[buf];
        op.lda = w;
    }
    const bool own_b = L.row == p.b_owner;
    op.b = own_b ? B + (p.k0 - L.kb0) * n * es : nullptr;
    op.ldb = n;
    if (bcast_b(g) && (moves & kMoveB)) {
        nccl_check(ncclBroadcast(own_b ? op.b : g.b_panel[buf], g.b_panel[buf], w * n, g.nccl_type, p.b_owner, g.col_comm,
                                 stream),
                   "ncclBroadcast (B panel)");
        op.b = g.b_panel[buf];
    } else if (bcast_b(g)) {
        op.b = g.b_panel[buf];
    }
    return op;
}

// Seconds of what enqueue() puts on `s`, median of `reps` (CUDA events;
// this rank's own: the callers take the slowest rank's where it matters).
// Each repetition starts from a barrier, so that NCCL's calls start together.
template <class F>
double timed(cudaStream_t s, F enqueue, int reps = 3) {
    Event start(true), end(true);
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        CUDA_CHECK(cudaDeviceSynchronize());
        mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        CUDA_CHECK(cudaEventRecord(start.e, s));
        enqueue();
        CUDA_CHECK(cudaEventRecord(end.e, s));
        CUDA_CHECK(cudaDeviceSynchronize());
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start.e, end.e));
        t.push_back(ms * 1e-3);
    }
    return median(t);
}

// One panel's link (A or B): its move alone timed at the width of step
// `s` and at a 1-wide panel at the same place (the same owners).
struct LinkTimes {
    double alpha = 0, beta = 0;
};
LinkTimes measure_link(const GpuSumma& g, const PeerBlocks* peers, int moves, std::size_t s) {
    const Panel p = g.panels[s];
    GpuSumma t = g;
    t.panels = {p, Panel{p.k0, p.k0 + 1, p.a_owner, p.b_owner}};
    t.timer = nullptr;
    const double bytes_w = transfer_bytes(t, peers, 0, moves), bytes_1 = transfer_bytes(t, peers, 1, moves);
    const double t_w = timed(g.comm, [&] { transfer_step(t, peers, 0, g.comm, moves); });
    const double t_1 = timed(g.comm, [&] { transfer_step(t, peers, 1, g.comm, moves); });
    LinkTimes l;
    if (bytes_w <= 0) return l;  // this rank never moves that panel
    l.beta = bytes_w > bytes_1 ? std::max(0.0, (t_w - t_1) / (bytes_w - bytes_1)) : 0.0;
    l.alpha = std::max(0.0, t_1 - bytes_1 * l.beta);
    return l;
}

// The widest step whose `moves` panels this rank receives (copies: its own
// choice; NCCL: every rank the same, the widest after the first).
std::size_t step_to_time(const GpuSumma& g, const PeerBlocks* peers, int moves) {
    std::size_t best = g.panels.size() > 1 ? 1 : 0;
    bool found = false;
    for (std::size_t s = 0; s < g.panels.size(); ++s) {
        if (peers && transfer_bytes(g, peers, s, moves) <= 0) continue;
        if (!peers && s == 0 && g.panels.size() > 1) continue;
        if (!found || g.panels[s].width() > g.panels[best].width()) best = s;
        found = true;
    }
    return best;
}

// Both panels of a step moving together (copies only): the widest step whose
// A and B panels both come to this rank, timed as measure_link times one
// (kMoveBoth) - on a 2-D grid they come from two owners over the receiving
// GPU's links at once, which the two times alone do not show. Zero where no
// step moves both here; every rank times (timed() is collective).
LinkTimes measure_both(const GpuSumma& g, const PeerBlocks* peers) {
    if (!peers) return {};
    std::size_t best = 0;
    bool found = false;
    for (std::size_t s = 0; s < g.panels.size(); ++s)
        if (copy_step_bytes(g, s, kMoveA) > 0 && copy_step_bytes(g, s, kMoveB) > 0 &&
            (!found || g.panels[s].width() > g.panels[best].width())) {
            best = s;
            found = true;
        }
    const LinkTimes l = measure_link(g, peers, kMoveBoth, best);
    return found ? l : LinkTimes{};
}

}  // namespace

StepOperands transfer_step(const GpuSumma& g, const PeerBlocks* peers, std::size_t s, cudaStream_t stream, int moves) {
    return peers ? copy_step(g, *peers, s, stream, moves) : nccl_step(g, s, stream, moves);
}

double transfer_bytes(const GpuSumma& g, const PeerBlocks* peers, std::size_t s, int moves) {
    if (peers) return copy_step_bytes(g, s, moves);
    const double w = static_cast<double>(g.panels[s].width()), es = static_cast<double>(g.elem_bytes);
    return ((moves & kMoveA) && bcast_a(g) ? g.L.rows() * w * es : 0.0) +
           ((moves & kMoveB) && bcast_b(g) ? w * g.L.cols() * es : 0.0);
}

void measure_model_inputs(const GpuSumma& g, const PeerBlocks* peers, ResultLine& out) {
    const std::size_t S = g.panels.size();
    const cudaStream_t compute = g.gemm->stream();
    const std::int64_t m = g.L.rows(), n = g.L.cols();
    const LinkTimes la = measure_link(g, peers, kMoveA, step_to_time(g, peers, kMoveA));
    const LinkTimes lb = measure_link(g, peers, kMoveB, step_to_time(g, peers, kMoveB));
    const LinkTimes lab = measure_both(g, peers);
    // The products: on the widest step after the first, its operands in
    // buffer 0 (the first product, which only writes C, at the same width:
    // its operands are those of the widest step, and a wider first panel
    // would not fit their stride - cuBLAS refuses lda < k).
    // Beside them, as the pipeline releases them: a step's transfers (into
    // buffer 0), then the product waiting for them on its stream while the
    // next step's transfers (the step this rank moves most in, into buffer 1)
    // follow them on theirs - both free to start at the same moment, as in
    // the run - each timed on its own stream: the product's rate beside
    // traffic and the traffic's beside a product (NCCL's kernels compete with
    // it for SMs; launched after it instead, they waited for all of it).
    const std::size_t wide = step_to_time(g, nullptr, kMoveBoth), busy = step_to_time(g, peers, kMoveBoth);
    GpuSumma t = g;
    t.panels = {g.panels[wide], g.panels[busy]};
    t.timer = nullptr;
    const std::int64_t w = g.panels[wide].width();
    const StepOperands op = transfer_step(t, peers, 0, g.comm, kMoveBoth);
    CUDA_CHECK(cudaDeviceSynchronize());
    const double t_first = timed(compute, [&] { g.gemm->run(op.a, op.lda, op.b, op.ldb, g.C_loc, n, m, n, w, false); });
    const double t_step = timed(compute, [&] { g.gemm->run(op.a, op.lda, op.b, op.ldb, g.C_loc, n, m, n, w, true); });
    const double t_move = timed(g.comm, [&] { transfer_step(t, peers, 1, g.comm, kMoveBoth); });
    double t_beside = t_step, t_move_beside = t_move;
    if (all_reduce(transfer_bytes(t, peers, 1, kMoveBoth), MPI_MAX) > 0) {
        Event g0(true), g1(true), c0(true), c1(true), gate;
        std::vector<double> tg, tc;
        for (int r = 0; r < 3; ++r) {
            CUDA_CHECK(cudaDeviceSynchronize());
            mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
            transfer_step(t, peers, 0, g.comm, kMoveBoth);
            CUDA_CHECK(cudaEventRecord(gate.e, g.comm));
            CUDA_CHECK(cudaStreamWaitEvent(compute, gate.e, 0));
            CUDA_CHECK(cudaEventRecord(g0.e, compute));
            g.gemm->run(op.a, op.lda, op.b, op.ldb, g.C_loc, n, m, n, w, true);
            CUDA_CHECK(cudaEventRecord(g1.e, compute));
            CUDA_CHECK(cudaEventRecord(c0.e, g.comm));
            transfer_step(t, peers, 1, g.comm, kMoveBoth);
            CUDA_CHECK(cudaEventRecord(c1.e, g.comm));
            CUDA_CHECK(cudaDeviceSynchronize());
            float ms = 0;
            CUDA_CHECK(cudaEventElapsedTime(&ms, g0.e, g1.e));
            tg.push_back(ms * 1e-3);
            CUDA_CHECK(cudaEventElapsedTime(&ms, c0.e, c1.e));
            tc.push_back(ms * 1e-3);
        }
        t_beside = median(tg);
        t_move_beside = median(tc);
    }
    model::RunInputs in;
    in.alpha_a = la.alpha;
    in.beta_a = la.beta;
    in.alpha_b = lb.alpha;
    in.beta_b = lb.beta;
    in.parallel = peers != nullptr;  // copy_step: B on the side stream beside A
    in.alpha_ab = lab.alpha;
    in.beta_ab = lab.beta;
    in.split_parts = peers && splits_first_step(g) ? kFirstStepParts : 0;
    in.comm_beside = t_move > 0 ? t_move_beside / t_move : 1.0;
    const double flops_w = 2.0 * m * n * w;
    in.gamma_first = flops_w > 0 ? t_first / flops_w : 0.0;
    in.gamma_step = flops_w > 0 ? t_step / flops_w : 0.0;
    in.gamma_beside = flops_w > 0 ? t_beside / flops_w : 0.0;
    in.rows = static_cast<double>(m);
    in.cols = static_cast<double>(n);
    std::vector<double> widths, bytes_a, bytes_b;
    for (std::size_t s = 0; s < S; ++s) {
        widths.push_back(static_cast<double>(g.panels[s].width()));
        bytes_a.push_back(transfer_bytes(g, peers, s, kMoveA));
        bytes_b.push_back(transfer_bytes(g, peers, s, kMoveB));
    }
    const double predicted = model::predict_run(in, widths, bytes_a, bytes_b, g.overlap);
    out.add("model_seconds", all_reduce(predicted, MPI_MAX));
    out.add("split_first", all_reduce(static_cast<double>(in.split_parts), MPI_MAX));  // pieces, on any rank
    out.add("model_alpha_a", all_reduce(in.alpha_a, MPI_MAX)).add("model_beta_a", all_reduce(in.beta_a, MPI_MAX));
    out.add("model_alpha_b", all_reduce(in.alpha_b, MPI_MAX)).add("model_beta_b", all_reduce(in.beta_b, MPI_MAX));
    out.add("model_alpha_ab", all_reduce(in.alpha_ab, MPI_MAX)).add("model_beta_ab", all_reduce(in.beta_ab, MPI_MAX));
    out.add("model_gamma_first", all_reduce(in.gamma_first, MPI_MAX));
    out.add("model_gamma_step", all_reduce(in.gamma_step, MPI_MAX));
    out.add("model_gamma_beside", all_reduce(in.gamma_beside, MPI_MAX));
    out.add("model_comm_beside", all_reduce(in.comm_beside, MPI_MAX));
}

std::int64_t choose_copy_panel(GpuSumma& g, const PeerBlocks& peers, Shape shape, bool owned) {
    constexpr std::int64_t kMinWidth = 256, kMostSteps = 16;
    const cudaStream_t compute = g.gemm->stream();
    const std::int64_t m = g.L.rows(), n = g.L.cols(), depth = std::min(g.L.a_depth(), g.L.b_depth());
    // Candidates: K in S = 1 .. kMostSteps steps (as default_gpu_panel), each
    // named by the widest panel summa_panels cuts, once.
    std::vector<std::int64_t> cands;
    for (std::int64_t steps = 1; steps <= kMostSteps; ++steps) {
        const std::int64_t w = ((shape.K + steps - 1) / steps + kMinWidth - 1) / kMinWidth * kMinWidth;
        std::int64_t widest = 0;
        for (const Panel& p : summa_panels(shape, g.L.grid, w)) widest = std::max(widest, p.width());
        if (widest > 0 && std::find(cands.begin(), cands.end(), widest) == cands.end()) cands.push_back(widest);
    }
    // The copy engines' alpha and beta on the widest candidate's panels.
    GpuSumma t = g;
    t.panels = summa_panels(shape, g.L.grid, cands.front());
    t.timer = nullptr;
    const LinkTimes la = measure_link(t, &peers, kMoveA, step_to_time(t, &peers, kMoveA));
    const LinkTimes lb = measure_link(t, &peers, kMoveB, step_to_time(t, &peers, kMoveB));
    const LinkTimes lab = measure_both(t, &peers);
    std::int64_t best = cands.front();
    double best_time = 0;
    for (std::int64_t c : cands) {
        // The product's rate at this width (C read and written) on this rank's
        // own blocks; every rank times every candidate (timed() is collective).
        const std::int64_t w = std::min(c, depth);
        const double t_w = timed(compute, [&] {
            if (m > 0 && n > 0 && w > 0)
                g.gemm->run(g.A_loc, g.L.a_depth(), g.B_loc, peers.b_ld(g.L.rank), g.C_loc, n, m, n, w, true);
        });
        const double gamma = m > 0 && n > 0 && w > 0 ? t_w / (2.0 * m * n * w) : 0.0;
        model::RunInputs in;
        in.alpha_a = la.alpha;
        in.beta_a = la.beta;
        in.alpha_b = lb.alpha;
        in.beta_b = lb.beta;
        in.parallel = true;
        in.alpha_ab = lab.alpha;
        in.beta_ab = lab.beta;
        in.gamma_first = in.gamma_step = in.gamma_beside = gamma;
        in.rows = static_cast<double>(m);
        in.cols = static_cast<double>(n);
        t.panels = summa_panels(shape, g.L.grid, c);
        if (owned) t.panels = owned_first(t, t.panels);
        in.split_parts = splits_first_step(t) ? kFirstStepParts : 0;
        std::vector<double> widths, bytes_a, bytes_b;
        for (std::size_t k = 0; k < t.panels.size(); ++k) {
            widths.push_back(static_cast<double>(t.panels[k].width()));
            bytes_a.push_back(transfer_bytes(t, &peers, k, kMoveA));
            bytes_b.push_back(transfer_bytes(t, &peers, k, kMoveB));
        }
        // The slowest rank's prediction, so that every rank picks the same.
        const double predicted = all_reduce(model::predict_run(in, widths, bytes_a, bytes_b, g.overlap), MPI_MAX);
        if (c == cands.front() || predicted < best_time) {  // strictly: of equal ones the wider stays
            best_time = predicted;
            best = c;
        }
    }
    return best;
}

}  // namespace mml::lab12
