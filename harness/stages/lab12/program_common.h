// What lab 12's two MPI programs (build/bin/mmlab-mpi: program_mpi.cpp,
// build/bin/mmlab-nccl: program_nccl.cu) do alike, in one place: main()
// around MPI, the options of `gemm` and `bench` both take, the per-shape
// set-up (grid, blocks, inputs made on rank 0), the check on rank 0 and the
// RESULT line. Each program keeps only its engine: how its ranks hold the
// blocks, run the product and time it, and which collectives `bench` times.
// Only the MPI programs include this (definitions in program_common_mpi.cpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/error_bound.h"
#include "cpu/matrix.h"
#include "harness/stages/lab12/protocol.h"
#include "labs/common/lab12_grid.h"

namespace mml::lab12 {

// Bad input: program_main prints it as one line from rank 0 and exits 2.
struct Usage : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// This process in MPI_COMM_WORLD (set by program_main after MPI_Init).
struct World {
    int rank = 0;
    int size = 1;
};
const World& world();

// A value in [lo, hi] for `flag`, or Usage naming the flag.
long long whole_number(const std::string& text, const std::string& flag, long long lo, long long hi);
// "a,b,c" -> {a, b, c}; an empty item is a Usage error.
std::vector<std::string> split(const std::string& text, const std::string& flag);
// Usage unless `value` is one of `allowed` ("--flag x: use a, b or c").
void require_one_of(const std::string& flag, const std::string& value, const std::vector<std::string>& allowed);

// ---------------------------------------------------------------- gemm

// The options of `gemm` that both programs take.
struct GemmArgs {
    std::string algo;                 // one of the program's algorithms
    bool reference = true;            // --impl reference (default) or student
    std::vector<Shape> shapes;
    bool grid_given = false;
    Grid grid;
    std::int64_t panel = 0;           // --panel W (0: the program's default)
    int reps = 3, warmup = 1;
    bool seed_given = false;
    std::uint64_t seed = 0;
    bool check = true;                // --no-check: timing only
    std::string c_out;                // --c-out DIR: rank 0 writes each product there (protocol.h, write_product)
    bool fault_layout = false;        // --fault rank-layout (a test hook)
};

// Whether rank 0 needs the whole C gathered: to check it, or to write it out.
inline bool gathers_c(const GemmArgs& g) { return g.check || !g.c_out.empty(); }

// The program's own options: called with each flag the shared ones do not
// know and a way to take its value; returns false for a flag it does not know.
using OwnOption = std::function<bool(const std::string& flag, const std::function<std::string()>& value)>;

// Parses `args` into g (whose fields hold the program's defaults): the shared
// options, `algos` the values --algo takes, then own() for the rest. Checks
// what holds for both programs: --grid only with summa, and R*C = P.
void parse_gemm_args(const std::vector<std::string>& args, const std::vector<std::string>& algos, GemmArgs& g,
                     const OwnOption& own);

// One shape of a gemm run, set up alike on every rank.
struct ShapeRun {
    std::size_t index = 0;            // in GemmArgs::shapes
    Shape shape;
    Grid grid;
    std::vector<Layout> layouts;      // every rank's blocks (handed out by this numbering)
    Layout mine;                      // what this rank's algorithm is told (--fault: another numbering)
    std::uint64_t seed = 0;           // this shape's inputs' seed (the same on every rank)
    Matrix A, B, C;                   // rank 0 only: the inputs, and C gathered for the check
};

// What the engine measured for one shape.
struct Measured {
    std::vector<double> seconds;      // the timed repetitions (slowest rank's)
    long long steps = 1;              // SUMMA's panels, 1 otherwise
    ResultLine fields;                // the engine's own RESULT fields (comm time, device, ...)
};

// The gemm command's frame: agrees on a seed, then per shape: the grid
// (grid_of: rows -> P x 1, a one-process algorithm -> 1 x 1, else --grid or
// best_grid), the blocks, A and B made on rank 0; engine() hands out the
// blocks, runs and times the product and gathers C into run.C on rank 0
// (when g.check); rank 0 checks C against the float64 product under
// bound(shape) and prints the RESULT line. Returns 0 when every check passed,
// 1 when one failed, the same on every rank.
struct GemmEngine {
    const char* name;                                       // "mpi", "nccl": the RESULT line's engine
    std::function<Grid(const GemmArgs&, Shape)> grid_of;
    std::function<Measured(ShapeRun&)> run;
    std::function<ErrorBound(Shape)> bound;
};
int run_gemm(const GemmArgs& g, const GemmEngine& engine);

// The grid of the algorithms both programs have: rows -> P x 1; `single`
// (an algorithm on one process) -> 1 x 1; else --grid, or the grid that
// moves the least data.
Grid shared_grid(const GemmArgs& g, Shape s, bool single);

// ---------------------------------------------------------------- bench

struct BenchArgs {
    std::vector<long long> bytes;               // message sizes
    std::vector<std::string> ops = {"bcast", "allreduce"};
    int reps = 5;
};
// --bytes LIST (each 4 .. max_bytes), --ops bcast,allreduce, --reps R.
BenchArgs parse_bench_args(const std::vector<std::string>& args, std::vector<long long> default_bytes,
                           long long max_bytes);

// Back-to-back calls per repetition: enough that `budget_bytes` move, at
// least 1 and at most 200 (well above the clock's resolution for small ones).
int calls_per_rep(long long bytes, long long budget_bytes);

// One collective's time per call: a warm-up repetition, then `reps`; each
// runs call(i) for i < iters between a barrier and finish() (whatever makes
// the calls complete), and counts the slowest rank's time / iters.
// reset() runs after each repetition, untimed (fresh data).
std::vector<double> time_collective(int reps, int iters, const std::function<void(int)>& call,
                                    const std::function<void()>& finish, const std::function<void()>& reset = nullptr);

// A bench RESULT line's shared fields (the engine adds its own, then prints).
ResultLine bench_line(const char* engine, const std::string& op, long long bytes, const std::vector<double>& seconds,
                      int iters, int reps);

// ---------------------------------------------------------------- main

// A RESULT line on rank 0's stdout, flushed (mmlab reads them as they come).
void print_result(const ResultLine& line);

// main() of an MPI program: MPI_Init (errors returned, not fatal), then the
// command args[0] of `commands` with the rest of the words; --help prints
// `usage`. A Usage error: one line from rank 0, exit 2; any other error:
// that rank's line and MPI_Abort; before_finalize() runs before
// MPI_Finalize (the NCCL communicator).
using Command = std::function<int(const std::vector<std::string>&)>;
int program_main(int argc, char** argv, const char* program, const char* usage,
                 const std::map<std::string, Command>& commands, const std::function<void()>& before_finalize = nullptr);

}  // namespace mml::lab12
