// Work that must run where the student's code may run: starting a program
// that holds it (lab 12's MPI programs, build/bin/mmlab-mpi and mmlab-nccl),
// or reading a value only the student's files hold (lab 3's kYourCutoff, the
// call "lab3.your_cutoff" in harness/stages/lab3/stages.cpp: the checker is
// built with the starter's labs/lab3/strassen.h).
//
// In one process (make labN, mmlab, mmlab-tests) a call runs here. In the
// grader's checker, which must never run student code itself, it is sent to
// the student's runner, inside the sandbox, and only its result comes back
// (harness/runner/checker.cpp installs that forwarding; protocol.h, "call").
// Whatever comes back is data from the student's side: the caller checks it
// (lab 12's tests verify every product against their own float64 one).
//
// A call is registered by name at static initialisation, like a stage, by the
// code that knows how to do it (harness/stages/lab12/launch.cpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace mml {

struct SideCallResult {
    int status = 0;                  // e.g. a program's exit code
    std::string text;                // e.g. its output
    std::vector<std::string> blobs;  // raw bytes (the products a program wrote)
};
// Words are what the call needs; sent to a runner they must be printable
// ASCII without spaces (lab 12's command lines are).
using SideCall = std::function<SideCallResult(const std::vector<std::string>& words)>;

struct SideCallRegistrar {
    SideCallRegistrar(const char* name, SideCall fn);
};

// Runs call `name`: here, or through the forwarder when one is installed.
// Throws std::invalid_argument for a name nobody registered (here).
SideCallResult call_student_side(const std::string& name, const std::vector<std::string>& words);
// Runs it in this process whatever is installed (the runner's side of a forwarded call).
SideCallResult call_here(const std::string& name, const std::vector<std::string>& words);

using SideCallForwarder = std::function<SideCallResult(const std::string& name, const std::vector<std::string>& words)>;
void set_student_side_forwarder(SideCallForwarder f);

}  // namespace mml
