// Command-line parsing for mmlab. Every malformed or impossible request
// becomes a UsageError: main() prints its one line and exits with code 2.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/stage.h"

namespace mml {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class ImplChoice { Student, Reference, Both };

struct Options {
    std::string command;               // the core command these options are for (run, lab, demo...)
    std::vector<std::string> stages;   // --stage
    int lab = 0;                       // --lab N, or `lab N`
    std::vector<Shape> shapes;         // --size
    ImplChoice impl = ImplChoice::Reference;
    bool impl_given = false;
    bool solution = false;             // --solution: reference in the student's place
    int threads = 1;
    bool threads_given = false;
    int reps = 0;                      // 0 = automatic
    StageParams params;                // --param k=v
    std::string json_path;             // --json FILE
    bool force = false;                // run stages past their max_macs
    bool quiet = false;                // no progress on stderr
    bool no_baseline = false;          // --no-baseline (run only): no lab1.ijk row
    bool flush_l2 = false;             // --l2 flush: cold L2 before each timed GPU run
    bool wide = false;                 // --wide (demo only): the full table and notes, not the slide
    std::vector<std::string> rest;     // positional words after the command
};

// The flags of the core commands (run, lab, demo, list, machine, peak): the
// words after the command name. Unknown flags and stray words: UsageError.
Options parse_options(const std::string& command, const std::vector<std::string>& args);
// Their help, for `mmlab --help` (harness/commands.h puts the commands around it).
std::string shared_options_text();

// "512", "512,1024", "300x200x100" (M x N x K), comma-separated; the names
// of Lei et al. 2024's skinny shapes (MTXA, MTXB, MTXC, MTX1, MTX2, MTX3) too.
std::vector<Shape> parse_shapes(const std::string& text);
// The shape of one of those names (any case); false if it is not one.
bool shape_by_name(const std::string& name, Shape& shape);
// "mc=96,kc=256": the name=value pairs of --param (whole numbers).
StageParams parse_param_list(const std::string& text);
// A whole number in [lo, hi]; `what` names the flag in the error.
long long parse_integer(const std::string& text, const std::string& what, long long lo, long long hi);
// "a,b,c" -> {a, b, c}; an empty list or item ("10,", "1,,2") is a usage
// error that names `what` (the flag): a typo must not shorten the list.
std::vector<std::string> split_list(const std::string& text, const std::string& what);
// "1,2,4": comma-separated whole numbers, each in [lo, hi]; at least one.
std::vector<long long> parse_integer_list(const std::string& text, const std::string& what, long long lo,
                                          long long hi);
// The --impl of an extra command that runs one version: "student" or "reference".
Impl parse_impl(const std::string& text);
// The stage of that name; unknown names are a UsageError that points at `mmlab list`.
// (A string_view, not a const std::string&: g++ 13 warns that the reference
// returned may dangle when a caller's literal became a temporary string.)
const Stage& stage_or_error(std::string_view name);
// The lab of that number; one not in the catalog, or a GPU lab in a build
// without CUDA, is a UsageError that says which (harness/commands/lab.cpp).
const Lab& lab_or_error(int number);
// The stages of lab `number` that a table times (run --lab, demo --lab); a
// lab with none of its own (lab 10: models and commands) is a UsageError
// that points at `mmlab lab N` (harness/commands/lab.cpp).
std::vector<const Stage*> timed_stages_of_lab(int number);

// The words after an extra command's name (harness/commands.h), read in
// order: while (a.next(flag)) { if (flag == "--size") v = a.value(flag); ...
// else a.unknown(flag); } - a missing value or an unknown flag is a
// UsageError that names the command's --help.
struct CommandArgs {
    CommandArgs(const std::vector<std::string>& a, const char* cmd) : args(a), command(cmd) {}
    std::vector<std::string> args;
    std::string command;
    std::size_t i = 0;
    bool next(std::string& flag) {
        if (i >= args.size()) return false;
        flag = args[i++];
        return true;
    }
    std::string value(const std::string& flag) {
        if (i >= args.size()) throw UsageError(flag + " needs a value; see 'mmlab " + command + " --help'");
        return args[i++];
    }
    [[noreturn]] void unknown(const std::string& flag) const {
        throw UsageError("unknown option '" + flag + "' for " + command + "; see 'mmlab " + command + " --help'");
    }
};

// Bytes of host memory available now (MemAvailable in /proc/meminfo; 8 GB
// when it cannot be read, so an unknown machine is treated as a small one).
double available_memory_bytes();
// Throws UsageError when A, B and C (and, on the CPU, the float64 check)
// cannot fit in the memory this machine has available.
void check_fits_in_memory(Shape s, Device device);

}  // namespace mml
