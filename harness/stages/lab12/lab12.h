// Lab 12's harness side, shared by its commands (one file each: mpi_gemm.cpp,
// nccl_gemm.cpp, comm_bench.cpp, abg_model_cmd.cpp) and its report
// (stages.cpp, `mmlab lab 12`). Every measurement comes from the MPI programs
// (launch.h): mmlab runs them and prints their RESULT lines as tables.
#pragma once

#include <string>
#include <vector>

#include "cpu/matrix.h"
#include "harness/stage.h"
#include "harness/stages/lab12/launch.h"
#include "harness/stages/lab12/protocol.h"

namespace mml::lab12 {

// ---------------------------------------------------------------- CPU: mmlab-mpi gemm
struct MpiRequest {
    std::vector<std::string> algos = {"rows", "summa"};
    std::vector<int> nps = {1, 2, 4};
    std::vector<Shape> shapes = {{2048, 2048, 2048}};
    std::vector<std::string> impls = {"reference"};
    std::string grid;         // "" = the program's choice
    long long panel = 0;
    std::string local;        // "" = the program's default (lab 5's kernel)
    int threads = 1;          // per process
    int reps = 3;
    bool baseline = true;     // lab 5's kernel alone on one process, per shape
    bool quiet = false;       // no progress lines on stderr
    std::string save;         // append each launch's RESULT lines to this file as it ends ("" = none)
};
struct Table {
    std::vector<Fields> rows;          // RESULT lines, in the order run
    std::vector<std::string> errors;   // launches that printed no result, and why
    std::vector<std::string> notes;    // versions not in this build (the reference, in a student release)
    int wrong = 0;                     // rows whose check failed
};
Table run_mpi(const MpiRequest& r);
// The table: time, GFLOP/s, speedup and parallel efficiency over the local
// row of the same shape, share of time in collectives, the check.
void print_mpi(const Table& t);
// Parallel efficiency of a row against the local (or single-GPU cuBLAS) row
// of the same shape in `rows`: T1 / (P * TP); < 0 when there is none.
double efficiency_of(const Fields& row, const std::vector<Fields>& rows, const std::string& baseline_algo);
// A SUMMA miss judged against the reference's SUMMA in the same run (its
// efficiency ref_eff; ref_is_yours under SOLUTION=1): when that misses too,
// the machine is busy and the verdict INCONCLUSIVE, else the gap is the
// code's. Verdicts met, not about speed, or without a reference row stay.
TargetVerdict settle_summa(TargetVerdict v, const double* ref_eff, bool ref_is_yours);
// Lab 12's verdict from the CPU table alone (the tests give it made-up rows):
// every run of `impl` ("student", or "reference" under SOLUTION=1) correct;
// its SUMMA on 4 processes at `largest` receiving per rank (the RESULT field
// comm_bytes_per_rank) no more than SUMMA needs on that row's grid
// (summa_received_elements: a count, NOT MET on any machine when above);
// its SUMMA on 2 processes at `largest` >= 85 % efficient, judged at 2048^3
// and up, on 2 cores or more (`cores`), settled by settle_summa.
TargetVerdict decide_summa(const Table& cpu, const std::string& impl, Shape largest, int cores);
// The first row with these fields (nullptr if none).
const Fields* find_result(const std::vector<Fields>& rows, const std::vector<std::pair<std::string, std::string>>& match);

// ---------------------------------------------------------------- GPU: mmlab-nccl gemm
struct NcclRequest {
    std::vector<std::string> algos = {"summa"};
    std::vector<int> nps = {1};
    std::vector<Shape> shapes = {{8192, 8192, 8192}};
    std::vector<std::string> impls = {"reference"};
    std::vector<std::string> precisions = {"fp32"};
    std::vector<std::string> tiles = {"cublas"};
    std::vector<std::string> overlaps = {"on"};
    std::vector<std::string> transports = {"nccl"};  // how SUMMA's panels move: nccl, copy
    std::string grid;
    long long panel = 0;      // 0: the program's default (model::default_gpu_panel)
    bool always_broadcast = false;  // broadcasts even along rows/columns of one process
    int reps = 5;
    bool peers = true;        // cuBLAS on one GPU (full and per-GPU size) and cublasXt
    bool quiet = false;
    std::string save;         // append each launch's RESULT lines to this file as it ends ("" = none)
};
Table run_nccl(const NcclRequest& r);
void print_nccl(const Table& t);

// ---------------------------------------------------------------- broadcasts and allreduces
// mmlab-mpi bench / mmlab-nccl bench on `np` processes; error says why not.
std::vector<Fields> run_comm_bench(const std::string& engine, int np, const std::vector<long long>& bytes, int reps,
                                   std::string& error);
void print_comm_bench(const std::vector<Fields>& rows);

// ---------------------------------------------------------------- shared by mpi-gemm and nccl-gemm (gemm_runs.cpp)
// "2048,300x200x100": the programs' --size value.
std::string size_list(const std::vector<Shape>& shapes);
// A launch's RESULT lines into t (and appended to `save` where given); a
// launch that printed none, or failed otherwise than a check, into t.errors
// (into t.notes where the reference is not in this build).
void add_launch(Table& t, const Launch& l, const std::string& what, const std::string& save);
// The commands' flags read alike; bad values are UsageError.
std::vector<Shape> sizes_flag(const std::string& value);        // --size LIST
std::vector<std::string> impl_flag(const std::string& value);   // --impl student|reference|both
void check_grid_flag(const std::string& grid, const std::vector<int>& nps);  // --grid RxC against every --np

// "2048^3" / "300x200x100" for a RESULT row.
std::string row_shape(const Fields& f);
Shape shape_of(const Fields& f);
// A percentage or "-" (negative = unknown).
std::string percent(double fraction);

}  // namespace mml::lab12
