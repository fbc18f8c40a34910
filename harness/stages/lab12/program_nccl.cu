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
//   mmlab-nccl bench  ncclBroadcast / ncclAllReduce times per message size.
//   mmlab-nccl info   the GPUs, NCCL's version.
// Answers: RESULT lines on rank 0's stdout (protocol.h); exit 0 all checks
// passed, 1 one failed, 2 bad input or no GPU (one line from rank 0).
#include <cublasXt.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/error_bound.h"
#include "cpu/matrix.h"
#include "cpu/stats.h"
#include "cpu/verify.h"
#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "harness/stages/lab12/gpu_versions.h"
#include "harness/stages/lab12/mpi_blocks.h"
#include "harness/stages/lab12/protocol.h"
#include "labs/common/lab12_gpu.h"
#include "labs/common/lab12_nccl.h"
#include "models/abg_model.h"

namespace mml::lab12 {
namespace {

struct Usage : std::runtime_error {
    using std::runtime_error::runtime_error;
};

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
  --tile cublas|lab8        the per-tile product (default cublas; lab8: lab 8's kernel, fp32)
  --overlap on|off          broadcasts of the next panels during this product (default on)
  --panel W                 K panels at most W wide (default: about 8 steps)
  --always-broadcast        broadcast even along a row or column of one process (tests: runs
                            NCCL on one GPU)
  --reps R --warmup W       timed and untimed repetitions (default 5 and 2)
  --seed S, --no-check, --c-out DIR, --fault rank-layout   as in mmlab-mpi
)";

int g_rank = 0, g_size = 1, g_local_rank = 0, g_local_size = 1, g_devices = 0;
ncclComm_t g_world = nullptr;

long long whole_number(const std::string& text, const std::string& flag, long long lo, long long hi) {
    if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos)
        throw Usage(flag + " needs a whole number, got '" + text + "'");
    const long long v = std::stoll(text);
    if (v < lo || v > hi)
        throw Usage(flag + " " + text + " is out of range (" + std::to_string(lo) + ".." + std::to_string(hi) + ")");
    return v;
}

std::vector<std::string> split(const std::string& text, const std::string& flag) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (out.back().empty()) throw Usage(flag + " '" + text + "' has an empty item");
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

struct Args {
    std::string algo = "summa";
    bool reference = true;
    std::vector<Shape> shapes = {{4096, 4096, 4096}};
    bool grid_given = false;
    Grid grid;
    std::int64_t panel = 0;
    Precision precision = Precision::Fp32;
    TileKernel tile = TileKernel::Cublas;
    bool overlap = true;
    bool always_broadcast = false;
    int reps = 5, warmup = 2;
    bool seed_given = false;
    std::uint64_t seed = 0;
    bool check = true;
    std::string c_out;  // --c-out DIR: rank 0 writes each product there (protocol.h, write_product)
    bool fault_layout = false;
};

Args parse_gemm(const std::vector<std::string>& args) {
    Args g;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& f = args[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw Usage(f + " needs a value");
            return args[++i];
        };
        if (f == "--algo") {
            g.algo = value();
            if (g.algo != "summa" && g.algo != "rows" && g.algo != "cublas" && g.algo != "cublasxt")
                throw Usage("--algo " + g.algo + ": use summa, rows, cublas or cublasxt");
        } else if (f == "--impl") {
            const std::string v = value();
            if (v != "student" && v != "reference") throw Usage("--impl " + v + ": use student or reference");
            g.reference = v == "reference";
        } else if (f == "--size") {
            try {
                g.shapes = parse_shape_list(value());
            } catch (const std::invalid_argument& e) {
                throw Usage(std::string("--size: ") + e.what());
            }
        } else if (f == "--grid") {
            const std::string v = value();
            if (!parse_grid(v, g.grid)) throw Usage("--grid " + v + ": use RxC, e.g. 2x1");
            g.grid_given = true;
        } else if (f == "--precision") {
            const std::string v = value();
            if (v != "fp32" && v != "bf16") throw Usage("--precision " + v + ": use fp32 or bf16");
            g.precision = v == "bf16" ? Precision::Bf16 : Precision::Fp32;
        } else if (f == "--tile") {
            const std::string v = value();
            if (v != "cublas" && v != "lab8") throw Usage("--tile " + v + ": use cublas or lab8");
            g.tile = v == "lab8" ? TileKernel::Lab8 : TileKernel::Cublas;
        } else if (f == "--overlap") {
            const std::string v = value();
            if (v != "on" && v != "off") throw Usage("--overlap " + v + ": use on or off");
            g.overlap = v == "on";
        } else if (f == "--panel") {
            g.panel = whole_number(value(), f, 0, 1LL << 40);
        } else if (f == "--always-broadcast") {
            g.always_broadcast = true;
        } else if (f == "--reps") {
            g.reps = static_cast<int>(whole_number(value(), f, 1, 1000));
        } else if (f == "--warmup") {
            g.warmup = static_cast<int>(whole_number(value(), f, 0, 100));
        } else if (f == "--seed") {
            g.seed = static_cast<std::uint64_t>(whole_number(value(), f, 0, 1LL << 62));
            g.seed_given = true;
        } else if (f == "--no-check") {
            g.check = false;
        } else if (f == "--c-out") {
            g.c_out = value();
            if (g.c_out.empty()) throw Usage("--c-out needs a folder");
        } else if (f == "--fault") {
            const std::string v = value();
            if (v != "rank-layout") throw Usage("--fault " + v + ": the only fault is rank-layout");
            g.fault_layout = true;
        } else {
            throw Usage("unknown option '" + f + "' for gemm");
        }
    }
    const bool peer = g.algo == "cublas" || g.algo == "cublasxt";
    if (peer && g_size != 1)
        throw Usage("--algo " + g.algo + " is a one-process peer: start it with mpirun -np 1 (got " + std::to_string(g_size) + ")");
    if (g.algo == "cublasxt" && g.precision != Precision::Fp32)
        throw Usage("cublasXt has no bf16 product: --algo cublasxt is fp32 only");
    if (g.tile == TileKernel::Lab8 && g.precision != Precision::Fp32)
        throw Usage("--tile lab8 is lab 8's float32 kernel: use --tile cublas for bf16");
    if (g.tile == TileKernel::Lab8 && !lab8_kernel_available())
        throw Usage("--tile lab8: lab 8's kernel is not in this build (built without the reference solutions)");
    if (g.algo != "summa" && g.grid_given) throw Usage("--grid is for --algo summa (rows uses the grid P x 1)");
    if (g.grid_given && g.grid.size() != g_size)
        throw Usage("--grid " + grid_text(g.grid) + " needs " + std::to_string(g.grid.size()) +
                    " processes, but mpirun started " + std::to_string(g_size));
    if ((g.algo == "summa" || g.algo == "rows") && !gpu_version(g.reference))
        throw Usage("the reference is not in this build (built without the solutions, as the grader builds submissions)");
    return g;
}

// ---------------------------------------------------------------- set-up

std::string nccl_version() {
    int v = 0;
    nccl_check(ncclGetVersion(&v), "ncclGetVersion");
    // Since NCCL 2.9 the code is major*10000 + minor*100 + patch.
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

std::string device_name() {
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, g_local_rank));
    return prop.name;
}

// One GPU per process: local rank i (among the processes of this node) takes GPU i.
void pick_device() {
    MPI_Comm node = MPI_COMM_NULL;
    mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node),
              "MPI_Comm_split_type");
    mpi_check(MPI_Comm_rank(node, &g_local_rank), "MPI_Comm_rank");
    mpi_check(MPI_Comm_size(node, &g_local_size), "MPI_Comm_size");
    mpi_check(MPI_Comm_free(&node), "MPI_Comm_free");
    const cudaError_t err = cudaGetDeviceCount(&g_devices);
    int ok = err == cudaSuccess && g_devices > 0;
    int all_ok = 0;
    mpi_check(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    if (!all_ok)
        throw Usage(std::string("needs a CUDA GPU per process, but ") +
                    (err != cudaSuccess ? std::string("cudaGetDeviceCount says: ") + cudaGetErrorString(err)
                                        : std::string("this machine has none")));
    int fits = g_local_size <= g_devices, all_fit = 0;
    mpi_check(MPI_Allreduce(&fits, &all_fit, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    if (!all_fit)
        throw Usage(std::to_string(g_local_size) + " processes on one node but only " + std::to_string(g_devices) +
                    " GPU(s): one process per GPU (mpirun -np " + std::to_string(g_devices) + " here)");
    CUDA_CHECK(cudaSetDevice(g_local_rank));
}

// All ranks' NCCL communicator, from an id made by rank 0 and broadcast over MPI.
void make_world() {
    ncclUniqueId id{};
    if (g_rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    mpi_check(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast (NCCL id)");
    nccl_check(ncclCommInitRank(&g_world, g_size, id, g_rank), "ncclCommInitRank");
}

// The ranks of g_world with the same color, ordered by key.
ncclComm_t split_world(int color, int key) {
    ncclComm_t out = nullptr;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0)
    nccl_check(ncclCommSplit(g_world, color, key, &out, nullptr), "ncclCommSplit");
#else  // older NCCL: the same from MPI, an id per group
    MPI_Comm group = MPI_COMM_NULL;
    mpi_check(MPI_Comm_split(MPI_COMM_WORLD, color, key, &group), "MPI_Comm_split");
    int r = 0, n = 1;
    MPI_Comm_rank(group, &r);
    MPI_Comm_size(group, &n);
    ncclUniqueId id{};
    if (r == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    mpi_check(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, group), "MPI_Bcast (NCCL id)");
    nccl_check(ncclCommInitRank(&out, n, id, r), "ncclCommInitRank");
    mpi_check(MPI_Comm_free(&group), "MPI_Comm_free");
#endif
    return out;
}

struct Stream {
    cudaStream_t s = nullptr;
    Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
    ~Stream() {
        if (s) cudaStreamDestroy(s);
    }
};
struct Event {
    cudaEvent_t e = nullptr;
    Event() { CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); }
    ~Event() {
        if (e) cudaEventDestroy(e);
    }
};
struct Comm {
    ncclComm_t c = nullptr;
    ~Comm() {
        if (c) ncclCommDestroy(c);
    }
};

// A block of host floats on the device, as float or as bfloat16.
gpu::DeviceBuffer<char> to_device(const float* host, std::int64_t count, Precision p) {
    gpu::DeviceBuffer<char> out(std::max<std::size_t>(1, count * element_bytes(p)));
    if (count == 0) return out;
    if (p == Precision::Fp32) {
        CUDA_CHECK(cudaMemcpy(out.get(), host, count * sizeof(float), cudaMemcpyHostToDevice));
    } else {
        gpu::DeviceBuffer<float> tmp(count);
        tmp.copy_from_host(host);
        to_bf16(tmp.get(), out.get(), count, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    return out;
}

struct Timing {
    std::vector<double> seconds, comm, gemm;
};

// ---------------------------------------------------------------- gemm

double cublasxt_seconds(const Matrix& A, const Matrix& B, Matrix& C, Shape s) {
    cublasXtHandle_t xt = nullptr;
    auto check = [](cublasStatus_t st, const char* what) {
        if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusString(st));
    };
    check(cublasXtCreate(&xt), "cublasXtCreate");
    std::vector<int> ids(g_devices);
    for (int d = 0; d < g_devices; ++d) ids[d] = d;
    check(cublasXtDeviceSelect(xt, g_devices, ids.data()), "cublasXtDeviceSelect");
    const float one = 1.0f, zero = 0.0f;
    const double t0 = MPI_Wtime();
    // Row-major C = A*B as column-major C^T = B^T A^T; cublasXt moves the
    // tiles between host and GPUs itself.
    check(cublasXtSgemm(xt, CUBLAS_OP_N, CUBLAS_OP_N, s.N, s.M, s.K, &one, B.data(), s.N, A.data(), s.K, &zero, C.data(),
                        s.N),
          "cublasXtSgemm");
    CUDA_CHECK(cudaDeviceSynchronize());
    const double t = MPI_Wtime() - t0;
    check(cublasXtDestroy(xt), "cublasXtDestroy");
    return t;
}

int run_gemm(const Args& g) {
    std::uint64_t seed = g.seed_given ? g.seed : fresh_seed();
    mpi_check(MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
    const std::string device = device_name();
    int failures = 0;
    for (std::size_t si = 0; si < g.shapes.size(); ++si) {
        const Shape s = g.shapes[si];
        const bool distributed = g.algo == "summa" || g.algo == "rows";
        const Grid grid = g.algo == "rows" ? Grid{g_size, 1}
                          : !distributed   ? Grid{1, 1}
                          : g.grid_given   ? g.grid
                                           : best_grid(g_size, s);
        std::vector<Layout> layouts;
        for (int r = 0; r < g_size; ++r) layouts.push_back(layout_of(s, grid, r));
        Layout mine = layouts[g_rank];
        if (g.fault_layout) {
            try {
                mine = column_major_layout(s, grid, g_rank);
            } catch (const std::invalid_argument& e) {
                throw Usage(e.what());
            }
        }
        const std::uint64_t inputs_seed = shape_seed(seed, si);
        Matrix A, B, C;
        if (g_rank == 0) {
            A = Matrix(s.M, s.K);
            B = Matrix(s.K, s.N);
            C = Matrix(s.M, s.N);
            fill_inputs(A, B, inputs_seed);
        }
        const std::int64_t panel = g.panel > 0 ? g.panel : model::default_gpu_panel(s.K);
        const std::vector<Panel> panels = summa_panels(s, grid, panel);
        Timing tm;
        std::string tile_text;
        if (g.algo == "cublasxt") {
            for (int rep = 0; rep < g.warmup + g.reps; ++rep) {
                poison(C);
                const double t = cublasxt_seconds(A, B, C, s);
                if (rep >= g.warmup) tm.seconds.push_back(t);
            }
            tile_text = "cublasXt on " + std::to_string(g_devices) + " GPU(s), A, B, C in host memory";
        } else {
            Matrix A_loc, B_loc;
            scatter_blocks(A, layouts, a_block, g_rank, A_loc);
            scatter_blocks(B, layouts, b_block, g_rank, B_loc);
            const std::int64_t c_count = c_block(layouts[g_rank]).count();
            gpu::DeviceBuffer<char> dA = to_device(A_loc.data(), a_block(layouts[g_rank]).count(), g.precision);
            gpu::DeviceBuffer<char> dB = to_device(B_loc.data(), b_block(layouts[g_rank]).count(), g.precision);
            gpu::DeviceBuffer<float> dC(std::max<std::int64_t>(1, c_count));
            Stream comm_stream, compute_stream;
            TileGemm gemm(g.tile, g.precision, compute_stream.s);
            tile_text = gemm.describe();
            const std::size_t es = element_bytes(g.precision);
            Comm row, col;
            std::int64_t widest = 0;
            for (const Panel& p : panels) widest = std::max(widest, p.width());
            gpu::DeviceBuffer<char> a_panel[2], b_panel[2];
            Event ready[2], done[2];
            StepTimer timer(panels.size());
            GpuSumma ctx;
            if (distributed) {
                row.c = split_world(mine.row, mine.col);
                col.c = split_world(mine.col, mine.row);
                for (int b = 0; b < 2; ++b) {
                    a_panel[b] = gpu::DeviceBuffer<char>(std::max<std::size_t>(1, mine.rows() * widest * es));
                    b_panel[b] = gpu::DeviceBuffer<char>(std::max<std::size_t>(1, widest * mine.cols() * es));
                }
                ctx.L = mine;
                ctx.panels = panels;
                ctx.row_comm = row.c;
                ctx.col_comm = col.c;
                ctx.comm = comm_stream.s;
                ctx.gemm = &gemm;
                ctx.precision = g.precision;
                ctx.nccl_type = g.precision == Precision::Bf16 ? ncclBfloat16 : ncclFloat32;
                ctx.elem_bytes = es;
                ctx.A_loc = dA.get();
                ctx.B_loc = dB.get();
                ctx.C_loc = dC.get();
                for (int b = 0; b < 2; ++b) {
                    ctx.a_panel[b] = a_panel[b].get();
                    ctx.b_panel[b] = b_panel[b].get();
                    ctx.panel_ready[b] = ready[b].e;
                    ctx.product_done[b] = done[b].e;
                }
                ctx.overlap = g.overlap;
                ctx.always_broadcast = g.always_broadcast;
                ctx.timer = &timer;
            }
            const SummaGpuFn fn = distributed ? gpu_version(g.reference) : nullptr;
            for (int rep = 0; rep < g.warmup + g.reps; ++rep) {
                poison_device(dC.get(), c_count, nullptr);
                CUDA_CHECK(cudaDeviceSynchronize());
                mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
                const double t0 = MPI_Wtime();
                if (distributed)
                    fn(ctx);
                else
                    gemm.run(dA.get(), s.K, dB.get(), s.N, dC.get(), s.N, s.M, s.N, s.K, false);
                CUDA_CHECK(cudaStreamSynchronize(gemm.stream()));
                CUDA_CHECK(cudaStreamSynchronize(comm_stream.s));
                CUDA_CHECK(cudaDeviceSynchronize());  // anything the code under test put elsewhere
                const double t = all_reduce(MPI_Wtime() - t0, MPI_MAX);
                const double comm = distributed ? all_reduce(timer.comm_seconds(), MPI_MAX) : 0.0;
                const double gemm_s = distributed ? all_reduce(timer.gemm_seconds(), MPI_MAX) : t;
                if (rep < g.warmup) continue;
                tm.seconds.push_back(t);
                tm.comm.push_back(comm);
                tm.gemm.push_back(gemm_s);
            }
            if (g.check || !g.c_out.empty()) {
                Matrix C_loc(1, std::max<std::int64_t>(1, c_count));
                if (c_count) CUDA_CHECK(cudaMemcpy(C_loc.data(), dC.get(), c_count * sizeof(float), cudaMemcpyDeviceToHost));
                gather_c(C, layouts, g_rank, C_loc.data());
            }
        }
        CheckResult check;
        if (g.check && g_rank == 0)
            check = verify_product(A.data(), B.data(), C.data(), s,
                                   g.precision == Precision::Bf16 ? bf16_bound(s) : classical_bound(s), VerifyMethod::Auto,
                                   inputs_seed + 1);
        if (!g.c_out.empty() && g_rank == 0) write_product(g.c_out, si, C);
        if (g_rank == 0) {
            const double t = median(tm.seconds);
            ResultLine line;
            line.add("engine", "nccl").add("algo", g.algo).add("impl", g.reference ? "reference" : "student");
            line.add("P", g_size).add("grid", grid_text(grid));
            line.add("M", static_cast<long long>(s.M)).add("N", static_cast<long long>(s.N)).add("K", static_cast<long long>(s.K));
            line.add("precision", precision_name(g.precision)).add("tile", g.algo == "cublasxt" ? "cublasxt" : tile_name(g.tile));
            line.add("overlap", g.overlap ? "on" : "off").add("always_broadcast", g.always_broadcast ? 1 : 0);
            line.add("panel", static_cast<long long>(panel)).add("steps", distributed ? static_cast<long long>(panels.size()) : 1LL);
            line.add("reps", g.reps).add("seconds", t).add("spread", relative_spread(tm.seconds));
            line.add("gflops", t > 0 ? s.flops() / t / 1e9 : 0.0);
            if (!tm.comm.empty()) {
                line.add("comm_seconds", median(tm.comm)).add("gemm_seconds", median(tm.gemm));
                line.add("comm_fraction", t > 0 ? median(tm.comm) / t : 0.0);
                line.add("exposed_seconds", std::max(0.0, t - median(tm.gemm)));
            }
            line.add("tile_product", tile_text).add("device", device).add("gpus", g_devices).add("nccl", nccl_version());
            if (!g.check) {
                line.add("check", "skipped");
            } else {
                line.add("check", check.passed ? "ok" : "WRONG").add("method", check.method);
                line.add("worst_ratio", check.worst_ratio).add("max_abs_error", check.max_abs_error);
                if (!check.passed) line.add("failure", check.failure);
            }
            std::printf("%s\n", line.text().c_str());
            std::fflush(stdout);
            if (g.check && !check.passed) ++failures;
        }
    }
    int any = failures;
    mpi_check(MPI_Bcast(&any, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
    return any ? 1 : 0;
}

// ---------------------------------------------------------------- bench, info

int run_bench(const std::vector<std::string>& args) {
    std::vector<long long> sizes = {8, 1024, 65536, 1048576, 16777216, 67108864};
    std::vector<std::string> ops = {"bcast", "allreduce"};
    int reps = 5;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& f = args[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw Usage(f + " needs a value");
            return args[++i];
        };
        if (f == "--bytes") {
            sizes.clear();
            for (const std::string& s : split(value(), f)) sizes.push_back(whole_number(s, f, 4, 1LL << 36));
        } else if (f == "--ops") {
            ops = split(value(), f);
            for (const std::string& o : ops)
                if (o != "bcast" && o != "allreduce") throw Usage("--ops " + o + ": use bcast and/or allreduce");
        } else if (f == "--reps") {
            reps = static_cast<int>(whole_number(value(), f, 1, 1000));
        } else {
            throw Usage("unknown option '" + f + "' for bench");
        }
    }
    const long long largest = *std::max_element(sizes.begin(), sizes.end());
    gpu::DeviceBuffer<float> buf(std::max<long long>(1, largest / 4));
    CUDA_CHECK(cudaMemset(buf.get(), 0, buf.bytes()));  // zeros: sums stay finite
    Stream st;
    for (const std::string& op : ops) {
        for (long long bytes : sizes) {
            const std::size_t count = std::max<long long>(1, bytes / 4);
            const int iters = static_cast<int>(std::clamp<long long>((1LL << 26) / std::max<long long>(bytes, 1), 1, 200));
            std::vector<double> t;
            for (int rep = -1; rep < reps; ++rep) {
                CUDA_CHECK(cudaStreamSynchronize(st.s));
                mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
                const double t0 = MPI_Wtime();
                for (int it = 0; it < iters; ++it) {
                    if (op == "bcast")
                        nccl_check(ncclBroadcast(buf.get(), buf.get(), count, ncclFloat32, it % g_size, g_world, st.s),
                                   "ncclBroadcast");
                    else
                        nccl_check(ncclAllReduce(buf.get(), buf.get(), count, ncclFloat32, ncclSum, g_world, st.s),
                                   "ncclAllReduce");
                }
                CUDA_CHECK(cudaStreamSynchronize(st.s));
                const double per_call = all_reduce((MPI_Wtime() - t0) / iters, MPI_MAX);
                if (rep >= 0) t.push_back(per_call);
            }
            if (g_rank == 0) {
                ResultLine line;
                line.add("engine", "nccl").add("op", op).add("P", g_size).add("bytes", static_cast<long long>(4 * count));
                line.add("seconds", median(t)).add("spread", relative_spread(t)).add("iters", iters).add("reps", reps);
                line.add("device", device_name()).add("nccl", nccl_version());
                std::printf("%s\n", line.text().c_str());
                std::fflush(stdout);
            }
        }
    }
    return 0;
}

int run_info() {
    if (g_rank == 0) {
        ResultLine line;
        int driver = 0, runtime = 0;
        CUDA_CHECK(cudaDriverGetVersion(&driver));
        CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
        line.add("engine", "nccl").add("op", "info").add("P", g_size).add("gpus", g_devices).add("device", device_name());
        line.add("nccl", nccl_version()).add("cuda_driver", driver).add("cuda_runtime", runtime);
        std::printf("%s\n", line.text().c_str());
    }
    return 0;
}

int run(const std::vector<std::string>& args) {
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        if (g_rank == 0) std::printf("%s", kUsage);
        return args.empty() ? 2 : 0;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] != "gemm" && args[0] != "bench" && args[0] != "info")
        throw Usage("unknown command '" + args[0] + "': use gemm, bench or info (--help)");
    const Args parsed = args[0] == "gemm" ? parse_gemm(rest) : Args{};
    pick_device();
    make_world();
    if (args[0] == "gemm") return run_gemm(parsed);
    if (args[0] == "bench") return run_bench(rest);
    return run_info();
}

}  // namespace
}  // namespace mml::lab12

int main(int argc, char** argv) {
    using namespace mml::lab12;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        std::fprintf(stderr, "mmlab-nccl: MPI_Init failed\n");
        return 3;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int rc = 0;
    try {
        rc = run(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const Usage& e) {
        if (g_rank == 0) std::fprintf(stderr, "mmlab-nccl: %s\n", e.what());
        rc = 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mmlab-nccl (rank %d): error: %s\n", g_rank, e.what());
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (g_world) ncclCommDestroy(g_world);
    MPI_Finalize();
    return rc;
}
