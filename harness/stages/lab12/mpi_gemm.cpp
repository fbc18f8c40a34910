// mmlab mpi-gemm: lab 12's CPU algorithms (1-D rows, SUMMA) on P MPI
// processes of this machine, beside lab 5's kernel on one process.
#include <cstdio>
#include <cmath>

#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/report.h"
#include "harness/stages/lab12/lab12.h"
#include "labs/common/lab12_grid.h"
#include "harness/targets.h"

namespace mml::lab12 {

namespace {

std::string join_ints(const std::vector<int>& v) {
    std::string s;
    for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
    return s;
}

}  // namespace

Table run_mpi(const MpiRequest& r) {
    Table t;
    const std::string sizes = size_list(r.shapes);
    auto common = [&](std::vector<std::string> a) {
        a.insert(a.end(), {"--size", sizes, "--reps", std::to_string(r.reps), "--threads", std::to_string(r.threads)});
        if (!r.local.empty()) a.insert(a.end(), {"--local", r.local});
        return a;
    };
    if (r.baseline) {
        if (!r.quiet) std::fprintf(stderr, "  mpirun -np 1 mmlab-mpi gemm --algo local --size %s\n", sizes.c_str());
        add_launch(t, launch("mmlab-mpi", 1, common({"gemm", "--algo", "local"})), "lab 5's kernel on one process", r.save);
    }
    for (const std::string& algo : r.algos)
        for (int P : r.nps)
            for (const std::string& impl : r.impls) {
                std::vector<std::string> a = common({"gemm", "--algo", algo, "--impl", impl});
                if (algo == "summa" && !r.grid.empty()) a.insert(a.end(), {"--grid", r.grid});
                if (algo == "summa" && r.panel > 0) a.insert(a.end(), {"--panel", std::to_string(r.panel)});
                if (!r.quiet)
                    std::fprintf(stderr, "  mpirun -np %d mmlab-mpi gemm --algo %s --impl %s --size %s\n", P,
                                 algo.c_str(), impl.c_str(), sizes.c_str());
                add_launch(t, launch("mmlab-mpi", P, a), algo + " (" + impl + ") on " + std::to_string(P) + " processes", r.save);
            }
    return t;
}

void print_mpi(const Table& t) {
    const int cores = cores_here();
    std::printf("%-6s %-10s %3s %-5s %-14s %10s %9s %8s %10s %7s  %s\n", "algo", "impl", "P", "grid", "shape", "time",
                "GFLOP/s", "speedup", "efficiency", "comm", "check (error / bound)");
    bool oversubscribed = false;
    for (const Fields& f : t.rows) {
        const double eff = field(f, "algo") == "local" ? -1 : efficiency_of(f, t.rows, "local");
        const int P = static_cast<int>(number(f, "P", 1));
        const bool over = P * number(f, "threads", 1) > cores;
        oversubscribed |= over;
        std::string check = field(f, "check");
        const bool wrong = check == "WRONG";  // a wrong product's speed means nothing
        if (check == "ok") check += " (" + fixed(number(f, "worst_ratio"), 3) + ")";
        if (wrong) check += ": " + field(f, "failure");
        const bool local = field(f, "algo") == "local";
        std::printf("%-6s %-10s %3d %-5s %-14s %10s %9s %8s %10s %7s  %s%s\n", field(f, "algo").c_str(),
                    local ? "-" : field(f, "impl").c_str(), P, field(f, "grid").c_str(), row_shape(f).c_str(),
                    wrong ? "-" : format_seconds(number(f, "seconds")).c_str(),
                    wrong ? "-" : fixed(number(f, "gflops"), 1).c_str(),
                    wrong || eff < 0 ? "-" : fixed(eff * P, 2).c_str(), wrong ? "-" : percent(eff).c_str(),
                    local || wrong ? "-" : percent(number(f, "comm_fraction")).c_str(), check.c_str(),
                    over ? "  [oversubscribed]" : "");
    }
    for (const std::string& n : t.notes) std::printf("%s\n", n.c_str());
    for (const std::string& e : t.errors) std::printf("NOT RUN: %s\n", e.c_str());
    if (!t.rows.empty())
        std::printf("local = the per-process kernel alone on one process (%s); speedup and efficiency are over T1, "
                    "the fastest one-process run of that kernel (this row, or the reference's on one process, where nothing "
                    "moves): efficiency = T1 / (P x TP).\ncomm = time inside MPI collectives (MPI_Wtime around each), mean over "
                    "ranks, over the product's time.\n",
                    field(t.rows.front(), "local").c_str());
    if (oversubscribed)
        std::printf("[oversubscribed]: more processes than this machine's %d cores - they take turns on the cores, so "
                    "the efficiency falls for that reason alone.\n",
                    cores);
}

namespace {

const char* kUsage = R"(usage: mmlab mpi-gemm [--algo rows,summa] [--np 1,2,4] [--size LIST] [--impl student|reference|both]
                      [--grid RxC] [--panel W] [--local lab5|openblas] [--threads T] [--reps R] [--no-baseline]
                      [--save FILE]
Lab 12's CPU algorithms on P MPI processes of this machine (mpirun -np P --oversubscribe
build/bin/mmlab-mpi), every product checked against the float64 product gathered on rank 0:
  rows    1-D: rows of A and C split, B allgathered, one local product per process
  summa   SUMMA on a process grid (--grid RxC, R*C = P; default: the grid that moves the
          least data), A panels broadcast along process rows, B panels along columns
Every process multiplies with lab 5's BLIS-style GEMM (--local openblas: OpenBLAS) on
--threads threads (default 1). First, per size, lab 5's kernel alone on one process (the
baseline of speedup and efficiency; --no-baseline leaves it out). Defaults: --np 1,2,4,
--size 2048, --impl reference, --reps 3. Time: MPI_Wtime from a barrier to the end of the
slowest rank's product, median of the repetitions; comm: MPI_Wtime around each collective.
--save FILE appends the program's RESULT lines to FILE (mmlab abg-model --measured reads them).
Exit: 0 all correct, 1 a check failed, 2 bad input or MPI missing (the line says what to install).
)";

int mpi_gemm_command(const std::vector<std::string>& args) {
    MpiRequest r;
    CommandArgs a(args, "mpi-gemm");
    for (std::string f; a.next(f);) {
        if (f == "--algo") {
            r.algos = split_list(a.value(f), f);
            for (const std::string& x : r.algos)
                if (x != "rows" && x != "summa") throw UsageError("--algo " + x + ": use rows and/or summa");
        } else if (f == "--np") {
            r.nps.clear();
            for (long long p : parse_integer_list(a.value(f), f, 1, 256)) r.nps.push_back(static_cast<int>(p));
        } else if (f == "--size") {
            r.shapes = sizes_flag(a.value(f));
        } else if (f == "--impl") {
            r.impls = impl_flag(a.value(f));
        } else if (f == "--grid") {
            r.grid = a.value(f);
        } else if (f == "--panel") {
            r.panel = parse_integer(a.value(f), f, 0, 1LL << 40);
        } else if (f == "--local") {
            r.local = a.value(f);
            if (r.local != "lab5" && r.local != "openblas") throw UsageError("--local " + r.local + ": use lab5 or openblas");
        } else if (f == "--threads") {
            r.threads = static_cast<int>(parse_integer(a.value(f), f, 1, 1024));
        } else if (f == "--reps") {
            r.reps = static_cast<int>(parse_integer(a.value(f), f, 1, 1000));
        } else if (f == "--no-baseline") {
            r.baseline = false;
        } else if (f == "--quiet") {
            r.quiet = true;
        } else if (f == "--save") {
            r.save = a.value(f);
        } else {
            a.unknown(f);
        }
    }
    check_grid_flag(r.grid, r.nps);
    for (Shape s : r.shapes) check_fits_in_memory(s, Device::Cpu);
    const std::string missing = mpi_missing();
    if (!missing.empty()) {
        std::printf("mpi-gemm: skipped: %s\n", missing.c_str());
        return 2;
    }
    print_machine_header(false);
    std::printf("\nLab 12, CPU: %s on %s processes (this machine: %d cores)\n",
                r.algos.size() == 2 ? "1-D rows and SUMMA" : r.algos[0].c_str(), join_ints(r.nps).c_str(), cores_here());
    std::fflush(stdout);
    const Table t = run_mpi(r);
    print_mpi(t);
    if (!t.errors.empty()) return 2;
    return t.wrong ? 1 : 0;
}

CommandRegistrar cmd({"mpi-gemm", "lab 12: 1-D and SUMMA on P MPI processes (mpirun), checked, with efficiency and comm share",
                      kUsage, mpi_gemm_command, 12});

}  // namespace
}  // namespace mml::lab12
