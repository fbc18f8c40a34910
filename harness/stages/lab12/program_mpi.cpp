// main() of build/bin/mmlab-mpi: lab 12's CPU algorithms as an MPI program,
// started by mpirun (P copies; `mmlab mpi-gemm` and the lab 12 tests start it).
//
//   mmlab-mpi gemm   rank 0 makes A and B (U(-1,1) from a seed) and hands
//                    every rank its blocks; all ranks run the algorithm
//                    (warm-up, then timed repetitions: MPI_Wtime from a
//                    barrier to the end of each rank's work, the slowest rank
//                    counted); C is gathered on rank 0 and checked against
//                    the float64 product (cpu/verify.h).
//   mmlab-mpi bench  MPI_Bcast and MPI_Allreduce at several message sizes:
//                    the alpha and beta of the communication model.
//
// Answers: one RESULT line per result on rank 0's stdout (protocol.h). Exit
// 0 when every check passed, 1 when one failed, 2 for a usage error (a
// one-line message, from rank 0). What it does as mmlab-nccl does (main, the
// shared options, inputs, the check, the RESULT line) is program_common.h's;
// this file is the CPU engine: its options, the timed run, the MPI bench.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "cpu/error_bound.h"
#include "cpu/matrix.h"
#include "cpu/stats.h"
#include "harness/stages/lab12/cpu_versions.h"
#include "harness/stages/lab12/mpi_blocks.h"
#include "harness/stages/lab12/program_common.h"
#include "labs/common/lab12_comm.h"
#include "labs/common/lab12_grid.h"
#include "labs/common/lab12_local_gemm.h"

namespace mml::lab12 {
namespace {

const char* kUsage = R"(usage: mpirun -np P mmlab-mpi gemm [options]     one distributed product per size, checked
       mpirun -np P mmlab-mpi bench [options]    MPI_Bcast / MPI_Allreduce times per message size
gemm options:
  --algo rows|summa|local   1-D (grid P x 1), SUMMA, or lab 5's kernel alone (P = 1); default summa
  --impl student|reference  whose algorithm (default reference)
  --size LIST               N or MxNxK, comma-separated (default 512)
  --grid RxC                SUMMA's process grid (R*C = P); default: the one that moves the least data
  --panel W                 SUMMA: K panels at most W wide (default 0: as wide as the blocks allow)
  --local lab5|openblas     the per-rank kernel (default lab5 where this build has it)
  --threads T               threads per rank for the local kernel (default 1)
  --reps R --warmup W       timed and untimed repetitions (default 3 and 1)
  --seed S                  inputs' seed (default: fresh)
  --no-check                skip the check (timing only)
  --c-out DIR               rank 0 writes each product to DIR/c<i>.bin (float32; for a checker)
  --fault rank-layout       test hook: the algorithm is told a column-major rank layout
                            while the blocks were handed out row-major (must fail its check)
bench options:
  --bytes LIST              message sizes in bytes (default 8,1024,65536,1048576,16777216)
  --ops LIST                bcast,allreduce (default both)
  --reps R                  repetitions per size (default 5)
)";

// ---------------------------------------------------------------- gemm

struct CpuArgs {
    GemmArgs g;
    LocalKernel local = LocalKernel::Lab5;
    bool local_given = false;
    int threads = 1;
};

CpuArgs parse_gemm(const std::vector<std::string>& args) {
    CpuArgs c;
    c.g.algo = "summa";
    c.g.shapes = {{512, 512, 512}};
    parse_gemm_args(args, {"rows", "summa", "local"}, c.g, [&](const std::string& f, const auto& value) {
        if (f == "--local") {
            const std::string v = value();
            require_one_of(f, v, {"lab5", "openblas"});
            c.local = v == "lab5" ? LocalKernel::Lab5 : LocalKernel::OpenBlas;
            c.local_given = true;
        } else if (f == "--threads") {
            c.threads = static_cast<int>(whole_number(value(), f, 1, 1024));
        } else {
            return false;
        }
        return true;
    });
    if (c.g.algo == "local" && world().size != 1)
        throw Usage("--algo local is lab 5's kernel on one process: start it with mpirun -np 1 (got " +
                    std::to_string(world().size) + ")");
    return c;
}

// Hands out the blocks, runs the algorithm (warm-up, then timed: MPI_Wtime
// from a barrier to the end of the slowest rank's work; MPI's own time in the
// collectives, CommStats) and gathers C on rank 0.
Measured run_cpu(const CpuArgs& c, const CpuVersions& v, ShapeRun& r) {
    const GemmArgs& g = c.g;
    const Shape s = r.shape;
    const int rank = world().rank, P = world().size;
    Matrix A_loc, B_loc;
    scatter_blocks(r.A, r.layouts, a_block, rank, A_loc);
    scatter_blocks(r.B, r.layouts, b_block, rank, B_loc);
    Matrix C_loc(1, std::max<std::int64_t>(c_block(r.layouts[rank]).count(), 1));

    Measured m;
    std::vector<double> comm_mean, comm_max, fraction;
    double bytes = 0;
    for (int rep = 0; rep < g.warmup + g.reps; ++rep) {
        poison(C_loc);
        CommStats st;
        mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        const double t0 = MPI_Wtime();
        if (g.algo == "local")
            local_gemm(A_loc.data(), s.K, B_loc.data(), s.N, C_loc.data(), s.N, s.M, s.N, s.K, false);
        else if (g.algo == "rows")
            v.rows(r.mine, MPI_COMM_WORLD, A_loc.data(), B_loc.data(), C_loc.data(), st);
        else
            v.summa(r.mine, MPI_COMM_WORLD, A_loc.data(), B_loc.data(), C_loc.data(), g.panel, st);
        const double t = MPI_Wtime() - t0;
        const double tmax = all_reduce(t, MPI_MAX);
        const double cmax = all_reduce(st.seconds, MPI_MAX), cmean = all_reduce(st.seconds, MPI_SUM) / P;
        bytes = all_reduce(st.bytes, MPI_SUM) / P;
        if (rep < g.warmup) continue;
        m.seconds.push_back(tmax);
        comm_max.push_back(cmax);
        comm_mean.push_back(cmean);
        fraction.push_back(tmax > 0 ? cmean / tmax : 0);
    }
    if (gathers_c(g)) gather_c(r.C, r.layouts, rank, C_loc.data());
    if (g.algo == "summa") m.steps = static_cast<long long>(summa_panels(s, r.grid, g.panel).size());
    m.fields.add("comm_seconds", median(comm_mean)).add("comm_max_seconds", median(comm_max));
    m.fields.add("comm_fraction", median(fraction)).add("comm_bytes_per_rank", bytes);
    m.fields.add("local", local_kernel_description()).add("threads", c.threads);
    return m;
}

int gemm_command(const std::vector<std::string>& args) {
    const CpuArgs c = parse_gemm(args);
    const LocalKernel kernel = c.local_given ? c.local : (lab5_kernel_available() ? LocalKernel::Lab5 : LocalKernel::OpenBlas);
    try {
        set_local_kernel(kernel, c.threads);
    } catch (const std::runtime_error& e) {
        throw Usage(e.what());
    }
    const CpuVersions& v = cpu_versions(c.g.reference);
    if (c.g.algo != "local" && !v.rows)
        throw Usage("the reference is not in this build (built without the solutions, as the grader builds submissions)");
    GemmEngine engine;
    engine.name = "mpi";
    engine.grid_of = [](const GemmArgs& g, Shape s) { return shared_grid(g, s, g.algo == "local"); };
    engine.run = [&](ShapeRun& r) { return run_cpu(c, v, r); };
    engine.bound = classical_bound;
    return run_gemm(c.g, engine);
}

// ---------------------------------------------------------------- bench

int bench_command(const std::vector<std::string>& args) {
    const BenchArgs b = parse_bench_args(args, {8, 1024, 65536, 1048576, 16777216}, 1LL << 34);
    for (const std::string& op : b.ops) {
        for (long long bytes : b.bytes) {
            const std::int64_t count = std::max<long long>(1, bytes / 4);
            Matrix buf(1, count);
            fill_uniform(buf, 1);
            const int iters = calls_per_rep(bytes, 1LL << 22);
            CommStats st;
            const auto call = [&](int it) {
                if (op == "bcast")
                    timed_bcast(buf.data(), count, it % world().size, MPI_COMM_WORLD, st);
                else
                    mpi_check(MPI_Allreduce(MPI_IN_PLACE, buf.data(), static_cast<int>(std::min<std::int64_t>(count, INT_MAX)),
                                            MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
                              "MPI_Allreduce");
            };
            // (The calls are blocking: done when they return.) Fresh data
            // after an allreduce's repetition keeps the sums from growing to infinity.
            const std::vector<double> t = time_collective(b.reps, iters, call, [] {}, [&] {
                if (op == "allreduce") fill_uniform(buf, 1);
            });
            print_result(bench_line("mpi", op, 4LL * count, t, iters, b.reps));
        }
    }
    return 0;
}

}  // namespace
}  // namespace mml::lab12

int main(int argc, char** argv) {
    using namespace mml::lab12;
    return program_main(argc, argv, "mmlab-mpi", kUsage, {{"gemm", gemm_command}, {"bench", bench_command}});
}
