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
// one-line message, from rank 0).
#include <mpi.h>

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
#include "harness/stages/lab12/cpu_versions.h"
#include "harness/stages/lab12/mpi_blocks.h"
#include "harness/stages/lab12/protocol.h"
#include "labs/common/lab12_comm.h"
#include "labs/common/lab12_grid.h"
#include "labs/common/lab12_local_gemm.h"

namespace mml::lab12 {
namespace {

struct Usage : std::runtime_error {
    using std::runtime_error::runtime_error;
};

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

int g_rank = 0, g_size = 1;

// ---------------------------------------------------------------- arguments

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

struct GemmArgs {
    std::string algo = "summa";
    bool reference = true;
    std::vector<Shape> shapes = {{512, 512, 512}};
    bool grid_given = false;
    Grid grid;
    std::int64_t panel = 0;
    bool local_given = false;
    LocalKernel local = LocalKernel::Lab5;
    int threads = 1;
    int reps = 3, warmup = 1;
    bool seed_given = false;
    std::uint64_t seed = 0;
    bool check = true;
    std::string c_out;  // --c-out DIR: rank 0 writes each product there (protocol.h, write_product)
    bool fault_layout = false;
};

GemmArgs parse_gemm(const std::vector<std::string>& args) {
    GemmArgs g;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& f = args[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw Usage(f + " needs a value");
            return args[++i];
        };
        if (f == "--algo") {
            g.algo = value();
            if (g.algo != "rows" && g.algo != "summa" && g.algo != "local")
                throw Usage("--algo " + g.algo + ": use rows, summa or local");
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
            if (!parse_grid(v, g.grid)) throw Usage("--grid " + v + ": use RxC, e.g. 2x3");
            g.grid_given = true;
        } else if (f == "--panel") {
            g.panel = whole_number(value(), f, 0, 1LL << 40);
        } else if (f == "--local") {
            const std::string v = value();
            if (v != "lab5" && v != "openblas") throw Usage("--local " + v + ": use lab5 or openblas");
            g.local = v == "lab5" ? LocalKernel::Lab5 : LocalKernel::OpenBlas;
            g.local_given = true;
        } else if (f == "--threads") {
            g.threads = static_cast<int>(whole_number(value(), f, 1, 1024));
        } else if (f == "--reps") {
            g.reps = static_cast<int>(whole_number(value(), f, 1, 1000));
        } else if (f == "--warmup") {
            g.warmup = static_cast<int>(whole_number(value(), f, 0, 100));
        } else if (f == "--seed") {
            g.seed = static_cast<std::uint64_t>(whole_number(value(), f, 0, (1LL << 62)));
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
    if (g.algo == "local" && g_size != 1)
        throw Usage("--algo local is lab 5's kernel on one process: start it with mpirun -np 1 (got " +
                    std::to_string(g_size) + ")");
    if (g.algo != "summa" && g.grid_given) throw Usage("--grid is for --algo summa (rows uses the grid P x 1)");
    if (g.grid_given && g.grid.size() != g_size)
        throw Usage("--grid " + grid_text(g.grid) + " needs " + std::to_string(g.grid.size()) +
                    " processes, but mpirun started " + std::to_string(g_size) +
                    ": use -np " + std::to_string(g.grid.size()) + " or another grid");
    return g;
}

// ---------------------------------------------------------------- gemm

int run_gemm(const GemmArgs& g) {
    const LocalKernel kernel = g.local_given ? g.local : (lab5_kernel_available() ? LocalKernel::Lab5 : LocalKernel::OpenBlas);
    try {
        set_local_kernel(kernel, g.threads);
    } catch (const std::runtime_error& e) {
        throw Usage(e.what());
    }
    const CpuVersions& v = cpu_versions(g.reference);
    if (g.algo != "local" && !v.rows)
        throw Usage("the reference is not in this build (built without the solutions, as the grader builds submissions)");
    std::uint64_t seed = g.seed_given ? g.seed : fresh_seed();
    mpi_check(MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");

    int failures = 0;
    for (std::size_t si = 0; si < g.shapes.size(); ++si) {
        const Shape s = g.shapes[si];
        const Grid grid = g.algo == "rows"   ? Grid{g_size, 1}
                          : g.algo == "local" ? Grid{1, 1}
                          : g.grid_given      ? g.grid
                                              : best_grid(g_size, s);
        std::vector<Layout> layouts;
        for (int r = 0; r < g_size; ++r) layouts.push_back(layout_of(s, grid, r));
        Layout mine = layouts[g_rank];
        if (g.fault_layout) {
            // The blocks were handed out by the row-major numbering; the
            // algorithm is told the column-major one.
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
        Matrix A_loc, B_loc, C_loc;
        scatter_blocks(A, layouts, a_block, g_rank, A_loc);
        scatter_blocks(B, layouts, b_block, g_rank, B_loc);
        C_loc = Matrix(1, std::max<std::int64_t>(c_block(layouts[g_rank]).count(), 1));

        const std::vector<Panel> panels = summa_panels(s, grid, g.panel);
        std::vector<double> times, comm_mean, comm_max, fraction;
        double bytes = 0;
        for (int rep = 0; rep < g.warmup + g.reps; ++rep) {
            poison(C_loc);
            CommStats st;
            mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
            const double t0 = MPI_Wtime();
            if (g.algo == "local")
                local_gemm(A_loc.data(), s.K, B_loc.data(), s.N, C_loc.data(), s.N, s.M, s.N, s.K, false);
            else if (g.algo == "rows")
                v.rows(mine, MPI_COMM_WORLD, A_loc.data(), B_loc.data(), C_loc.data(), st);
            else
                v.summa(mine, MPI_COMM_WORLD, A_loc.data(), B_loc.data(), C_loc.data(), g.panel, st);
            const double t = MPI_Wtime() - t0;
            const double tmax = all_reduce(t, MPI_MAX);
            const double cmax = all_reduce(st.seconds, MPI_MAX), cmean = all_reduce(st.seconds, MPI_SUM) / g_size;
            bytes = all_reduce(st.bytes, MPI_SUM) / g_size;
            if (rep < g.warmup) continue;
            times.push_back(tmax);
            comm_max.push_back(cmax);
            comm_mean.push_back(cmean);
            fraction.push_back(tmax > 0 ? cmean / tmax : 0);
        }

        CheckResult check;
        if (g.check || !g.c_out.empty()) gather_c(C, layouts, g_rank, C_loc.data());
        if (g.check && g_rank == 0)
            check = verify_product(A.data(), B.data(), C.data(), s, classical_bound(s), VerifyMethod::Auto, inputs_seed + 1);
        if (!g.c_out.empty() && g_rank == 0) write_product(g.c_out, si, C);
        if (g_rank == 0) {
            const double t = median(times);
            ResultLine line;
            line.add("engine", "mpi").add("algo", g.algo).add("impl", g.reference ? "reference" : "student");
            line.add("P", g_size).add("grid", grid_text(grid));
            line.add("M", static_cast<long long>(s.M)).add("N", static_cast<long long>(s.N)).add("K", static_cast<long long>(s.K));
            line.add("steps", g.algo == "summa" ? static_cast<long long>(panels.size()) : 1LL);
            line.add("reps", g.reps).add("seconds", t).add("spread", relative_spread(times));
            line.add("gflops", t > 0 ? s.flops() / t / 1e9 : 0.0);
            line.add("comm_seconds", median(comm_mean)).add("comm_max_seconds", median(comm_max));
            line.add("comm_fraction", median(fraction)).add("comm_bytes_per_rank", bytes);
            line.add("local", local_kernel_description()).add("threads", g.threads);
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

// ---------------------------------------------------------------- bench

int run_bench(const std::vector<std::string>& args) {
    std::vector<long long> sizes = {8, 1024, 65536, 1048576, 16777216};
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
            for (const std::string& s : split(value(), f)) sizes.push_back(whole_number(s, f, 4, 1LL << 34));
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
    for (const std::string& op : ops) {
        for (long long bytes : sizes) {
            const std::int64_t count = std::max<long long>(1, bytes / 4);
            Matrix buf(1, count);
            fill_uniform(buf, 1);
            // Enough back-to-back calls per repetition to be well above the clock's resolution.
            const int iters = static_cast<int>(std::clamp<long long>((1LL << 22) / std::max<long long>(bytes, 1), 1, 200));
            std::vector<double> t;
            for (int rep = -1; rep < reps; ++rep) {  // rep -1: warm-up
                CommStats st;
                mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
                const double t0 = MPI_Wtime();
                for (int it = 0; it < iters; ++it) {
                    if (op == "bcast")
                        timed_bcast(buf.data(), count, it % g_size, MPI_COMM_WORLD, st);
                    else
                        mpi_check(MPI_Allreduce(MPI_IN_PLACE, buf.data(), static_cast<int>(std::min<std::int64_t>(count, INT_MAX)),
                                                MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
                                  "MPI_Allreduce");
                }
                const double per_call = all_reduce((MPI_Wtime() - t0) / iters, MPI_MAX);
                if (rep >= 0) t.push_back(per_call);
                if (op == "allreduce") fill_uniform(buf, 1);  // keep the sums from growing to infinity
            }
            if (g_rank == 0) {
                ResultLine line;
                line.add("engine", "mpi").add("op", op).add("P", g_size).add("bytes", 4LL * count);
                line.add("seconds", median(t)).add("spread", relative_spread(t)).add("iters", iters).add("reps", reps);
                std::printf("%s\n", line.text().c_str());
                std::fflush(stdout);
            }
        }
    }
    return 0;
}

int run(const std::vector<std::string>& args) {
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        if (g_rank == 0) std::printf("%s", kUsage);
        return args.empty() ? 2 : 0;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "gemm") return run_gemm(parse_gemm(rest));
    if (args[0] == "bench") return run_bench(rest);
    throw Usage("unknown command '" + args[0] + "': use gemm or bench (--help)");
}

}  // namespace
}  // namespace mml::lab12

int main(int argc, char** argv) {
    using namespace mml::lab12;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        std::fprintf(stderr, "mmlab-mpi: MPI_Init failed\n");
        return 3;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int rc = 0;
    try {
        rc = run(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const Usage& e) {
        // Every rank parses the same words and finds the same mistake: rank 0 says it.
        if (g_rank == 0) std::fprintf(stderr, "mmlab-mpi: %s\n", e.what());
        rc = 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mmlab-mpi (rank %d): error: %s\n", g_rank, e.what());
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Finalize();
    return rc;
}
