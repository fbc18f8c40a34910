// mmlab abg-model: the alpha-beta-gamma model of lab 12 (models/abg_model.h)
//   part 1 (--cpu): this machine's CPUs - alpha and beta from MPI broadcasts
//           between 2 processes, gamma from lab 5's kernel on one process, all
//           measured now; predicted beside measured for 1-D and SUMMA at P = 1, 2, 4;
//   part 2: 1 to 512 GPUs in nodes of 8 - gamma from one GPU's cuBLAS rate,
//           the links from NCCL broadcasts where two GPUs were measured, else
//           from the figures named; predicted beside measured where there are
//           measurements (RESULT lines of mmlab-nccl: --measured FILE, or the
//           H100 run recorded in handouts/data/lab12-h100.txt).
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/report.h"
#include "harness/stages/lab12/lab12.h"
#include "harness/stages/lab12/model_report.h"
#include "harness/targets.h"
#include "labs/common/lab12_grid.h"
#include "models/abg_model.h"

namespace mml::lab12 {

namespace {

bool readable(const std::string& p) {
    struct stat st {};
    return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

std::string recorded_gpu_file() {
    // The repository root is above build/bin (or build/asan/bin...).
    std::string dir = program_path("");
    for (int up = 0; up < 5; ++up) {
        dir = dir.substr(0, dir.find_last_of('/', dir.size() - 2) + 1);
        if (readable(dir + "handouts/data/lab12-h100.txt")) return dir + "handouts/data/lab12-h100.txt";
    }
    return readable("handouts/data/lab12-h100.txt") ? "handouts/data/lab12-h100.txt" : "";
}

std::vector<Fields> read_results(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw UsageError("cannot read " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_results(ss.str());
}

// ---------------------------------------------------------------- the GPU machine

// The GPU memory's bandwidth, for the pass over C of each SUMMA step after
// the first: what mmlab-nccl read off the device (memory clock x bus width,
// a spec figure: field dram_gbs), else the spec sheet of the GPU named.
void set_memory_beta(model::Machine& m, const Fields& row) {
    const std::string device = field(row, "device");
    double gbs = number(row, "dram_gbs", 0);
    std::string source = "the device's memory clock x bus width (spec), " + fixed(gbs, 0) + " GB/s";
    if (gbs <= 0 && device.find("H100") != std::string::npos && device.find("HBM3") != std::string::npos) {
        gbs = 3350;
        source = "spec sheet: H100 SXM5 HBM3, 3.35 TB/s";
    } else if (gbs <= 0 && device.find("H200") != std::string::npos) {
        gbs = 4800;
        source = "spec sheet: H200 HBM3e, 4.8 TB/s";
    }
    if (gbs <= 0) {
        m.memory_beta = 0;
        m.memory_source = "not known for " + device + ": the passes over C are left out";
        return;
    }
    m.memory_beta = 1.0 / (gbs * 1e9);
    m.memory_source = source;
}


GpuModelInputs gpu_inputs(const std::vector<Fields>& measured, const std::string& precision, std::string& gamma_note) {
    GpuModelInputs in;
    model::Machine& m = in.machine;
    model::assume_gpu_links(m);  // replaced below where two GPUs were measured
    m.word_bytes = precision == "bf16" ? 2 : 4;
    // gamma: the largest cuBLAS product measured on one GPU in this precision
    // (of equal sizes, the last in the files: the newest run).
    const Fields* best = nullptr;
    for (const Fields& f : measured)
        if (field(f, "algo") == "cublas" && field(f, "precision") == precision && field(f, "check") == "ok" &&
            (!best || shape_of(f).flops() >= shape_of(*best).flops()))  // among equals, the latest
            best = &f;
    if (best) {
        m.gamma = number(*best, "seconds") / shape_of(*best).flops();
        m.gamma_source = "measured: cuBLAS " + precision + " on one " + field(*best, "device") + " at " + row_shape(*best) +
                         ", " + fixed(number(*best, "gflops") / 1000, 1) + " TFLOP/s" +
                         (field(*best, "source").empty() ? "" : " (" + field(*best, "source") + ")");
        in.device = field(*best, "device");
        set_memory_beta(m, *best);
    } else {
        gamma_note = "no single-GPU " + precision + " rate measured (run tools/lab12-gpu.sh on a GPU machine)";
    }
    // The link inside a node: NCCL broadcasts between 2 GPUs, where measured.
    std::vector<model::Sample> bcast;
    std::string bcast_device;
    for (const Fields& f : measured)
        if (field(f, "engine") == "nccl" && field(f, "op") == "bcast" && number(f, "P") == 2) {
            bcast.push_back({number(f, "bytes"), number(f, "seconds")});
            bcast_device = field(f, "device");
        }
    if (bcast.size() >= 2)
        m.intra = model::fit_link(bcast, "measured: ncclBroadcast between 2 GPUs (" + bcast_device + ")");
    return in;
}

std::vector<ModelRow> gpu_model_rows(const GpuModelInputs& in, const std::vector<Fields>& measured, std::int64_t n,
                                     const std::string& precision) {
    std::vector<ModelRow> rows;
    for (int P = 1; P <= 512; P *= 2) {
        for (int weak = 0; weak < 2; ++weak) {
            // Weak scaling: each GPU keeps an n x n block of C (n grows as sqrt(P)).
            const std::int64_t size = weak ? static_cast<std::int64_t>(std::llround(n * std::sqrt(double(P)))) : n;
            const Shape s{size, size, size};
            const Grid grid = best_grid(P, s);
            ModelRow r;
            r.scenario = weak ? "weak" : "strong";
            r.P = P;
            r.shape = s;
            r.grid = grid;
            // The panels: those of the measured run where there is one (the
            // prediction then describes that run), else the default rule.
            std::int64_t panel = model::default_gpu_panel(s, grid, in.machine);
            for (const Fields& f : measured) {
                if (field(f, "algo") != "summa" || number(f, "P") != P || field(f, "precision") != precision ||
                    (field(f, "check") != "ok" && field(f, "check") != "skipped") ||
                    field(f, "always_broadcast") == "1" || field(f, "transport") == "copy")
                    continue;
                const Shape ms = shape_of(f);
                if (ms != s) continue;
                (field(f, "overlap") == "off" ? r.measured_serial_s : r.measured_overlap_s) = number(f, "seconds");
                r.timing_only |= field(f, "check") == "skipped";
                if (number(f, "panel", 0) > 0 && grid_text(grid) == field(f, "grid")) panel = static_cast<std::int64_t>(number(f, "panel"));
            }
            r.panel = panel;
            r.rows_1d = model::predict(model::Algorithm::Summa, s, {P, 1}, in.machine, true,
                                       model::default_gpu_panel(s, {P, 1}, in.machine));
            r.summa_serial = model::predict(model::Algorithm::Summa, s, grid, in.machine, false, panel);
            r.summa_overlap = model::predict(model::Algorithm::Summa, s, grid, in.machine, true, panel);
            rows.push_back(r);
        }
    }
    return rows;
}

void print_gpu_model(const GpuModelInputs& in, const std::vector<ModelRow>& rows, const std::string& precision) {
    const model::Machine& m = in.machine;
    std::printf("inputs: gamma = %.3g s/flop (%s)\n", m.gamma, m.gamma_source.c_str());
    std::printf("        inside a node (8 GPUs): alpha %s, beta %.3g s/byte: %s\n", format_seconds(m.intra.alpha).c_str(),
                m.intra.beta, m.intra.source.c_str());
    std::printf("        between nodes: alpha %s, beta %.3g s/byte: %s\n", format_seconds(m.inter.alpha).c_str(),
                m.inter.beta, m.inter.source.c_str());
    std::printf("        each step after the first reads and writes C once more: %s\n", m.memory_source.c_str());
    std::printf("        %s elements of %g bytes; ranks numbered row-major over the grid, 8 consecutive ranks a node;\n"
                "        SUMMA's steps: the measured run's panels, else the width the model predicts fastest\n"
                "        (model::default_gpu_panel); overlap = double-buffered panels (abg_model.h)\n",
                precision.c_str(), m.word_bytes);
    for (const char* scenario : {"strong", "weak"}) {
        const bool weak = std::string(scenario) == "weak";
        const ModelRow& first = *std::find_if(rows.begin(), rows.end(), [&](const ModelRow& r) { return r.scenario == scenario; });
        std::printf("\n%s scaling: %s\n", weak ? "weak" : "strong",
                    weak ? ("n = " + std::to_string(first.shape.M) + " x sqrt(P) (each GPU keeps an n^2/P block of C)").c_str()
                         : ("n = " + std::to_string(first.shape.M) + " on every P").c_str());
        std::printf("%5s %5s %6s %8s %5s | %9s %6s | %9s %6s | %10s %9s %6s | %s\n", "GPUs", "nodes", "grid", "n", "steps",
                    "1-D time", "eff", "SUMMA ser", "eff", "SUMMA ovl", "TFLOP/s", "eff", "measured (SUMMA overlap / serial)");
        for (const ModelRow& r : rows) {
            if (r.scenario != scenario) continue;
            std::string measured = "-";
            if (r.measured_overlap_s > 0 || r.measured_serial_s > 0) {
                measured.clear();
                if (r.measured_overlap_s > 0)
                    measured += format_seconds(r.measured_overlap_s) + " (predicted " +
                                fixed(100 * (r.summa_overlap.time_s - r.measured_overlap_s) / r.measured_overlap_s, 0) + "%)";
                if (r.measured_serial_s > 0)
                    measured += std::string(measured.empty() ? "" : " / ") + format_seconds(r.measured_serial_s) +
                                " (predicted " +
                                fixed(100 * (r.summa_serial.time_s - r.measured_serial_s) / r.measured_serial_s, 0) + "%)";
                if (r.timing_only) measured += ", timing only";
            }
            std::printf("%5d %5d %6s %8lld %5lld | %9s %6s | %9s %6s | %10s %9.1f %6s | %s\n", r.P, r.summa_overlap.nodes,
                        grid_text(r.grid).c_str(), static_cast<long long>(r.shape.M), r.summa_overlap.steps,
                        format_seconds(r.rows_1d.time_s).c_str(), percent(r.rows_1d.efficiency).c_str(),
                        format_seconds(r.summa_serial.time_s).c_str(), percent(r.summa_serial.efficiency).c_str(),
                        format_seconds(r.summa_overlap.time_s).c_str(), r.summa_overlap.tflops,
                        percent(r.summa_overlap.efficiency).c_str(), measured.c_str());
        }
    }
    std::printf("\neff = T1 / (P x TP), T1 = 2n^3 gamma. 1-D = SUMMA on the grid P x 1 (B panels down one column), with\n"
                "overlap. What the model leaves out: cuBLAS's lower rate on the small blocks of large P and on narrow\n"
                "panels, NCCL's kernels sharing the SMs with the products, and congestion: it is optimistic where\n"
                "blocks are small.\n");
}

void write_model_csv(const std::string& path, const std::vector<ModelRow>& rows, const std::string& precision) {
    std::FILE* out = std::fopen(path.c_str(), "w");
    if (!out) throw UsageError("cannot write --csv " + path);
    std::fprintf(out, "scenario,precision,algorithm,P,nodes,grid,n,predicted_s,predicted_tflops,predicted_efficiency,"
                      "measured_s,measured_efficiency\n");
    for (const ModelRow& r : rows) {
        const double T1 = r.summa_overlap.efficiency * r.P * r.summa_overlap.time_s;  // 2n^3 gamma
        auto line = [&](const char* algo, const model::Prediction& p, double measured) {
            std::fprintf(out, "%s,%s,%s,%d,%d,%s,%lld,%.6g,%.4f,%.4f,%s,%s\n", r.scenario.c_str(), precision.c_str(), algo,
                         r.P, p.nodes, grid_text(p.grid).c_str(), static_cast<long long>(r.shape.M), p.time_s, p.tflops,
                         p.efficiency, measured > 0 ? std::to_string(measured).c_str() : "",
                         measured > 0 ? std::to_string(T1 / (r.P * measured)).c_str() : "");
        };
        line("1-D", r.rows_1d, -1);
        line("SUMMA serial", r.summa_serial, r.measured_serial_s);
        line("SUMMA overlap", r.summa_overlap, r.measured_overlap_s);
    }
    std::fclose(out);
}

// ---------------------------------------------------------------- this machine's CPUs

bool measure_cpu_link(CpuModel& c) {
    std::string error;
    c.bench = run_comm_bench("mpi", 2, {8, 65536, 262144, 1048576, 4194304, 16777216, 67108864}, 5, error);
    if (!error.empty()) {
        c.error = "MPI broadcasts: " + error;
        return false;
    }
    std::vector<model::Sample> samples;
    for (const Fields& f : c.bench)
        if (field(f, "op") == "bcast") samples.push_back({number(f, "bytes"), number(f, "seconds")});
    c.machine.intra = model::fit_link(samples, "measured now: MPI_Bcast between 2 processes");
    c.machine.inter = c.machine.intra;
    c.machine.per_node = 0;  // one machine
    c.machine.word_bytes = 4;
    return true;
}

CpuModel cpu_model(std::int64_t n, int reps, bool quiet) {
    CpuModel c;
    if (!measure_cpu_link(c)) return c;
    MpiRequest r;
    r.shapes = {{n, n, n}};
    r.nps = {1, 2, 4};
    r.reps = reps;
    r.quiet = quiet;
    c.table = run_mpi(r);
    const Fields* local = find_result(c.table.rows, {{"algo", "local"}});
    if (!local || field(*local, "check") != "ok") {
        c.error = "lab 5's kernel on one process did not run: " + (c.table.errors.empty() ? "" : c.table.errors[0]);
        return c;
    }
    c.machine.gamma = number(*local, "seconds") / shape_of(*local).flops();
    c.machine.gamma_source = "measured now: lab 5's kernel alone on one process at " + row_shape(*local) + ", " +
                             fixed(number(*local, "gflops"), 1) + " GFLOP/s";
    return c;
}

int print_cpu_model(const CpuModel& c) {
    if (!c.error.empty()) {
        std::printf("skipped: %s\n", c.error.c_str());
        return 2;
    }
    const int cores = cores_here();
    std::printf("inputs: gamma = %.3g s/flop (%s)\n        alpha = %s (%s); a message of n bytes costs the time measured at n:\n"
                "       ",
                c.machine.gamma, c.machine.gamma_source.c_str(), format_seconds(c.machine.intra.alpha).c_str(),
                c.machine.intra.source.c_str());
    for (const model::Sample& x : c.machine.intra.curve)
        std::printf(" %.0f B: %s (%.2f GB/s);", x.bytes, format_seconds(x.seconds).c_str(),
                    x.seconds > 0 ? x.bytes / x.seconds / 1e9 : 0.0);
    std::printf("\n");
    std::printf("%-6s %3s %-5s %10s | %10s %6s | %10s %6s | %s\n", "algo", "P", "grid", "measured", "plain", "error",
                "cores", "error", "comm: measured / plain model; compute: measured / plain model");
    int worst_ok = 1;
    for (const Fields& f : c.table.rows) {
        if (field(f, "algo") == "local" || field(f, "check") != "ok") continue;
        Grid g;
        parse_grid(field(f, "grid"), g);
        const model::Algorithm a = field(f, "algo") == "rows" ? model::Algorithm::Rows : model::Algorithm::Summa;
        model::Machine plain = c.machine, shared = c.machine;
        shared.cores = cores;
        const model::Prediction p1 = model::predict(a, shape_of(f), g, plain, false, 0);
        const model::Prediction p2 = model::predict(a, shape_of(f), g, shared, false, 0);
        const double t = number(f, "seconds");
        const double e1 = (p1.time_s - t) / t, e2 = (p2.time_s - t) / t;
        if (std::fabs(e2) > 0.25) worst_ok = 0;
        // Where the difference sits: the time inside MPI's collectives (mean
        // over ranks) against the model's communication, the rest against its compute.
        const double comm = number(f, "comm_seconds");
        std::printf("%-6s %3.0f %-5s %10s | %10s %+5.0f%% | %10s %+5.0f%% | %s / %s; %s / %s%s\n", field(f, "algo").c_str(),
                    number(f, "P"), field(f, "grid").c_str(), format_seconds(t).c_str(), format_seconds(p1.time_s).c_str(),
                    100 * e1, format_seconds(p2.time_s).c_str(), 100 * e2, format_seconds(comm).c_str(),
                    format_seconds(p1.comm_s).c_str(), format_seconds(t - comm).c_str(),
                    format_seconds(p1.compute_s).c_str(), number(f, "P") > cores ? "  [oversubscribed]" : "");
    }
    std::printf("plain = the model with one core per process; cores = each of P processes on %d cores computes at\n"
                "min(1, %d/P) of gamma. With more processes than cores the plain model breaks: the processes take turns\n"
                "on the cores (gamma per process grows), and a process waiting in a broadcast may not be running when\n"
                "its data arrives: a turn lasts milliseconds, a message microseconds (alpha grows a thousandfold), and\n"
                "an MPI that polls while it waits holds a core that a process with work needs (mmlab starts such runs\n"
                "with Open MPI's mpi_yield_when_idle). Only the first of these is in the 'cores' column.\n",
                cores, cores);
    return worst_ok ? 0 : 1;
}

namespace {

const char* kUsage = R"(usage: mmlab abg-model [--gpu-size N] [--precision fp32|bf16] [--measured FILE]... [--csv FILE]
                       [--cpu] [--cpu-size N] [--reps R]
The alpha-beta-gamma model of lab 12 (models/abg_model.h): a message of n bytes costs
alpha + n*beta, a flop gamma; broadcasts and allgathers as pipelined rings; SUMMA's steps
with and without double-buffered overlap; 1-D. Nothing is fitted to the times it predicts.
GPUs: 1 to 512 in nodes of 8, strong scaling at --gpu-size (default 16384) and weak scaling
(n x sqrt(P)). gamma: one GPU's cuBLAS rate, measured (RESULT lines of mmlab-nccl in the
--measured files; by default the H100 run recorded in handouts/data/lab12-h100.txt); the
link inside a node: NCCL broadcasts between 2 GPUs where measured, else named figures; the
network: spec-sheet figures (named). Measured SUMMA times in those files are shown beside
the prediction. --csv FILE: the table for tools/lab12_plot.py.
--cpu: also this machine's CPUs, measured now (about 30 s): alpha and beta from MPI_Bcast
between 2 processes, gamma from lab 5's kernel on one process, then 1-D and SUMMA at
P = 1, 2, 4 (--cpu-size, default 2048) beside the model's prediction.
)";

int abg_model_command(const std::vector<std::string>& args) {
    std::int64_t gpu_n = 16384, cpu_n = 2048;
    std::string precision = "fp32", csv;
    std::vector<std::string> files;
    bool cpu = false;
    int reps = 3;
    CommandArgs a(args, "abg-model");
    for (std::string f; a.next(f);) {
        if (f == "--gpu-size") gpu_n = parse_integer(a.value(f), f, 1, 1 << 22);
        else if (f == "--cpu-size") cpu_n = parse_integer(a.value(f), f, 1, 1 << 16);
        else if (f == "--precision") {
            precision = a.value(f);
            if (precision != "fp32" && precision != "bf16") throw UsageError("--precision " + precision + ": use fp32 or bf16");
        } else if (f == "--measured") files.push_back(a.value(f));
        else if (f == "--csv") csv = a.value(f);
        else if (f == "--cpu") cpu = true;
        else if (f == "--reps") reps = static_cast<int>(parse_integer(a.value(f), f, 1, 100));
        else a.unknown(f);
    }
    if (files.empty()) {
        const std::string rec = recorded_gpu_file();
        if (!rec.empty()) files.push_back(rec);
    }
    std::vector<Fields> measured;
    for (const std::string& p : files) {
        const std::vector<Fields> r = read_results(p);
        measured.insert(measured.end(), r.begin(), r.end());
    }
    int rc = 0;
    if (cpu) {
        print_machine_header(false);
        std::printf("\n-- Part 1: this machine's CPUs, measured now (1-D and SUMMA at %lld^3) --\n", static_cast<long long>(cpu_n));
        std::fflush(stdout);
        const CpuModel c = cpu_model(cpu_n, reps, false);
        if (c.error.empty()) print_mpi(c.table);  // the runs themselves: efficiency, comm share
        rc = print_cpu_model(c);
    }
    std::printf("\n-- Part %d: 1 to 512 GPUs (%s; measurements from %s) --\n", cpu ? 2 : 1, precision.c_str(),
                files.empty() ? "none" : files.front().c_str());
    std::string note;
    const GpuModelInputs in = gpu_inputs(measured, precision, note);
    if (!note.empty()) {
        std::printf("skipped: %s\n", note.c_str());
        return 2;
    }
    const std::vector<ModelRow> rows = gpu_model_rows(in, measured, gpu_n, precision);
    print_gpu_model(in, rows, precision);
    if (!csv.empty()) write_model_csv(csv, rows, precision);
    print_run_models(measured);  // informative: the exit code stays that of the parts above
    return rc;
}

CommandRegistrar cmd({"abg-model", "lab 12: the alpha-beta-gamma model, 1 to 512 GPUs (and this machine's CPUs), beside measurements",
                      kUsage, abg_model_command, 12});

}  // namespace
}  // namespace mml::lab12
