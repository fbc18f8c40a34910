// The alpha-beta-gamma model's inputs for one SUMMA run of mmlab-nccl gemm,
// measured in the same launch just before the timed repetitions, on the
// run's own blocks, panels, streams and transport (models/abg_model.h,
// RunInputs): the transport's time for a step's A panel and B panel, each
// alone, at a 1-wide and at the widest panel (alpha, beta of each; the copy
// engines' also both together, where a step moves both here), the tile
// product's time at the panel shapes run alone and beside a step's transfers (gamma),
// both released at once by the step before's transfers, as in the pipeline. Each rank predicts its run
// (model::predict_run); the slowest prediction is the model's time. Nothing
// here reads SUMMA's own times. Only *_nccl.cu files include it.
#pragma once

#include "harness/stages/lab12/protocol.h"
#include "labs/common/lab12_copy.h"

namespace mml::lab12 {

// Step s's transfers alone on `stream` into g.a_panel/b_panel[s % 2]: the copy
// engines' (peers given) or NCCL broadcasts as the lab's reference runs them
// (peers null; collective: every rank calls it in the same order).
StepOperands transfer_step(const GpuSumma& g, const PeerBlocks* peers, std::size_t s, cudaStream_t stream,
                           int moves = kMoveBoth);
// The bytes of the panels `moves` picks that step s's transfers move into this
// rank (NCCL: what its broadcasts carry, on every rank of the communicator).
double transfer_bytes(const GpuSumma& g, const PeerBlocks* peers, std::size_t s, int moves = kMoveBoth);

// Measures the inputs (collective; uses and overwrites g's buffers and C)
// and adds them to `out`: model_alpha_a, model_beta_a, model_alpha_b,
// model_beta_b, model_alpha_ab, model_beta_ab (s, s/byte), model_gamma_first, model_gamma_step,
// model_gamma_beside (s/flop), model_comm_beside (a step's transfers beside
// a product over alone), each the slowest rank's, and model_seconds
// (the slowest rank's prediction).
void measure_model_inputs(const GpuSumma& g, const PeerBlocks* peers, ResultLine& out);

// The panel width of a copy-transport run without --panel, from quantities
// measured here, not NCCL's assumed links (model::default_gpu_panel): the copy
// engines' alpha and beta for the A and B panels, alone and together (as the model's inputs), and
// the product's rate on this rank's blocks at each candidate width (K cut in
// 1 .. 16 steps; a panel narrower than the block runs cuBLAS below the whole
// product's rate); model::predict_run over each candidate's panels, the
// slowest rank's prediction, the fastest candidate (of equal ones the wider).
// Each candidate's steps in the order the run takes them (owned_first where
// `owned`). Collective; g's panel buffers must hold the widest candidate (one
// panel per block); uses and overwrites them and C. Returns the widest panel to cut.
std::int64_t choose_copy_panel(GpuSumma& g, const PeerBlocks& peers, Shape shape, bool owned);

}  // namespace mml::lab12
