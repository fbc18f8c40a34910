// main() of build/bin/mmlab-nccl: lab 12's GPU algorithms as an MPI program,
// one process per GPU, started by mpirun (`mmlab nccl-gemm`, the gpu-lab12
// tests, tools/lab12-gpu.sh). The same code runs on 1 GPU and on N.
//
//   mmlab-nccl gemm   rank 0 makes A and B, every rank gets its blocks (MPI)
//                     and moves them to its GPU; NCCL communicators: all
//                     ranks' from an id that rank 0 broadcasts over MPI, then
//                     one per process row and column split from it. Then the
//                     algorithm, timed (MPI_Wtime from a barrier until both
//                     streams of the slowest rank are idle; CUDA events for
//                     each stream's busy time), C gathered on rank 0, checked.
//     --algo summa | rows   the GPU SUMMA (rows = the grid P x 1)
//     --algo cublas         one cuBLAS call on one GPU (the peer: -np 1)
//     --algo cublasxt       cublasXtSgemm on every GPU present, A, B, C in host memory (-np 1)
//     --transport nccl|copy the panels by NCCL broadcasts (the lab's) or by
//                           the copy engines (labs/common/lab12_copy.h, the
//                           reference's loop); either way the
//                           model's inputs are measured first (model_inputs.h)
//   mmlab-nccl bench  ncclBroadcast / ncclAllReduce times per message size.
//   mmlab-nccl info   the GPUs, NCCL's version.
// Answers: RESULT lines on rank 0's stdout (protocol.h); exit 0 all checks
// passed, 1 one failed, 2 bad input or no GPU (one line from rank 0). What it
// does as mmlab-mpi does (main, the shared options, inputs, the check, the
// RESULT line) is program_common.h's; this file is the GPU engine: its
// options, the timed run, the NCCL bench (the GPU and NCCL set-up: gpu_setup.h;
// the cublasXt peer: peer_cublasxt.h).
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cpu/error_bound.h"
#include "cpu/matrix.h"
#include "cpu/stats.h"
#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "gpu/device_info.h"
#include "harness/stages/lab12/peer_cublasxt.h"
#include "harness/stages/lab12/gpu_setup.h"
#include "harness/stages/lab12/gpu_versions.h"
#include "harness/stages/lab12/model_inputs.h"
#include "harness/stages/lab12/mpi_blocks.h"
#include "harness/stages/lab12/program_common.h"
#include "labs/common/lab12_gpu.h"
#include "labs/common/lab12_nccl.h"
#include "models/abg_model.h"
#include "models/tensor_peaks.h"

namespace mml::lab12 {
namespace {

const char* kUsage = R"(usage: mpirun -np P mmlab-nccl gemm [options]    one process per GPU
       mpirun -np P mmlab-nccl bench [--bytes LIST] [--ops bcast,allreduce] [--reps R]
       mpirun -np 1 mmlab-nccl info
gemm options:
  --algo summa|rows|cublas|cublasxt   (default summa; rows = SUMMA on the grid P x 1; the
                            peers cublas and cublasxt run on one process: -np 1)
  --impl student|reference  whose SUMMA (default reference)
  --size LIST               N or MxNxK, comma-separated (default 4096)
  --grid RxC                process grid (R*C = P; default: the one that moves the least data)
  --precision fp32|bf16     A and B in float32 or bfloat16 (C float32; default fp32)
  --tile cublas|lab8|lab11  the per-tile product (default cublas; lab8: lab 8's kernel, fp32;
                            lab11: lab 11's wgmma kernel, bf16, Hopper (sm_90) only)
  --overlap on|off          broadcasts of the next panels during this product (default on)
  --panel W                 K panels at most W wide (default: the width the model predicts fastest,
                            model::default_gpu_panel: one panel where nothing is broadcast;
                            --transport copy: the fastest predicted from the copy engines' and the
                            products' rates measured in the launch, choose_copy_panel)
  --always-broadcast        broadcast even along a row or column of one process (tests: runs
                            NCCL on one GPU)
  --transport nccl|copy     how the panels move (default nccl): NCCL broadcasts (SMs), or the copy
                            engines fetching them from their owners over CUDA IPC (one node; the
                            reference's SUMMA: --impl reference)
  --step-order owned|k      --transport copy: each rank starts where it fetches the least, from
                            the owners fewest ranks start on (default owned: first_fetch_step,
                            lab12_grid.h), or every rank in K order
  --reps R --warmup W       timed and untimed repetitions (default 5 and 2)
  --seed S, --no-check, --c-out DIR, --fault rank-layout   as in mmlab-mpi
)";

// ---------------------------------------------------------------- gemm

struct GpuArgs {
    GemmArgs g;
    Precision precision = Precision::Fp32;
    TileKernel tile = TileKernel::Cublas;
    bool overlap = true;
    bool always_broadcast = false;
    bool copy = false;  // --transport copy
    bool owned_first = true;  // --step-order owned (copy transport only)
    bool distributed() const { return g.algo == "summa" || g.algo == "rows"; }
};

GpuArgs parse_gemm(const std::vector<std::string>& args) {
    GpuArgs c;
    c.g.algo = "summa";
    c.g.shapes = {{4096, 4096, 4096}};
    c.g.reps = 5;
    c.g.warmup = 2;
    parse_gemm_args(args, {"summa", "rows", "cublas", "cublasxt"}, c.g, [&](const std::string& f, const auto& value) {
        if (f == "--precision") {
            const std::string v = value();
            require_one_of(f, v, {"fp32", "bf16"});
            c.precision = v == "bf16" ? Precision::Bf16 : Precision::Fp32;
        } else if (f == "--tile") {
            const std::string v = value();
            require_one_of(f, v, {"cublas", "lab8", "lab11"});
            c.tile = v == "lab8" ? TileKernel::Lab8 : v == "lab11" ? TileKernel::Lab11 : TileKernel::Cublas;
        } else if (f == "--overlap") {
            const std::string v = value();
            require_one_of(f, v, {"on", "off"});
            c.overlap = v == "on";
        } else if (f == "--always-broadcast") {
            c.always_broadcast = true;
        } else if (f == "--step-order") {
            const std::string v = value();
            require_one_of(f, v, {"owned", "k"});
            c.owned_first = v == "owned";
        } else if (f == "--transport") {
            const std::string v = value();
            require_one_of(f, v, {"nccl", "copy"});
            c.copy = v == "copy";
        } else {
            return false;
        }
        return true;
    });
    const GemmArgs& g = c.g;
    if (!c.distributed() && world().size != 1)
        throw Usage("--algo " + g.algo + " is a one-process peer: start it with mpirun -np 1 (got " +
                    std::to_string(world().size) + ")");
    if (g.algo == "cublasxt" && c.precision != Precision::Fp32)
        throw Usage("cublasXt has no bf16 product: --algo cublasxt is fp32 only");
    if (c.tile == TileKernel::Lab8 && c.precision != Precision::Fp32)
        throw Usage("--tile lab8 is lab 8's float32 kernel: use --tile cublas for bf16");
    if (c.tile == TileKernel::Lab8 && !lab8_kernel_available())
        throw Usage("--tile lab8: lab 8's kernel is not in this build (built without the reference solutions)");
    if (c.tile == TileKernel::Lab11 && c.precision != Precision::Bf16)
        throw Usage("--tile lab11 is lab 11's bf16 kernel (wgmma): add --precision bf16");
    if (c.tile == TileKernel::Lab11 && !lab11_kernel_available())
        throw Usage("--tile lab11: lab 11's kernel is not in this build (built without the reference solutions)");
    if (c.copy && !c.distributed())
        throw Usage("--transport copy moves SUMMA's panels: use it with --algo summa or rows");
    if (c.copy && !g.reference)
        throw Usage("--transport copy runs the reference's copy-engine SUMMA, not yours: use --impl reference with it, "
                    "or --transport nccl for your version");
    if (c.copy && !copy_version())
        throw Usage("--transport copy: the copy-engine SUMMA is a reference, not in this build (built without the "
                    "solutions): use --transport nccl");
    if (c.distributed() && !c.copy && !gpu_version(g.reference))
        throw Usage("the reference is not in this build (built without the solutions, as the grader builds submissions)");
    return c;
}

// Hands out the blocks and moves them to the GPU, runs SUMMA (or, for the
// cublas peer, one tile product of the whole shape), timed: MPI_Wtime from a
// barrier until both streams of the slowest rank are idle, each stream's
// busy time from CUDA events (StepTimer); gathers C on rank 0. `panel`:
// the widest panel to cut; a copy-transport run without --panel measures its
// own (choose_copy_panel) and says it there.
Measured run_gpu(const GpuArgs& c, ShapeRun& r, std::int64_t& panel) {
    const GemmArgs& g = c.g;
    const Shape s = r.shape;
    const int rank = world().rank;
    const bool distributed = c.distributed();
    const Layout& mine = r.mine;
    const bool measure_panel = distributed && c.copy && g.panel <= 0;
    // Buffers for the widest panel the run may cut: one per block where the
    // copy transport measures its own.
    std::vector<Panel> panels = summa_panels(s, r.grid, measure_panel ? s.K : panel);
    Matrix A_loc, B_loc;
    scatter_blocks(r.A, r.layouts, a_block, rank, A_loc);
    scatter_blocks(r.B, r.layouts, b_block, rank, B_loc);
    const std::int64_t c_count = c_block(r.layouts[rank]).count();
    gpu::DeviceBuffer<char> dA = to_device(A_loc.data(), a_block(r.layouts[rank]).count(), c.precision);
    gpu::DeviceBuffer<char> dB = to_device(B_loc.data(), b_block(r.layouts[rank]).count(), c.precision);
    gpu::DeviceBuffer<float> dC(std::max<std::int64_t>(1, c_count));
    Stream comm_stream, compute_stream;
    TileGemm gemm(c.tile, c.precision, compute_stream.s);
    // Lab 11's tile over the copy engines: B stored as the kernel reads it
    // (transposed, K-major), made here with the bf16 conversion, untimed
    // (lab12_copy.h); its panels then move and are read as such.
    const bool b_transposed = distributed && c.copy && c.tile == TileKernel::Lab11;
    gpu::DeviceBuffer<char> dBt;
    if (b_transposed) {
        const Layout& l = r.layouts[rank];
        dBt = gpu::DeviceBuffer<char>(std::max<std::int64_t>(1, l.cols() * kmajor_stride(l.b_depth())) * 2);
        transpose_bf16(dB.get(), l.cols(), l.b_depth(), l.cols(), dBt.get(), kmajor_stride(l.b_depth()), nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        gemm.set_b_transposed(true);
    }
    const std::size_t es = element_bytes(c.precision);
    std::int64_t widest = 0;
    for (const Panel& p : panels) widest = std::max(widest, p.width());
    gpu::DeviceBuffer<char> a_panel[2], b_panel[2];
    Event ready[2], done[2];
    GpuSumma ctx;
    if (distributed) {
        const GridComms comms = grid_comms(r.grid, mine.row, mine.col);
        for (int b = 0; b < 2; ++b) {
            a_panel[b] = gpu::DeviceBuffer<char>(nccl_bytes(mine.rows() * widest * es));
            b_panel[b] = gpu::DeviceBuffer<char>(nccl_bytes(widest * mine.cols() * es));
        }
        ctx.L = mine;
        ctx.panels = panels;
        ctx.row_comm = comms.row;
        ctx.col_comm = comms.col;
        ctx.comm = comm_stream.s;
        ctx.gemm = &gemm;
        ctx.precision = c.precision;
        ctx.nccl_type = c.precision == Precision::Bf16 ? ncclBfloat16 : ncclFloat32;
        ctx.elem_bytes = es;
        ctx.A_loc = dA.get();
        ctx.B_loc = b_transposed ? dBt.get() : dB.get();
        ctx.C_loc = dC.get();
        for (int b = 0; b < 2; ++b) {
            ctx.a_panel[b] = a_panel[b].get();
            ctx.b_panel[b] = b_panel[b].get();
            ctx.panel_ready[b] = ready[b].e;
            ctx.product_done[b] = done[b].e;
        }
        ctx.overlap = c.overlap;
        ctx.always_broadcast = c.always_broadcast;
    }
    const SummaGpuFn fn = distributed && !c.copy ? gpu_version(g.reference) : nullptr;
    // The copy transport reaches the owners' blocks (uploaded above: every
    // rank's are there once all have passed the first barrier below).
    mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier (blocks uploaded)");
    std::unique_ptr<PeerBlocks> peers;
    if (distributed && c.copy) peers = std::make_unique<PeerBlocks>(r.layouts, rank, dA.get(), ctx.B_loc, b_transposed);
    if (measure_panel) {
        panel = choose_copy_panel(ctx, *peers, s, c.owned_first);
        panels = summa_panels(s, r.grid, panel);
        ctx.panels = panels;
    }
    if (distributed && c.copy && c.owned_first) ctx.panels = panels = owned_first(ctx, panels);
    StepTimer timer(panels.size());
    if (distributed) ctx.timer = &timer;
    Measured m;
    if (distributed) measure_model_inputs(ctx, peers.get(), m.fields);
    std::vector<double> comm, gemm_s;
    for (int rep = 0; rep < g.warmup + g.reps; ++rep) {
        poison_device(dC.get(), c_count, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        const double t0 = MPI_Wtime();
        if (peers)
            copy_version()(ctx, *peers);
        else if (distributed)
            fn(ctx);
        else
            gemm.run(dA.get(), s.K, dB.get(), s.N, dC.get(), s.N, s.M, s.N, s.K, false);
        CUDA_CHECK(cudaStreamSynchronize(gemm.stream()));
        CUDA_CHECK(cudaStreamSynchronize(comm_stream.s));
        CUDA_CHECK(cudaDeviceSynchronize());  // anything the code under test put elsewhere
        const double t = all_reduce(MPI_Wtime() - t0, MPI_MAX);
        const double comm_t = distributed ? all_reduce(timer.comm_seconds(), MPI_MAX) : 0.0;
        const double gemm_t = distributed ? all_reduce(timer.gemm_seconds(), MPI_MAX) : t;
        if (rep < g.warmup) continue;
        m.seconds.push_back(t);
        comm.push_back(comm_t);
        gemm_s.push_back(gemm_t);
    }
    if (peers) peers->close();
    if (gathers_c(g)) {
        Matrix C_loc(1, std::max<std::int64_t>(1, c_count));
        if (c_count) CUDA_CHECK(cudaMemcpy(C_loc.data(), dC.get(), c_count * sizeof(float), cudaMemcpyDeviceToHost));
        gather_c(r.C, r.layouts, rank, C_loc.data());
    }
    if (distributed) m.steps = static_cast<long long>(panels.size());
    const double t = median(m.seconds);
    m.fields.add("comm_seconds", median(comm)).add("gemm_seconds", median(gemm_s));
    m.fields.add("comm_fraction", t > 0 ? median(comm) / t : 0.0);
    m.fields.add("exposed_seconds", std::max(0.0, t - median(gemm_s)));
    m.fields.add("tile_product", gemm.describe());
    return m;
}

// Lab 11's wgmma kernel runs only on Hopper: say so before anything runs.
void require_tile_gpu(TileKernel t, const gpu::DeviceInfo& d) {
    if (t == TileKernel::Lab11 && d.cc_major != 9)
        throw Usage("--tile lab11: lab 11's wgmma kernel runs only on Hopper (sm_90), this GPU (" + d.name + ") is sm_" +
                    std::to_string(d.cc_major) + std::to_string(d.cc_minor) + ": use --tile cublas");
}

// What the default panel width is weighed with (model::default_gpu_panel):
// nothing measured now, so this GPU's spec figures, read off the device -
// gamma from its FP32 (or bf16 tensor-core) peak, the pass over C at its
// memory's peak bandwidth - and the named links of a GPU machine
// (model::assume_gpu_links). Only the ratios matter for the choice: broadcast
// time against the time of a pass over C, and against a step's product.
model::Machine panel_machine(Precision p, const gpu::DeviceInfo& d) {
    model::Machine m;
    model::assume_gpu_links(m);
    m.word_bytes = static_cast<double>(element_bytes(p));
    double gflops = d.fp32_peak_gflops;
    if (p == Precision::Bf16) {
        const double tensor = peaks::tensor_peak_gflops(d.cc_major, d.cc_minor, d.sm_count, d.sm_clock_ghz,
                                                        peaks::TensorFormat::Bf16);
        if (tensor > 0) gflops = tensor;
    }
    m.gamma = gflops > 0 ? 1.0 / (gflops * 1e9) : 0.0;
    m.memory_beta = d.dram_peak_gbs > 0 ? 1.0 / (d.dram_peak_gbs * 1e9) : 0.0;
    return m;
}

int gemm_command(const std::vector<std::string>& args) {
    const GpuArgs c = parse_gemm(args);
    set_up_gpu();
    const std::string device = device_name();
    const gpu::DeviceInfo info = gpu::read_device_info();
    require_tile_gpu(c.tile, info);
    if (c.copy && !one_node())
        throw Usage("--transport copy needs every rank on one node (CUDA IPC): use --transport nccl across nodes");
    const model::Machine rule = panel_machine(c.precision, info);
    GemmEngine engine;
    engine.name = "nccl";
    engine.grid_of = [&](const GemmArgs& g, Shape s) { return shared_grid(g, s, !c.distributed()); };
    engine.run = [&](ShapeRun& r) {
        std::int64_t panel = c.g.panel > 0 ? c.g.panel : model::default_gpu_panel(r.shape, r.grid, rule);
        Measured m = c.g.algo == "cublasxt" ? run_cublasxt(c.g, r) : run_gpu(c, r, panel);
        m.fields.add("precision", precision_name(c.precision))
            .add("tile", c.g.algo == "cublasxt" ? "cublasxt" : tile_name(c.tile));
        m.fields.add("overlap", c.overlap ? "on" : "off").add("always_broadcast", c.always_broadcast ? 1 : 0);
        m.fields.add("transport", c.distributed() ? (c.copy ? "copy" : "nccl") : "-");
        m.fields.add("step_order", c.distributed() && c.copy && c.owned_first ? "owned" : "k");
        m.fields.add("panel", static_cast<long long>(panel));
        m.fields.add("panel_from", c.g.panel > 0 ? "--panel" : c.copy && c.distributed() ? "measured" : "model");
        m.fields.add("device", device).add("gpus", g_devices).add("nccl", nccl_version());
        m.fields.add("dram_gbs", static_cast<long long>(info.dram_peak_gbs + 0.5));
        return m;
    };
    engine.bound = [&](Shape s) { return c.precision == Precision::Bf16 ? bf16_bound(s) : classical_bound(s); };
    return run_gemm(c.g, engine);
}

// ---------------------------------------------------------------- bench, info

int bench_command(const std::vector<std::string>& args) {
    const BenchArgs b = parse_bench_args(args, {8, 1024, 65536, 1048576, 16777216, 67108864}, 1LL << 36);
    set_up_gpu();
    const long long largest = *std::max_element(b.bytes.begin(), b.bytes.end());
    gpu::DeviceBuffer<float> buf(std::max<long long>(1, largest / 4));
    CUDA_CHECK(cudaMemset(buf.get(), 0, buf.bytes()));  // zeros: sums stay finite
    Stream st;
    for (const std::string& op : b.ops) {
        for (long long bytes : b.bytes) {
            const std::size_t count = std::max<long long>(1, bytes / 4);
            const int iters = calls_per_rep(bytes, 1LL << 26);
            const auto call = [&](int it) {
                if (op == "bcast")
                    nccl_check(ncclBroadcast(buf.get(), buf.get(), count, ncclFloat32, it % world().size, g_world_comm, st.s),
                               "ncclBroadcast");
                else
                    nccl_check(ncclAllReduce(buf.get(), buf.get(), count, ncclFloat32, ncclSum, g_world_comm, st.s),
                               "ncclAllReduce");
            };
            CUDA_CHECK(cudaStreamSynchronize(st.s));
            const std::vector<double> t =
                time_collective(b.reps, iters, call, [&] { CUDA_CHECK(cudaStreamSynchronize(st.s)); });
            ResultLine line = bench_line("nccl", op, static_cast<long long>(4 * count), t, iters, b.reps);
            line.add("device", device_name()).add("nccl", nccl_version());
            print_result(line);
        }
    }
    return 0;
}

int info_command(const std::vector<std::string>& args) {
    if (!args.empty()) throw Usage("info takes no options");
    set_up_gpu();
    int driver = 0, runtime = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    ResultLine line;
    line.add("engine", "nccl").add("op", "info").add("P", world().size).add("gpus", g_devices).add("device", device_name());
    line.add("nccl", nccl_version()).add("cuda_driver", driver).add("cuda_runtime", runtime);
    print_result(line);
    return 0;
}

}  // namespace
}  // namespace mml::lab12

int main(int argc, char** argv) {
    using namespace mml::lab12;
    return program_main(argc, argv, "mmlab-nccl", kUsage,
                        {{"gemm", gemm_command}, {"bench", bench_command}, {"info", info_command}}, [] {
                            free_grid_comms();
                            if (g_world_comm) ncclCommDestroy(g_world_comm);
                        });
}
