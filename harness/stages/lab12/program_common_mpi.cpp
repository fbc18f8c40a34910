// The plumbing lab 12's two MPI programs share (program_common.h): linked
// into build/bin/mmlab-mpi and build/bin/mmlab-nccl (the Makefile), never
// into mmlab.
#include "harness/stages/lab12/program_common.h"

#include <algorithm>
#include <cstdio>

#include "cpu/stats.h"
#include "cpu/verify.h"
#include "harness/stages/lab12/mpi_blocks.h"
#include "labs/common/lab12_comm.h"

namespace mml::lab12 {

namespace {
World g_world;
}  // namespace

const World& world() { return g_world; }

// ---------------------------------------------------------------- words

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

namespace {

// "a, b or c"
std::string alternatives(const std::vector<std::string>& words) {
    std::string list;
    for (std::size_t i = 0; i < words.size(); ++i)
        list += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
    return list;
}

}  // namespace

void require_one_of(const std::string& flag, const std::string& value, const std::vector<std::string>& allowed) {
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
        throw Usage(flag + " " + value + ": use " + alternatives(allowed));
}

// ---------------------------------------------------------------- gemm

void parse_gemm_args(const std::vector<std::string>& args, const std::vector<std::string>& algos, GemmArgs& g,
                     const OwnOption& own) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& f = args[i];
        const std::function<std::string()> value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw Usage(f + " needs a value");
            return args[++i];
        };
        if (f == "--algo") {
            g.algo = value();
            require_one_of(f, g.algo, algos);
        } else if (f == "--impl") {
            const std::string v = value();
            require_one_of(f, v, {"student", "reference"});
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
        } else if (!own(f, value)) {
            throw Usage("unknown option '" + f + "' for gemm");
        }
    }
    const int P = world().size;
    if (g.algo != "summa" && g.grid_given) throw Usage("--grid is for --algo summa (rows uses the grid P x 1)");
    if (g.grid_given && g.grid.size() != P)
        throw Usage("--grid " + grid_text(g.grid) + " needs " + std::to_string(g.grid.size()) +
                    " processes, but mpirun started " + std::to_string(P) + ": use -np " +
                    std::to_string(g.grid.size()) + " or another grid");
}

Grid shared_grid(const GemmArgs& g, Shape s, bool single) {
    if (g.algo == "rows") return {world().size, 1};
    if (single) return {1, 1};
    return g.grid_given ? g.grid : best_grid(world().size, s);
}

namespace {

// Grid, blocks and inputs of shape `index`, alike on every rank.
ShapeRun set_up(const GemmArgs& g, const GemmEngine& engine, std::size_t index, std::uint64_t seed) {
    const int rank = world().rank;
    ShapeRun r;
    r.index = index;
    r.shape = g.shapes[index];
    r.grid = engine.grid_of(g, r.shape);
    for (int p = 0; p < world().size; ++p) r.layouts.push_back(layout_of(r.shape, r.grid, p));
    r.mine = r.layouts[rank];
    if (g.fault_layout) {
        // The blocks are handed out by the row-major numbering; the
        // algorithm is told the column-major one.
        try {
            r.mine = column_major_layout(r.shape, r.grid, rank);
        } catch (const std::invalid_argument& e) {
            throw Usage(e.what());
        }
    }
    r.seed = shape_seed(seed, index);
    if (rank == 0) {
        r.A = Matrix(r.shape.M, r.shape.K);
        r.B = Matrix(r.shape.K, r.shape.N);
        r.C = Matrix(r.shape.M, r.shape.N);
        fill_inputs(r.A, r.B, r.seed);
    }
    return r;
}

}  // namespace

int run_gemm(const GemmArgs& g, const GemmEngine& engine) {
    std::uint64_t seed = g.seed_given ? g.seed : fresh_seed();
    mpi_check(MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
    int failures = 0;
    for (std::size_t si = 0; si < g.shapes.size(); ++si) {
        ShapeRun r = set_up(g, engine, si, seed);
        const Measured m = engine.run(r);
        if (world().rank != 0) continue;
        const Shape s = r.shape;
        CheckResult check;
        if (g.check)
            check = verify_product(r.A.data(), r.B.data(), r.C.data(), s, engine.bound(s), VerifyMethod::Auto, r.seed + 1);
        const double t = median(m.seconds);
        ResultLine line;
        line.add("engine", engine.name).add("algo", g.algo).add("impl", g.reference ? "reference" : "student");
        line.add("P", world().size).add("grid", grid_text(r.grid));
        line.add("M", static_cast<long long>(s.M)).add("N", static_cast<long long>(s.N)).add("K", static_cast<long long>(s.K));
        line.add("steps", m.steps).add("reps", g.reps).add("seconds", t).add("spread", relative_spread(m.seconds));
        line.add("gflops", t > 0 ? s.flops() / t / 1e9 : 0.0);
        line.append(m.fields);
        if (!g.check) {
            line.add("check", "skipped");
        } else {
            line.add("check", check.passed ? "ok" : "WRONG").add("method", check.method);
            line.add("worst_ratio", check.worst_ratio).add("max_abs_error", check.max_abs_error);
            if (!check.passed) line.add("failure", check.failure);
        }
        print_result(line);
        if (!g.c_out.empty()) write_product(g.c_out, si, r.C);
        if (g.check && !check.passed) ++failures;
    }
    mpi_check(MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
    return failures ? 1 : 0;
}

// ---------------------------------------------------------------- bench

BenchArgs parse_bench_args(const std::vector<std::string>& args, std::vector<long long> default_bytes,
                           long long max_bytes) {
    BenchArgs b;
    b.bytes = std::move(default_bytes);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& f = args[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw Usage(f + " needs a value");
            return args[++i];
        };
        if (f == "--bytes") {
            b.bytes.clear();
            for (const std::string& s : split(value(), f)) b.bytes.push_back(whole_number(s, f, 4, max_bytes));
        } else if (f == "--ops") {
            b.ops = split(value(), f);
            for (const std::string& o : b.ops)
                if (o != "bcast" && o != "allreduce") throw Usage("--ops " + o + ": use bcast and/or allreduce");
        } else if (f == "--reps") {
            b.reps = static_cast<int>(whole_number(value(), f, 1, 1000));
        } else {
            throw Usage("unknown option '" + f + "' for bench");
        }
    }
    return b;
}

int calls_per_rep(long long bytes, long long budget_bytes) {
    return static_cast<int>(std::clamp<long long>(budget_bytes / std::max<long long>(bytes, 1), 1, 200));
}

std::vector<double> time_collective(int reps, int iters, const std::function<void(int)>& call,
                                    const std::function<void()>& finish, const std::function<void()>& reset) {
    std::vector<double> t;
    for (int rep = -1; rep < reps; ++rep) {  // rep -1: warm-up
        mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        const double t0 = MPI_Wtime();
        for (int it = 0; it < iters; ++it) call(it);
        finish();
        const double per_call = all_reduce((MPI_Wtime() - t0) / iters, MPI_MAX);
        if (rep >= 0) t.push_back(per_call);
        if (reset) reset();
    }
    return t;
}

ResultLine bench_line(const char* engine, const std::string& op, long long bytes, const std::vector<double>& seconds,
                      int iters, int reps) {
    ResultLine line;
    line.add("engine", engine).add("op", op).add("P", world().size).add("bytes", bytes);
    line.add("seconds", median(seconds)).add("spread", relative_spread(seconds)).add("iters", iters).add("reps", reps);
    return line;
}

// ---------------------------------------------------------------- main

void print_result(const ResultLine& line) {
    if (world().rank != 0) return;
    std::printf("%s\n", line.text().c_str());
    std::fflush(stdout);
}

namespace {

int dispatch(const std::vector<std::string>& args, const char* usage, const std::map<std::string, Command>& commands) {
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        if (world().rank == 0) std::printf("%s", usage);
        return args.empty() ? 2 : 0;
    }
    const auto c = commands.find(args[0]);
    if (c == commands.end()) {
        std::vector<std::string> names;
        for (const auto& [name, fn] : commands) names.push_back(name);
        throw Usage("unknown command '" + args[0] + "': use " + alternatives(names) + " (--help)");
    }
    return c->second(std::vector<std::string>(args.begin() + 1, args.end()));
}

}  // namespace

int program_main(int argc, char** argv, const char* program, const char* usage,
                 const std::map<std::string, Command>& commands, const std::function<void()>& before_finalize) {
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        std::fprintf(stderr, "%s: MPI_Init failed\n", program);
        return 3;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_world.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_world.size);
    int rc = 0;
    try {
        rc = dispatch(std::vector<std::string>(argv + 1, argv + argc), usage, commands);
    } catch (const Usage& e) {
        // Every rank parses the same words and finds the same mistake: rank 0 says it.
        if (g_world.rank == 0) std::fprintf(stderr, "%s: %s\n", program, e.what());
        rc = 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s (rank %d): error: %s\n", program, g_world.rank, e.what());
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (before_finalize) before_finalize();
    MPI_Finalize();
    return rc;
}

}  // namespace mml::lab12
