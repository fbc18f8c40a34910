// The stage contract and the registry that binds every stage's two versions.
//
// A stage is one way of computing C = A*B (A M x K, B K x N, C M x N, float32,
// row-major, any M, N, K >= 1). Each stage has the student's version (from
// labs/) and the reference (from solutions/); the harness and the tests look
// both up here by name, so they can run side by side in one run.
//
// Each lab registers its stages in harness/stages/labN/stages.cpp with a
// static Registrar; which labs exist, their kind (CPU or GPU) and their demo
// stages are in the lab catalog (labs/catalog.txt, harness/catalog.h).
// Nothing else in the harness changes when a lab is added.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cpu/error_bound.h"
#include "cpu/matrix.h"
#include "cpu/rounding.h"

namespace mml {

struct Options;  // harness/cli.h
struct Job;      // harness/bench.h

enum class Device { Cpu, Gpu };
enum class Impl { Student, Reference };
const char* impl_name(Impl impl);

// Run-time knobs a stage may read: thread count and named integer parameters
// (block sizes, grid sizes...), set with --threads and --param name=value.
struct StageParams {
    int threads = 1;
    std::map<std::string, long long> values;
    long long get(const std::string& name, long long fallback) const;
};

// One implementation. CPU stages get host pointers. GPU stages get device
// pointers and only launch work on the default stream; the harness times it
// with CUDA events, synchronises and checks for errors.
using MatmulFn = std::function<void(const float* A, const float* B, float* C, Shape s,
                                    const StageParams& p)>;

// Most student and reference functions have one of these two plain
// signatures; from_plain / from_threaded adapt them to MatmulFn.
using PlainMatmul = void (*)(const float* A, const float* B, float* C, std::int64_t M,
                             std::int64_t N, std::int64_t K);
using ThreadedMatmul = void (*)(const float* A, const float* B, float* C, std::int64_t M,
                                std::int64_t N, std::int64_t K, int threads);
MatmulFn from_plain(PlainMatmul fn);
MatmulFn from_threaded(ThreadedMatmul fn);

struct Stage {
    std::string name;     // "lab1.ijk": the lab, a dot, a short name
    int lab = 0;
    Device device = Device::Cpu;
    std::string summary;  // one line for `mmlab list`
    MatmulFn student;     // empty for peer rows the student does not write (OpenBLAS, cuBLAS) and
                          // for reference-only comparison rows (lab 7's naive and volkov_stream_a)
    // The reference solution's version, or a peer row's library call. A lab's
    // reference is bound by name from harness/stages/labN/references.cpp
    // (ReferenceRegistrar below), the only files that include solutions/: a
    // build without the answers (the grader's, NO_REFERENCE=1) leaves them
    // out, and this stays empty ("the reference is not in this build"); a
    // reference-only row then has no version at all, and says so when asked.
    MatmulFn reference;
    bool threaded = false;  // reads StageParams::threads (used for % of peak)
    // The handout's task that writes the student's version ("task 2", "tasks 1
    // and 2"): an untouched starter's failure names it (not_written_message).
    std::string task;
    // The tolerance of the check, from the algorithm's error analysis. It may
    // depend on the stage's parameters (a summation split into GS*BS parts,
    // a recursion cutoff...). Default: the classical gamma_K bound.
    std::function<ErrorBound(Shape, const StageParams&)> bound =
        [](Shape s, const StageParams&) { return classical_bound(s); };
    // Largest M*N*K the harness runs by default (slow teaching stages set one,
    // e.g. the column-walking loop orders); 0 = no limit. --force overrides.
    double max_macs = 0;
    // Rejects parameters the stage cannot use (a block size of 0...) by
    // throwing mml::UsageError (harness/cli.h); the harness calls it before it
    // prints or runs anything, so bad --param values get the one-line error.
    // Empty = any parameters are fine.
    std::function<void(const StageParams&)> check_params;
    // The --param names the stage reads. A run given a name that none of its
    // stages reads stops with a one-line error (check_param_names below): a
    // typo such as blok=16 must not quietly time the defaults.
    std::vector<std::string> param_names;
    // Peer rows only (OpenBLAS, cuBLAS): which library ran - its version and
    // the kernel it picked for this machine - printed under the machine
    // header. The peer's speed depends on it: Debian's OpenBLAS chooses its
    // kernel per CPU at run time (on a CPU it does not know, an older one).
    // Empty for the stages written here.
    std::function<std::string()> describe_library;
    // Shapes `make demo` uses for this stage instead of its default size
    // (lab 9's skinny products); empty = the demo's size. --size overrides.
    std::vector<Shape> demo_shapes;
    // Reduced precision (lab 11's tensor-core stages): the format A and B are
    // rounded to (to nearest, cpu/rounding.h) before the products. The check
    // then multiplies the ROUNDED inputs in float64 and judges the result
    // under `bound` (the FP32 accumulation alone: tensor_core_bound), so a
    // wrong kernel fails and a right one never does; the error against the
    // unrounded inputs' product is reported beside it, not judged
    // (CheckResult::error_vs_unrounded). None: the inputs as given.
    InputRounding input_rounding = InputRounding::None;
    // GPU stages: work run before every timed call and NOT timed, on the same
    // device pointers (lab 11: converting A and B to bf16 or TF32, in the
    // layout the kernels read, as a caller of a bf16 GEMM holds them already;
    // the cuBLAS rows get the same). Empty: none.
    MatmulFn prepare;
    // Why this stage cannot run on this machine (lab 11's wgmma: "needs a
    // Hopper GPU, sm_90"; lab5.blis_lib: BLIS not installed, and the install
    // line), or "" when it can: its rows are then skipped with that reason,
    // never faked. Empty function: it runs everywhere.
    std::function<std::string()> unavailable;
    // Which of the stage's code paths a version runs with these parameters,
    // for the table's "kernels" column and the judges (lab 5: its kernel set,
    // "AVX2+FMA" / "AVX-512"); empty = the stage has one. `code_here`: false
    // where the student's code runs in another process (the grader's checker):
    // the hook must not call it then, and says what it can from the parameters.
    std::function<std::string(Impl runs, const StageParams&, bool code_here)> kernel_set;
    int order = 0;        // set by the registry: registration order
};

// A stage of lab `lab` named "lab<lab>.<short_name>", with its one-line
// summary and its two versions (`student` empty for a peer row the student
// does not write); it runs on the lab's kind of device (the catalog's). Every
// other field keeps its default. The lab's registration sets what differs
// (threaded, bound...) on the result before Registry::add.
Stage make_stage(int lab, const std::string& short_name, const std::string& summary, MatmulFn student,
                 MatmulFn reference);

// Throws UsageError when `p` sets a parameter that none of `stages` reads,
// naming the parameters each of them does read.
void check_param_names(const std::vector<const Stage*>& stages, const StageParams& p);

// What the harness measured for one (stage, version, shape).
struct Measurement {
    std::string stage;
    Impl impl = Impl::Reference;
    Impl runs = Impl::Reference;  // the code that ran (the reference under --solution)
    std::string kernel_set;  // Stage::kernel_set's answer ("" where the stage has one path)
    StageParams params;      // the parameters it ran with
    Shape shape;
    int threads = 1;
    double median_seconds = 0;  // median over repetitions (kernel only for GPU)
    // The fastest and slowest repetitions: the row's noise (0 when unknown,
    // e.g. made-up rows). A comparison that the range does not settle is no verdict.
    double fastest_seconds = 0;
    double slowest_seconds = 0;
    int repetitions = 0;
    long long iterations = 0;   // per repetition
    double gflops = 0;
    double percent_of_peak = 0; // <0 when unknown
    // Above this % of peak the row cannot have run as the peak was measured
    // (cpu/peak.h, peak_tolerance: 100 % plus the peak's own best-to-second gap);
    // 0 when not checked (GPU rows, rows without a measured peak).
    double peak_ceiling_percent = 0;
    // The measured FMA peaks on the row's threads and on one thread (0: not
    // measured): a threaded peak below the 1-thread one was measured while
    // other programs held cores, and no % peak or verdict may rest on it.
    double peak_gflops = 0;
    double peak_gflops_one_thread = 0;
    // Why the peak on the row's threads cannot be trusted ("" when it can:
    // cpu/peak.h, PeakSpread::unsure): no verdict rests on such a row.
    std::string peak_unsure;
    // The SIMD level that peak was measured with ("AVX-512"; "" where not
    // measured): the verdicts name it from the row, not from this machine.
    std::string peak_simd;
    double speedup_vs_baseline = 0;  // 0 when the baseline was not run
    // Where the baseline was too slow to run at this shape (Lab::baseline_limit_macs):
    // the shape it was timed at, its time scaled by M*N*K to this one; {0,0,0} when
    // speedup_vs_baseline is a measured one.
    Shape baseline_scaled_from{0, 0, 0};
    // The speedup over the previous lab's best stage (Lab::previous_best, its
    // reference) at the same shape, and that stage's name; 0 / "" where not run.
    double speedup_vs_previous = 0;
    std::string previous_best;
    bool passed = false;
    double worst_ratio = 0;     // error / bound at the worst entry
    double max_abs_error = 0;
    double error_vs_unrounded = -1;  // reduced-precision stages: CheckResult::error_vs_unrounded
    std::string check_method;
    std::string failure;
    bool skipped = false;
    std::string skip_reason;
};

struct TargetVerdict {
    bool met = false;
    std::string explanation;  // one or two lines: what was compared, the numbers
    // Not met, but the timings cannot tell: the machine was busy (its load
    // average above its cores, or the reference missing its own target in
    // the same run). Printed INCONCLUSIVE with the reason and what to do,
    // never NOT MET. `speed`: the verdict rests on timings (a wrong result
    // does not, and stays NOT MET on any machine).
    bool inconclusive = false;
    bool speed = true;
    // The same run shows the miss is the code's: the reference met this same
    // target in it, on a comparison load hits alike (lab 1: the orders' gain;
    // lab 5: and the code trails it, or runs under half its speed). The
    // machine could, busy or not, so the miss stays NOT MET: settle() does not
    // turn it INCONCLUSIVE for the load average ("the gap is in your code" and
    // "the machine was busy" must never be printed together).
    bool code_gap_shown = false;
};

// What a lab does beyond its catalog line (labs/catalog.txt: number, kind,
// suites, demo stages, title): its default sizes, its target and its judge.
struct Lab {
    int number = 0;
    std::vector<Shape> default_shapes;  // what `make labN` times
    std::string target;                 // the goal in words, printed with the verdict
    std::function<TargetVerdict(const std::vector<Measurement>&)> judge;
    // Whether `mmlab lab N` also times the baseline (the reference lab1.ijk,
    // for the x ijk column) at the shapes within its limit: off where the
    // judge does not use it and it would be most of the run (lab1.ijk at
    // 1024^3 took 60 of lab 5's 84 s on 2 cores: labs 3-5 time it at 512^3
    // instead, baseline_limit_macs below).
    bool baseline = true;
    // Above this many multiply-adds (0: the baseline's own limit, no scaling)
    // the baseline runs at the shape halved until within it, and the x ijk
    // column scales its time by M*N*K: said under the table as an
    // extrapolation (the triple loop only slows further at larger n).
    double baseline_limit_macs = 0;
    // The previous lab's best stage (its reference), timed beside this lab's
    // rows at the same shapes for the "x prev" column: how far this lab took
    // the course beyond it. Empty: no column.
    std::string previous_best;
    // A lab that is not a table of stages (lab 10: performance models) runs
    // its own report: when set, `mmlab lab N` calls it instead of timing the
    // lab's stages; it prints its own target and verdict and returns the exit code.
    std::function<int(const Options&)> run;
    // Rows the judge needs beyond the stages x shapes (lab 5: lab5.blis on the
    // AVX2 kernels where the CPU has AVX-512, the same-width bar); it appends
    // jobs, given the run's --param values. Empty = none.
    std::function<void(std::vector<Job>&, const StageParams&)> add_jobs;
};

class Registry {
public:
    static Registry& instance();
    void add(Stage stage);
    void add_lab(Lab lab);
    // The reference version of the stage named `stage_name` (which may be
    // registered before or after this call: static objects of different files
    // are built in no fixed order). An unknown name stops the program.
    void add_reference(const std::string& stage_name, MatmulFn fn);
    // True when this build holds the reference solutions (not a grading build).
    bool has_references() const;
    // The grader's checker (harness/runner/checker.cpp, linked only into the
    // checker programs) replaces the versions of every stage by calls into a
    // runner process. Set during static initialisation; each stage goes
    // through `rewrite` once, when it is first looked up.
    void set_version_rewriter(std::function<void(Stage&)> rewrite);

    const Stage* find(const std::string& name) const;  // nullptr if unknown
    const Lab* find_lab(int number) const;
    std::vector<const Stage*> stages() const;           // sorted by lab, then order
    std::vector<const Stage*> stages_of_lab(int lab) const;
    std::vector<const Lab*> labs() const;

private:
    void bind_references() const;  // attaches the pending references to their stages
    mutable std::vector<Stage> stages_;
    std::vector<Lab> labs_;
    mutable std::vector<std::pair<std::string, MatmulFn>> pending_references_;
    bool any_reference_ = false;
    std::function<void(Stage&)> rewrite_;
    mutable std::vector<std::string> rewritten_;  // the stages `rewrite_` has seen
};

// Static registration: `static mml::Registrar r([](mml::Registry& reg) {...});`
struct Registrar {
    explicit Registrar(const std::function<void(Registry&)>& fn) { fn(Registry::instance()); }
};

// A reference version, bound by stage name, in harness/stages/labN/references.cpp:
//   static mml::ReferenceRegistrar r("lab1.ijk", from_plain(reference::lab1::matmul_ijk));
struct ReferenceRegistrar {
    ReferenceRegistrar(const std::string& stage_name, MatmulFn fn) {
        Registry::instance().add_reference(stage_name, std::move(fn));
    }
};

// The stage every speedup is measured against: the reference triple loop.
constexpr const char* kBaselineStage = "lab1.ijk";
// Where a lab's shapes are too large for the triple loop (Lab::baseline_limit_macs),
// the largest it is timed at: 512^3, lab 1's judged size, under a second a call.
constexpr double kBaselineScaledMacs = 512.0 * 512.0 * 512.0;

}  // namespace mml
