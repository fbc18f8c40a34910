// Lab 12 - beyond one processor. Not a table of in-process stages: the
// algorithms run as MPI programs (build/bin/mmlab-mpi on CPUs, mmlab-nccl on
// GPUs, started with mpirun; launch.h), and `mmlab lab 12` (make lab12)
// reports on them:
//   1. 1-D (rows) and SUMMA on P = 1, 2, 4 processes of this machine, yours
//      beside the reference, each checked, with efficiency over lab 5's kernel
//      on one process and the share of time in MPI collectives; the target
//      (decide_summa) judges SUMMA's bytes per rank on 4 processes, a count,
//      and its speed on 2;
//   2. where a GPU and NCCL are: the GPU SUMMA on one GPU, overlap on and
//      off, beside cuBLAS (mmlab nccl-gemm does more);
//   3. the alpha-beta-gamma model: this machine's runs predicted from alpha,
//      beta and gamma measured here, and 1 to 512 GPUs (mmlab abg-model).
// The lab's commands: mpi-gemm, nccl-gemm, comm-bench, abg-model.
#include <cstdio>

#include "cpu/peak.h"
#include "harness/cli.h"
#include "harness/gpu_backend.h"
#include "harness/report.h"
#include "harness/stage.h"
#include "harness/stages/lab12/lab12.h"
#include "harness/stages/lab12/model_report.h"
#include "harness/targets.h"
#include "labs/common/lab12_grid.h"

namespace mml::lab12 {
namespace {

constexpr double kTargetEfficiency = 0.85;
constexpr std::int64_t kJudgedSize = 2048;
// The volume clause compares counts, exact on both sides; the slack only
// covers the RESULT line's 9 significant digits.
constexpr double kVolumeSlack = 1e-8;

const char* kTarget =
    "your rows and SUMMA correct on every run; your SUMMA on 4 processes (a 2x2 grid at 2048^3) receives per rank no "
    "more than SUMMA needs, K*(M/R*(C-1)/C + N/C*(R-1)/R) floats (what the reference receives); your SUMMA on 2 "
    "processes at 2048^3 at >= 85% parallel efficiency over lab 5's kernel on one process (T1 / (2 x T2)), in the "
    "same run";

int run_lab12(const Options& o) {
    if (!o.json_path.empty()) throw UsageError("lab 12 prints tables, not --json: its commands take --csv (mmlab abg-model --help)");
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    const std::string impl = o.solution ? "reference" : "student";
    std::printf("== lab 12: beyond one processor: MPI, SUMMA, NCCL and the alpha-beta-gamma model ==\n");
    if (o.solution) std::printf("SOLUTION=1: the reference runs in the student's place.\n");
    print_machine_header(false);

    // ---- 1. CPUs
    std::printf("\n-- Part 1: 1-D and SUMMA on this machine's CPUs (mpirun -np P --oversubscribe; %d cores) --\n",
                cores_here());
    const std::string missing = mpi_missing();
    TargetVerdict v{false, ""};
    Table cpu;
    if (!missing.empty()) {
        std::printf("skipped: %s\n", missing.c_str());
        v.explanation = "not judged: " + missing;
    } else {
        MpiRequest r;
        r.shapes = o.shapes.empty() ? std::vector<Shape>{{kJudgedSize, kJudgedSize, kJudgedSize}} : o.shapes;
        r.impls = o.solution ? std::vector<std::string>{"reference"} : std::vector<std::string>{"student", "reference"};
        r.reps = o.reps > 0 ? o.reps : 3;
        r.quiet = o.quiet;
        cpu = run_mpi(r);
        print_mpi(cpu);
        Shape largest = r.shapes.front();
        for (Shape s : r.shapes)
            if (s.flops() > largest.flops()) largest = s;
        v = decide_summa(cpu, impl, largest, cores_here());
    }

    // ---- 2. GPU
    std::printf("\n-- Part 2: SUMMA on a GPU with NCCL (one process per GPU) --\n");
    const std::string nccl = nccl_missing();
    const gpu::DeviceInfo info = gpu::probe();
    if (!nccl.empty()) {
        std::printf("skipped: %s\n", nccl.c_str());
    } else if (!info.available) {
        std::printf("skipped: %s\n", info.why_not.c_str());
    } else {
        NcclRequest g;
        g.shapes = {{4096, 4096, 4096}};
        g.impls = o.solution ? std::vector<std::string>{"reference"} : std::vector<std::string>{"student", "reference"};
        g.overlaps = {"on", "off"};
        g.quiet = o.quiet;
        const Table t = run_nccl(g);
        print_nccl(t);
        if (t.wrong && v.met) {
            v.met = false;
            v.explanation += "; but a GPU run is wrong (above)";
        }
        std::printf("more: mmlab nccl-gemm --help (bf16, lab 8's kernel, several GPUs)\n");
    }

    // ---- 3. the model
    std::printf("\n-- Part 3: the alpha-beta-gamma model (mmlab abg-model) --\n");
    if (missing.empty()) {
        CpuModel c;
        const bool linked = measure_cpu_link(c);
        for (const Fields& f : cpu.rows)  // the reference's runs: the model describes the algorithm
            if (field(f, "impl") == "reference" || field(f, "algo") == "local") c.table.rows.push_back(f);
        const Fields* local = find_result(cpu.rows, {{"algo", "local"}});
        if (linked && !local) {
            c.error = "lab 5's kernel on one process did not run";
        } else if (linked) {
            c.machine.gamma = number(*local, "seconds") / shape_of(*local).flops();
            c.machine.gamma_source = "lab 5's kernel on one process, above";
        }
        std::printf("this machine (the reference's runs above):\n");
        print_cpu_model(c);
    }
    const std::string rec = recorded_gpu_file();
    if (!rec.empty()) {
        std::string note;
        const std::vector<Fields> measured = read_results(rec);
        const GpuModelInputs in = gpu_inputs(measured, "fp32", note);
        if (note.empty()) {
            std::printf("\n1 to 512 GPUs, from the run recorded in %s:\n", rec.c_str());
            print_gpu_model(in, gpu_model_rows(in, measured, 16384, "fp32"), "fp32");
        }
    }

    std::printf("\ntarget : %s\nresult : %s - %s%s\n", kTarget, verdict_word(v).c_str(), v.explanation.c_str(),
                v.inconclusive ? ("\nwhat now: " + rerun_advice()).c_str() : "");
    return cpu.wrong || !cpu.errors.empty() ? 1 : 0;
}

}  // namespace

TargetVerdict settle_summa(TargetVerdict v, const double* ref_eff, bool ref_is_yours) {
    if (v.met || !v.speed || !ref_eff) return v;
    if (!ref_is_yours) v.explanation += "; the reference's SUMMA in the same run: " + percent(*ref_eff);
    if (ref_is_yours || *ref_eff < kTargetEfficiency) {
        v.inconclusive = true;
        // Not only the load: on an idle 16-core host the reference's two
        // processes ran at 61 % of one alone (2026-12-08), each slower than a
        // lone one (clocks with more cores busy, shared caches and memory).
        v.explanation += std::string(ref_is_yours ? "; the reference missed its own target" : ", below the target too") +
                         ": this machine does not give it now (other programs on the cores, or two processes "
                         "slowing each other: clocks, shared caches, memory)";
    } else {
        v.explanation += " (so the gap is in your code: the handout's \"What to expect\")";
    }
    return v;
}

namespace {

// "8.0 MiB", "3.5 KiB", "640 bytes".
std::string bytes_text(double b) {
    if (b >= 1024.0 * 1024) return fixed(b / (1024.0 * 1024), 1) + " MiB";
    if (b >= 1024.0) return fixed(b / 1024.0, 1) + " KiB";
    return fixed(b, 0) + " bytes";
}

// The volume clause on `mine` (your SUMMA's row on 4 processes; nullptr when
// it did not run) against what SUMMA needs on the row's own grid. Sets
// `judged` and `ok`; returns the sentence for the verdict.
std::string volume_clause(const Fields* mine, const Fields* ref, Shape s, bool& judged, bool& ok) {
    judged = ok = false;
    if (!mine)
        return "the volume was not judged: your SUMMA did not run on 4 processes at " + shape_text(s) +
               " (make lab12 runs it on 1, 2 and 4)";
    Grid g;
    const double moved = number(*mine, "comm_bytes_per_rank", -1);
    if (!parse_grid(field(*mine, "grid"), g) || moved < 0)
        return "the volume was not judged: your SUMMA's row on 4 processes names no grid or no comm_bytes_per_rank";
    judged = true;
    const double need = 4.0 * summa_received_elements(s, g);
    ok = moved <= need * (1 + kVolumeSlack);
    const std::string where = "on 4 processes (" + grid_text(g) + " grid) at " + shape_text(s);
    const std::string theirs =
        ref && ref != mine ? "; the reference's in this run: " + bytes_text(number(*ref, "comm_bytes_per_rank")) : "";
    if (ok)
        return "your SUMMA " + where + " received " + bytes_text(moved) + " per rank, no more than SUMMA needs (" +
               bytes_text(need) + theirs + ")";
    return "your SUMMA " + where + " received " + bytes_text(moved) + " per rank, " + fixed(moved / need, 2) +
           "x what SUMMA needs: " + bytes_text(need) + theirs + ". A rank needs only its grid row's A panels and "
           "its grid column's B panels, K*(M/R*(C-1)/C + N/C*(R-1)/R) floats, not all of B (task 2, hints "
           "12.2.1-12.2.3)";
}

}  // namespace

TargetVerdict decide_summa(const Table& cpu, const std::string& impl, Shape largest, int cores) {
    TargetVerdict v{false, ""};
    v.speed = false;
    // Every run of the version under test correct.
    for (const Fields& f : cpu.rows)
        if (field(f, "impl") == impl && field(f, "algo") != "local" && field(f, "check") != "ok") {
            v.explanation = "your " + field(f, "algo") + " on " + field(f, "P") + " processes is wrong at " +
                            row_shape(f) + ": " + field(f, "failure");
            return v;
        }
    if (!cpu.errors.empty()) {
        v.explanation = "not every run ran: " + cpu.errors.front();
        return v;
    }
    const auto summa = [&](const std::string& who, int P) {
        return find_result(cpu.rows, {{"algo", "summa"}, {"impl", who}, {"P", std::to_string(P)},
                                      {"M", std::to_string(largest.M)}, {"N", std::to_string(largest.N)},
                                      {"K", std::to_string(largest.K)}});
    };
    // The volume: a count, the same on any machine, so it decides whatever
    // the load (a miss is NOT MET, never INCONCLUSIVE).
    bool judged = false, within = false;
    const std::string volume = volume_clause(summa(impl, 4), summa("reference", 4), largest, judged, within);
    // The speed: your SUMMA on 2 processes at the largest size, efficient enough.
    const Fields* summa2 = summa(impl, 2);
    const double eff = summa2 ? efficiency_of(*summa2, cpu.rows, "local") : -1;
    const std::string speed = "your SUMMA on 2 processes: " + percent(eff) + " parallel efficiency at " +
                              shape_text(largest) + " (goal >= 85%)";
    if (judged && !within) {
        v.explanation = volume + (summa2 ? "; " + speed : "");
        return v;
    }
    if (!summa2) {
        v.explanation = "your SUMMA on 2 processes was not timed at " + shape_text(largest) + "; " + volume;
        return v;
    }
    const bool big = largest.M >= kJudgedSize && largest.N >= kJudgedSize && largest.K >= kJudgedSize;
    v.met = big && eff >= kTargetEfficiency && judged;
    v.explanation = speed + ", comm " + percent(number(*summa2, "comm_fraction")) + " of its time";
    if (!big) v.explanation += "; judged at 2048^3 or larger: run make lab12 without SIZE";
    if (cores < 2) v.explanation += "; this machine has one core, so 2 processes share it";
    v.speed = big && cores >= 2 && judged;
    // The reference's SUMMA in the same run tells a busy machine from slow
    // code (the load average cannot: this run's own P = 4 on fewer cores
    // raises it).
    const Fields* ref2 = impl == "reference" ? summa2 : summa("reference", 2);
    const double ref_eff = ref2 ? efficiency_of(*ref2, cpu.rows, "local") : 0;
    // Above 1 / kQuietRuns (111 %) two processes ran faster per process than
    // the fastest single one by more than a quiet machine's spread: the clock
    // moved between the runs (turbo, power limits), and no efficiency of this
    // run can be trusted, a MET least of all.
    const double ceiling = 1.0 / kQuietRuns;
    if (v.speed && (eff > ceiling || ref_eff > ceiling)) {
        v.met = false;
        v.inconclusive = true;
        v.explanation += "; above " + percent(ceiling) +
                         " efficiency two processes ran faster each than one alone: the CPU's clock moved between "
                         "the runs, so no speed verdict from this run";
        v.explanation += "; " + volume;
        return v;
    }
    v = settle_summa(v, ref2 ? &ref_eff : nullptr, ref2 == summa2);
    v.explanation += "; " + volume;
    return v;
}

namespace {

Registrar lab12_registration([](Registry& reg) {
    Lab lab;
    lab.number = 12;
    lab.default_shapes = {{kJudgedSize, kJudgedSize, kJudgedSize}};
    lab.target = kTarget;
    lab.run = run_lab12;
    reg.add_lab(std::move(lab));
});

}  // namespace
}  // namespace mml::lab12
