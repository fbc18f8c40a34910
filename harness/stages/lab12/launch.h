// How mmlab starts lab 12's MPI programs: build/bin/mmlab-mpi (CPU) and
// build/bin/mmlab-nccl (GPU), beside mmlab, through mpirun. mmlab itself is
// not an MPI program; the programs answer with RESULT lines (protocol.h).
//
// The programs hold the student's code, so every start is a call on the
// student's side (harness/student_side.h, "lab12.launch"): here in one
// process; in the grader's checker, in the student's runner inside the
// sandbox (where the programs are the student's, built beside the runner),
// and only the output and the products come back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/stages/lab12/protocol.h"

namespace mml::lab12 {

// The program `name` in the folder of the running mmlab (or of $MMLAB, for the tests).
std::string program_path(const std::string& name);
// mpirun: $MML_MPIRUN when set, else the first on PATH (or in /usr/bin...); "" when there is none.
std::string find_mpirun();

// Why the CPU (mmlab-mpi) or GPU (mmlab-nccl) part of lab 12 cannot run
// here, in one line that names what to install; "" when it can. The GPU one
// does not look for a GPU (the program says so itself when it has none).
std::string mpi_missing();
std::string nccl_missing();

struct Launch {
    int exit_code = -1;          // the program's (124: killed at the time limit)
    std::string output;          // stdout and stderr
    std::string command;         // what was run, for messages
    std::vector<Fields> results; // its RESULT lines
    // The program's own error line(s): its output without RESULT lines and
    // without mpirun's boilerplate, trimmed to a few lines.
    std::string error() const;
};

// mpirun -np P [--oversubscribe] [--allow-run-as-root when root] PROGRAM ARGS,
// with at most `limit_s` seconds (coreutils timeout). Oversubscription lets
// P exceed the cores (the tests run 4 processes on 2 cores); NCCL runs get
// NCCL_NVLS_ENABLE=0 unless the environment sets it (the shared GPU machines
// require NVLink multicast off; these broadcasts do not need it). Root is
// decided where mpirun runs: the grader's sandbox runs it as an unprivileged
// user, so there it never gets --allow-run-as-root.
Launch launch(const std::string& program, int np, const std::vector<std::string>& args, int limit_s = 600);

// launch() of `program gemm ...` with "--seed SEED --c-out DIR" added (DIR a
// fresh folder of the side that runs it, removed after): also every product
// rank 0 wrote, raw (M x N float32 each, in --size order; a missing one ends
// the list), for the caller to check against its own A and B
// (shape_seed(seed, i)): what the program says about its own check is the
// student's side's word, the caller's check is not.
struct ProductRun {
    Launch run;
    std::vector<std::string> products;
};
ProductRun launch_with_products(const std::string& program, int np, const std::vector<std::string>& args,
                                std::uint64_t seed, int limit_s = 600);

// The CPUs this process may run on (its affinity: taskset, a cpuset), which
// the processes mpirun starts inherit (for "oversubscribed" notes and the model).
int cores_here();

}  // namespace mml::lab12
