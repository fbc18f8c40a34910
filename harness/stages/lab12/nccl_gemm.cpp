// mmlab nccl-gemm: lab 12's GPU SUMMA (one MPI process per GPU, NCCL
// broadcasts overlapped with the products) beside its peers: cuBLAS on one
// GPU at the same size and at the per-GPU size, and cublasXt on every GPU.
#include <cmath>
#include <cstdio>

#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/report.h"
#include "harness/stages/lab12/lab12.h"
#include "harness/targets.h"
#include "labs/common/lab12_grid.h"

namespace mml::lab12 {

namespace {

// The block one GPU of P holds (the largest, where the split is uneven).
Shape per_gpu(Shape s, Grid g) {
    return {(s.M + g.rows - 1) / g.rows, (s.N + g.cols - 1) / g.cols, s.K};
}

Grid grid_for(const NcclRequest& r, const std::string& algo, int P, Shape s) {
    Grid g;
    if (algo == "rows") return {P, 1};
    if (!r.grid.empty() && parse_grid(r.grid, g)) return g;
    return best_grid(P, s);
}

}  // namespace

Table run_nccl(const NcclRequest& r) {
    Table t;
    const std::string sizes = size_list(r.shapes);
    auto say = [&](int np, const std::vector<std::string>& a) {
        if (r.quiet) return;
        std::string line = "  mpirun -np " + std::to_string(np) + " mmlab-nccl";
        for (const std::string& w : a) line += " " + w;
        std::fprintf(stderr, "%s\n", line.c_str());
    };
    if (r.peers) {
        for (const std::string& prec : r.precisions) {
            // cuBLAS on one GPU at each size, and at each per-GPU size the runs below give one GPU.
            std::vector<Shape> shapes = r.shapes;
            for (const std::string& algo : r.algos)
                for (int P : r.nps)
                    for (Shape s : r.shapes) {
                        const Shape b = per_gpu(s, grid_for(r, algo, P, s));
                        bool seen = false;
                        for (Shape x : shapes) seen |= x == b;
                        if (!seen) shapes.push_back(b);
                    }
            std::vector<std::string> a = {"gemm", "--algo", "cublas", "--size", size_list(shapes), "--precision", prec,
                                          "--reps", std::to_string(r.reps)};
            say(1, a);
            add_launch(t, launch("mmlab-nccl", 1, a), "cuBLAS on one GPU (" + prec + ")", r.save);
            if (prec == "fp32") {
                std::vector<std::string> x = {"gemm", "--algo", "cublasxt", "--size", sizes, "--reps", "2", "--warmup", "1"};
                say(1, x);
                add_launch(t, launch("mmlab-nccl", 1, x), "cublasXt on every GPU", r.save);
            }
        }
    }
    for (const std::string& algo : r.algos)
        for (int P : r.nps)
            for (const std::string& impl : r.impls)
                for (const std::string& prec : r.precisions)
                    for (const std::string& tile : r.tiles)
                        for (const std::string& ov : r.overlaps)
                            for (const std::string& tr : r.transports) {
                            if (tile == "lab8" && prec != "fp32") continue;   // lab 8's kernel is float32 only
                            if (tile == "lab11" && prec != "bf16") continue;  // lab 11's is bf16 only
                            if (tr == "copy" && impl == "student") continue;  // the copy transport is given code
                            std::vector<std::string> a = {"gemm",        "--algo", algo,       "--impl",  impl,
                                                          "--size",      sizes,    "--precision", prec, "--tile",
                                                          tile,          "--overlap", ov,      "--transport",
                                                          tr,            "--reps", std::to_string(r.reps)};
                            if (algo == "summa" && !r.grid.empty()) a.insert(a.end(), {"--grid", r.grid});
                            if (r.panel > 0) a.insert(a.end(), {"--panel", std::to_string(r.panel)});
                            if (r.always_broadcast) a.push_back("--always-broadcast");
                            say(P, a);
                            add_launch(t, launch("mmlab-nccl", P, a),
                                       algo + " " + prec + " " + tile + " overlap " + ov + " " + tr + " on " +
                                           std::to_string(P) + " GPU(s)",
                                       r.save);
                        }
    return t;
}

void print_nccl(const Table& t) {
    std::printf("%-8s %-9s %-4s %-6s %-3s %-5s %2s %-5s %-18s %10s %8s %7s %7s %7s %8s %16s  %s\n", "algo", "impl", "prec",
                "tile", "ovl", "moves", "P", "grid", "shape", "time", "TFLOP/s", "strong", "weak", "comm", "exposed",
                "model (error)", "check (error / bound)");
    for (const Fields& f : t.rows) {
        const std::string algo = field(f, "algo");
        const bool peer = algo == "cublas" || algo == "cublasxt";
        const int P = static_cast<int>(number(f, "P", 1));
        const bool wrong = field(f, "check") == "WRONG";
        // strong: against cuBLAS on one GPU at the whole size; weak: against
        // cuBLAS on one GPU at this run's per-GPU block (what each GPU multiplies).
        double strong = -1, weak = -1;
        if (!peer) {
            strong = efficiency_of(f, t.rows, "cublas");
            Grid g;
            parse_grid(field(f, "grid"), g);
            const Shape b = per_gpu(shape_of(f), g);
            const Fields* base = find_result(t.rows, {{"algo", "cublas"},
                                                      {"precision", field(f, "precision")},
                                                      {"M", std::to_string(b.M)},
                                                      {"N", std::to_string(b.N)},
                                                      {"K", std::to_string(b.K)}});
            if (base && number(f, "seconds") > 0) weak = number(*base, "seconds") / number(f, "seconds");
        }
        std::string check = field(f, "check");
        if (check == "ok") check += " (" + fixed(number(f, "worst_ratio"), 3) + ")";
        if (wrong) check += ": " + field(f, "failure");
        const double t_s = number(f, "seconds"), model_s = number(f, "model_seconds", -1);
        const std::string model = peer || wrong || model_s < 0 || t_s <= 0
                                      ? "-"
                                      : format_seconds(model_s) + " (" + fixed(100 * (model_s - t_s) / t_s, 0) + "%)";
        std::printf("%-8s %-9s %-4s %-6s %-3s %-5s %2d %-5s %-18s %10s %8s %7s %7s %7s %8s %16s  %s\n", algo.c_str(),
                    peer ? "-" : field(f, "impl").c_str(), field(f, "precision").c_str(),
                    algo == "cublasxt" ? "-" : field(f, "tile").c_str(), peer ? "-" : field(f, "overlap").c_str(),
                    peer ? "-" : field(f, "transport").c_str(), P,
                    field(f, "grid").c_str(), row_shape(f).c_str(), wrong ? "-" : format_seconds(t_s).c_str(),
                    wrong ? "-" : fixed(number(f, "gflops") / 1000, 2).c_str(), wrong ? "-" : percent(strong).c_str(),
                    wrong ? "-" : percent(weak).c_str(),
                    peer || wrong ? "-" : percent(number(f, "comm_fraction", -1)).c_str(),
                    peer || wrong ? "-" : percent(t_s > 0 ? number(f, "exposed_seconds") / t_s : -1).c_str(), model.c_str(),
                    check.c_str());
    }
    for (const std::string& n : t.notes) std::printf("%s\n", n.c_str());
    for (const std::string& e : t.errors) std::printf("NOT RUN: %s\n", e.c_str());
    if (!t.rows.empty()) {
        const Fields& f = t.rows.front();
        std::printf("GPU: %s (%s visible), NCCL %s. Time: MPI_Wtime from a barrier until both streams of the slowest rank\n"
                    "are idle, median. strong = T(cuBLAS, one GPU, whole size) / (P x T); weak = T(cuBLAS, one GPU, the\n"
                    "per-GPU block) / T. comm = the communication stream's busy time (CUDA events) / T; exposed = the\n"
                    "time not covered by products (T - product time): what overlap did not hide. moves: nccl = NCCL\n"
                    "broadcasts, copy = the copy engines (CUDA IPC). model: the alpha-beta-gamma prediction from inputs\n"
                    "measured in the same launch before the timed runs (transfers at two panel widths, the products at\n"
                    "the panel shapes run, alone and beside traffic; model_inputs.h), not from SUMMA's times. cublasxt:\n"
                    "A, B, C in host memory, every GPU present (its time includes the host transfers).\n",
                    field(f, "device").c_str(), field(f, "gpus").c_str(), field(f, "nccl").c_str());
    }
}

namespace {

const char* kUsage = R"(usage: mmlab nccl-gemm [--algo summa,rows] [--np 1,2] [--size LIST] [--impl student|reference|both]
                       [--precision fp32,bf16] [--tile cublas,lab8,lab11] [--overlap on,off] [--transport nccl,copy] [--grid RxC]
                       [--panel W] [--always-broadcast] [--reps R] [--no-peers] [--save FILE]
Lab 12's GPU SUMMA (build/bin/mmlab-nccl, one MPI process per GPU: mpirun -np P), checked
against the float64 product gathered on rank 0, beside the peers: cuBLAS on one GPU (at
the whole size: strong-scaling efficiency; at the per-GPU block: weak-scaling efficiency)
and cublasXt on every GPU present (host-resident A, B, C; fp32). --tile: the per-tile
product (cuBLAS, lab 8's kernel for fp32, lab 11's wgmma kernel for bf16 on sm_90); --overlap off: each step's broadcasts wait
for the previous product; --transport copy: the panels moved by the copy engines (CUDA IPC, one node)
instead of NCCL's kernels. Defaults: --algo summa, --np 1, --size 8192, --precision fp32,
--tile cublas, --overlap on,off, --transport nccl, --reps 5. --always-broadcast: broadcasts (and packing) even
along rows or columns of one process, so that one GPU runs the whole machinery. --save FILE
appends the RESULT lines to FILE (mmlab abg-model --measured reads them). Exit: 0 all correct, 1 a check failed, 2 bad input,
no GPU or a missing part (the line says what to install).
)";

int nccl_gemm_command(const std::vector<std::string>& args) {
    NcclRequest r;
    r.overlaps = {"on", "off"};
    CommandArgs a(args, "nccl-gemm");
    auto choose = [&](const std::string& flag, const std::vector<std::string>& allowed) {
        std::vector<std::string> v = split_list(a.value(flag), flag);
        for (const std::string& x : v) {
            bool ok = false;
            for (const std::string& y : allowed) ok |= x == y;
            if (!ok) throw UsageError(flag + " " + x + " is not one of its values (mmlab nccl-gemm --help)");
        }
        return v;
    };
    for (std::string f; a.next(f);) {
        if (f == "--algo") r.algos = choose(f, {"summa", "rows"});
        else if (f == "--np") {
            r.nps.clear();
            for (long long p : parse_integer_list(a.value(f), f, 1, 64)) r.nps.push_back(static_cast<int>(p));
        } else if (f == "--size") r.shapes = sizes_flag(a.value(f));
        else if (f == "--impl") r.impls = impl_flag(a.value(f));
        else if (f == "--precision") r.precisions = choose(f, {"fp32", "bf16"});
        else if (f == "--tile") r.tiles = choose(f, {"cublas", "lab8", "lab11"});
        else if (f == "--overlap") r.overlaps = choose(f, {"on", "off"});
        else if (f == "--transport") r.transports = choose(f, {"nccl", "copy"});
        else if (f == "--grid") r.grid = a.value(f);
        else if (f == "--panel") r.panel = parse_integer(a.value(f), f, 0, 1LL << 40);
        else if (f == "--reps") r.reps = static_cast<int>(parse_integer(a.value(f), f, 1, 1000));
        else if (f == "--no-peers") r.peers = false;
        else if (f == "--always-broadcast") r.always_broadcast = true;
        else if (f == "--save") r.save = a.value(f);
        else if (f == "--quiet") r.quiet = true;
        else a.unknown(f);
    }
    check_grid_flag(r.grid, r.nps);
    const std::string missing = nccl_missing();
    if (!missing.empty()) {
        std::printf("nccl-gemm: skipped: %s\n", missing.c_str());
        return 2;
    }
    print_machine_header(true);
    std::printf("\nLab 12, GPU: SUMMA with NCCL on 1 process per GPU\n");
    std::fflush(stdout);
    const Table t = run_nccl(r);
    print_nccl(t);
    if (!t.errors.empty()) return 2;
    return t.wrong ? 1 : 0;
}

CommandRegistrar cmd({"nccl-gemm", "lab 12: SUMMA on GPUs with NCCL (overlap on/off, fp32/bf16) beside cuBLAS and cublasXt",
                      kUsage, nccl_gemm_command, 12});

}  // namespace
}  // namespace mml::lab12
