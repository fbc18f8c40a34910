// The alpha-beta-gamma model of lab 12's distributed products (harness-only
// model code: mmlab abg-model, mmlab lab 12).
//
//   a message of n bytes over a link costs   alpha + n * beta  (beta per size
//                                            where the link was measured at several)
//   a flop of the local product costs        gamma
//
// alpha (latency) and beta (inverse bandwidth) come from a micro-benchmark of
// broadcasts on the machine at hand (mmlab comm-bench: MPI, NCCL), or - for a
// link that cannot be measured here, such as the network between nodes - from
// figures named with their source (a spec sheet). gamma comes from the lab's
// own single-core (lab 5's kernel) or single-GPU (cuBLAS) rate. Nothing is
// fitted to the product times the model predicts.
//
// Collectives, as NCCL and MPI run them on large messages (a pipelined ring:
// the message is cut into chunks that follow each other around the ring, so
// every byte crosses each link once):
//   broadcast of n bytes to q processes   (q-1) alpha + n beta
//   allgather of n bytes in all           (q-1) (alpha + n/q beta)     (q-1 steps of n/q)
//   allreduce of n bytes                  2(q-1) (alpha + n/q beta)
// (with a measured curve, n beta is message_time(n) - alpha).
//
// SUMMA on a pr x pc grid, K in steps of width w (labs/common/lab12_grid.h):
// step s broadcasts an M/pr x w panel of A among the pc processes of a row
// and a w x N/pc panel of B among the pr of a column (comm_s), then
// multiplies them (comp_s = 2 (M/pr)(N/pc) w gamma). Without overlap the
// steps add up, comm_s + comp_s each; with two panel buffers the broadcasts
// of step s+1 run while step s computes (but not into the buffer step s-1 is
// still reading), and the time is that of the two-stage pipeline:
//   comm_ready(s+1) = max(comm_ready(s), done(s-1)) + comm_{s+1}
//   done(s)         = max(comm_ready(s), done(s-1)) + comp_s
// Every step after the first also reads C and writes it back (the product
// adds into C: beta = 1): 2 (M/pr)(N/pc) 4 bytes through the processor's own
// memory, at Machine::memory_beta (0: not modelled). That is what cutting K
// into panels costs where nothing is broadcast (one GPU: 8 panels of 8192^3
// took 7 % longer than one cuBLAS call: handouts/lab12.md, "How wide a panel?").
// 1-D ("rows", CPU): all of B allgathered, then 2 (M/P) N K gamma.
// 1-D on the GPU is SUMMA on the grid P x 1 (B panels broadcast down the one column).
//
// Processes are numbered as the grid is (row-major) and `per_node`
// consecutive ones share a node: a communicator whose members span two
// nodes runs at the network's alpha and beta (the slowest link of a ring
// sets its pace).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu/matrix.h"
#include "cpu/process_grid.h"

namespace mml::model {

struct Sample {
    double bytes = 0, seconds = 0;
};

struct Link {
    double alpha = 0;    // seconds per message
    double beta = 0;     // seconds per byte (1 / bandwidth)
    std::string source;  // "measured (...)", "spec sheet: ...", "assumed: ..."
    // Where the link was measured at several sizes (fit_link): one message's
    // time between two processes at each size. A message of n bytes then
    // costs what the measurement says at n (straight lines between the sizes
    // measured, the last slope beyond them): beta depends on the size when a
    // small message stays in the caches and a large one goes through memory
    // (handouts/lab12.md, the CPU runs: on a 2-core machine about ten times
    // slower a byte at 16 MiB than at 1 MiB). Empty: alpha + n beta.
    std::vector<Sample> curve;
    double message_time(double bytes) const;
};

struct Machine {
    std::string name;
    double gamma = 0;           // seconds per flop of one processor's local product
    std::string gamma_source;
    Link intra;                 // between processors of one node
    Link inter;                 // between nodes, per processor (its own NIC)
    int per_node = 8;
    double word_bytes = 4;      // bytes moved per matrix element (4 float32, 2 bf16)
    // Seconds per byte of one processor's own memory: each SUMMA step after
    // the first reads and writes its C block (float32) once more. 0: not
    // modelled (the CPU model: lab 5's kernel keeps C blocks in its caches
    // and K steps are few).
    double memory_beta = 0;
    std::string memory_source;
    // P processes on `cores` cores (CPU oversubscription): each computes at
    // min(1, cores/P) of its rate. 0: one core or GPU per process (the plain model).
    int cores = 0;
};

enum class Algorithm { Rows, Summa };  // Rows: allgather B, then compute (the CPU's 1-D)

struct Prediction {
    int P = 1;
    lab12::Grid grid;
    int nodes = 1;
    long long steps = 1;
    bool crosses_nodes = false;  // some communicator spans two nodes
    double compute_s = 0;        // sum of one process's compute
    double comm_s = 0;           // sum of one process's communication
    double time_s = 0;
    double efficiency = 0;       // T1 / (P * T_P), T1 = 2 M N K gamma
    double tflops = 0;
};

double broadcast_time(int q, double bytes, const Link& l);
double allgather_time(int q, double bytes, const Link& l);
double allreduce_time(int q, double bytes, const Link& l);

// The model's prediction for P processes on `grid` (Rows: grid must be P x 1).
// overlap: SUMMA with double-buffered panels; ignored by Rows (blocking).
// max_panel: as summa_panels (0: as wide as the blocks allow).
Prediction predict(Algorithm a, Shape s, lab12::Grid grid, const Machine& m, bool overlap, std::int64_t max_panel);

// The two streams' pipeline (above) over per-step costs: comm[k] the
// seconds of step k's transfers, comp[k] of its product; the time the last
// product ends. overlap false: step k+1's transfers wait for product k.
double pipeline_time(const std::vector<double>& comm, const std::vector<double>& comp, bool overlap);

// One SUMMA run's inputs, all measured in the run's own launch (mmlab-nccl
// gemm, before its timed repetitions; model_inputs.h), none taken from
// SUMMA's own times:
//   moving n bytes of a step's A panel costs  alpha_a + n beta_a, of its B
//   panel  alpha_b + n beta_b  (the run's transport - NCCL broadcasts or
//   copy-engine copies - at this P, each panel timed alone at a 1-wide and at
//   the widest width); the two run one after the other (NCCL: one stream) or
//   side by side (the copy engines: `parallel`, the step costs the longer -
//   or, where both move, alpha_ab + (its A and B bytes) beta_ab if that is
//   longer: the two copies, timed together, share the receiving GPU's links);
//   a step's product of width w costs  2 m n w gamma, gamma timed on the
//   panel shape run: the first product (C written only), a later one alone
//   (C read and written), and a later one with a step's transfers started
//   beside it on the other stream, as the pipeline starts them (where that
//   is the design: overlap on, something to move);
//   a step's transfers beside a product take comm_beside times their time
//   alone (measured in the same pair: NCCL's kernels wait for SMs the
//   product holds; copy engines share the memory with it).
// With overlap, product k runs beside step k+1's transfers and step k's
// transfers (k >= 1) beside product k-1. split_parts (the copy transport's
// first step, splits_first_step in labs/common/lab12_copy.h; 0 or 1: not
// split): the first step's transfers go in that many equal pieces, and after
// piece j the part of its product those pieces complete (rows and columns
// (j+1)/parts of the way where both panels move, a strip where one does);
// step 1's transfers then follow the last piece into the other buffer.
struct RunInputs {
    double alpha_a = 0, beta_a = 0, alpha_b = 0, beta_b = 0;
    bool parallel = false;
    double alpha_ab = 0, beta_ab = 0;  // parallel: A and B moving together (0: not measured)
    int split_parts = 0;
    double comm_beside = 1;
    double gamma_first = 0, gamma_step = 0, gamma_beside = 0;
    double rows = 0, cols = 0;  // this rank's block of C
};
// widths[k]: step k's panel width; bytes_a[k], bytes_b[k]: the bytes of its A
// and B panels this rank's transfers move (0: that panel does not move, no alpha either).
double predict_run(const RunInputs& in, const std::vector<double>& widths, const std::vector<double>& bytes_a,
                   const std::vector<double>& bytes_b, bool overlap);

// alpha and beta of a link from a broadcast micro-benchmark between 2
// processes (q = 2: one hop): alpha = the time of the smallest message,
// beta = (time of the largest - alpha) / its bytes; the samples are kept as
// the link's curve (message_time).
Link fit_link(const std::vector<Sample>& bcast_two_processes, const std::string& source);

// The panel width SUMMA uses on the GPU by default: the one the model
// predicts fastest for this shape, grid and machine, with overlap. What it
// weighs: with double buffering only the first step's broadcasts are not
// hidden (X/S for S steps carrying X seconds of broadcasts in all), while
// every step after the first costs one more pass over C (c); about
// X/S + (S-1) c, least at S = sqrt(X / c); where the broadcasts outrun the
// products, the last product is what is not hidden instead (the pipeline
// recurrence above has both). So a grid with nothing to broadcast (one
// GPU) gets one panel, K wide, and more or slower links get more steps.
// Candidates: S = 1 .. 128 steps of K/S rounded up to a multiple of 256
// (narrower panels run cuBLAS below its rate, which the model does not
// see), never narrower than 256; of equal predictions the wider wins.
std::int64_t default_gpu_panel(Shape s, lab12::Grid g, const Machine& m);

// The links of a GPU machine where none was measured, named: inside a node
// of 8 GPUs NVLink (beta from NCCL's bus bandwidth between two H200s,
// 275 GB/s, handouts/lab12.md; alpha 5 us assumed), between nodes one
// ConnectX-7 NDR InfiniBand port per GPU (50 GB/s, spec sheet; alpha 5 us
// assumed). Sets m.intra, m.inter and m.per_node = 8.
void assume_gpu_links(Machine& m);

}  // namespace mml::model
