// `mmlab blis-levels`: where lab5.blis loses time against the FMA peak, one
// level of the BLIS loop nest at a time, on one core, in the reference's code
// or (--impl student) in the student's: their kernels, packing, macro-kernel
// and loops (the same functions, declared alike in labs/lab5/gemm.h):
//
//   micro-kernel   the register tile alone, its packed A sliver and B
//                  micro-panel and its C tile in L1: what the FMA units can
//                  do when the data is always there (loop 0)
//   macro-kernel   loops 1-2 over one packed MC x KC panel of A and one
//                  KC x NC block of B (L2), the same MC x NC block of C each time
//   ... C cold     the same, but each call takes the next MC x NC block of an
//                  n x n C, as the real product does
//   packing        pack_a / pack_b_panels over all of A and B for one
//                  product: the copies the whole GEMM pays on top of loops 1-2
//   lab5.blis      the whole product, 1 thread; OpenBLAS beside it
//
// Each level is a fraction of the peak; the step from one level to the next is
// what that level costs. The levels run in rounds (micro, macro, ..., micro,
// macro, ...) and each keeps its median, so a burst of other work on the
// machine lands on one sample of each level, not on all samples of one.
// The arithmetic below is not checked against a reference (the micro- and
// macro-kernel levels run on the same panels again and again): `mmlab run
// --stage lab5.blis` is what checks the product.
//
// Why this file is a references*.cpp: it takes the reference's BLIS apart
// (its kernels, packing and macro-kernel, solutions/lab5/gemm.h) beside the
// student's, so it is built only where the references are; a build without
// them (the grader's) has no blis-levels command.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cpu/machine.h"
#include "cpu/matrix.h"
#include "cpu/peak.h"
#include "cpu/stats.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/format.h"
#include "harness/report.h"
#include "harness/run_stage.h"
#include "harness/stages/lab5/simd_param.h"
#include "labs/lab5/gemm.h"
#include "peers/openblas.h"
#include "labs/common/blis_loops.h"
#include "solutions/lab5/gemm.h"

namespace mml {
namespace {

namespace ref = reference::lab5;
namespace own = student::lab5;
using common::lab5::BlockSizes;
using common::lab5::KernelSet;

// The pieces of one version of lab5.blis that the levels take apart: the
// student's (labs/lab5/) and the reference's (solutions/lab5/) have the same
// declarations, so the table below runs either.
struct BlisParts {
    Impl impl;
    const char* whose;  // for the title and the rows: "your" / "the reference's"
    const KernelSet& (*kernels_for)(SimdLevel);
    void (*macro_kernel)(const KernelSet&, std::int64_t, std::int64_t, std::int64_t, const float*, const float*, float*,
                         std::int64_t, bool);
    void (*pack_a)(const float*, std::int64_t, std::int64_t, std::int64_t, int, float*);
    void (*pack_b_panels)(const float*, std::int64_t, std::int64_t, std::int64_t, int, std::int64_t, std::int64_t,
                          float*);
    void (*matmul_blis)(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t, const KernelSet&,
                        BlockSizes, int);
};

BlisParts parts_of(Impl impl) {
    if (impl == Impl::Student)
        return {impl, "your", own::kernels_for, own::macro_kernel, own::pack_a, own::pack_b_panels, own::matmul_blis};
    return {impl, "the reference's", ref::kernels_for, ref::macro_kernel, ref::pack_a, ref::pack_b_panels,
            ref::matmul_blis};
}

const char* kUsage = R"(usage: mmlab blis-levels [--impl student|reference] [--size N] [--simd W] [--param mc=..,kc=..,nc=..]
                          [--reps R]
Where lab5.blis loses time against the measured FMA peak, level by level of the
BLIS loops, on ONE core, for an N x N x N product (default 2048), in the
reference's code, or in yours with --impl student (your kernels, packing and
loops; your lab5.blis is checked first, and a wrong one is not timed):
  micro-kernel        the MR x NR register tile with everything in L1
  macro-kernel        loops 1-2: one packed MC x KC panel of A times a KC x NC
                      block of B (in L2), the same C block every time
  macro-kernel C cold the same, each time the next C block of an N x N C
  packing A, B        the copies of one whole product (time, % of the product)
  lab5.blis           the whole product; OpenBLAS (1 thread) beside it
--simd W picks the kernels (0 widest present, 1 scalar, 8 AVX2+FMA, 16 AVX-512);
--param sets the block sizes as for lab5.blis; R rounds (default 5), medians.
Timed: wall clock, inputs already in memory. Run it on a quiet machine.
)";

using Clock = std::chrono::steady_clock;

double seconds_of(const std::function<void()>& f) {
    const auto t0 = Clock::now();
    f();
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Runs f in batches, doubling the batch until one takes at least `at_least`
// seconds; returns the time of one call. (Reading the clock after every call
// would add its own cost to a call of under a microsecond.)
double time_per_call(const std::function<void()>& f, double at_least) {
    for (long batch = 1;; batch *= 2) {
        const double s = seconds_of([&] {
            for (long i = 0; i < batch; ++i) f();
        });
        if (s >= at_least) return s / double(batch);
    }
}

struct Level {
    std::string name, where;
    std::string code;                   // whose code the row times: "yours", "reference", "OpenBLAS"
    double flops;                       // per call; 0 for the packing rows
    std::function<void()> call;
    std::vector<double> seconds;        // one per round
};

int run_levels(const std::vector<std::string>& args) {
    std::int64_t n = 2048;
    long long width = 0;
    int rounds = 5;
    StageParams blocks;  // --param mc=..,kc=..,nc=..: read as lab5.blis reads them
    Impl impl = Impl::Reference;
    CommandArgs a(args, "blis-levels");
    for (std::string f; a.next(f);) {
        if (f == "--size") n = parse_integer(a.value(f), "--size", 1, 1LL << 20);
        else if (f == "--impl") impl = parse_impl(a.value(f));
        else if (f == "--simd") width = parse_integer(a.value(f), "--simd", 0, 16);
        else if (f == "--reps") rounds = int(parse_integer(a.value(f), "--reps", 1, 1000));
        else if (f == "--param") {
            for (const auto& [key, v] : parse_param_list(a.value(f)).values) {
                if (key != "mc" && key != "kc" && key != "nc")
                    throw UsageError("unknown --param '" + key + "' for blis-levels: use mc, kc or nc");
                blocks.values[key] = v;
            }
        } else a.unknown(f);
    }
    const SimdLevel simd = lab5::simd_level_of_width(width, "--simd " + std::to_string(width));
    const BlockSizes requested = lab5::requested_blocks(blocks);
    check_fits_in_memory({n, n, n}, Device::Cpu);
    const BlisParts v = parts_of(impl);
    if (impl == Impl::Student) {
        // The levels are timed on panels, not checked: the whole product is, once, first.
        const Stage* blis = Registry::instance().find("lab5.blis");
        StageParams p = blocks;
        p.values["simd"] = width;
        const Shape check{std::min<std::int64_t>(n, 300), std::min<std::int64_t>(n, 300), std::min<std::int64_t>(n, 300)};
        const CheckResult r = run_and_check(*blis, Impl::Student, check, p, fresh_seed());
        if (!r.passed) {
            std::printf("your lab5.blis is WRONG at %s (%s): its levels are not timed until it is right "
                        "(make lab5 runs the tests that say where)\n",
                        shape_text(check).c_str(), r.failure.c_str());
            return 1;
        }
    }

    const KernelSet& k = v.kernels_for(simd);
    const BlockSizes bs = common::lab5::blocks_for_product(requested, k.MR, k.NR, n, n, n);
    const std::int64_t MR = k.MR, NR = k.NR, KC = bs.KC;
    const std::int64_t MC = bs.MC, NC = bs.NC;  // at most n (rounded up to MR, NR)
    const std::int64_t mc = std::min(MC, n), nc = std::min(NC, n);
    using common::lab5::panels;

    // The operands: the matrices of the product, and packed copies of one
    // panel of A and one block of B for the kernel levels.
    Matrix A(n, n), B(n, n), C(n, n);
    fill_uniform(A, 1);
    fill_uniform(B, 2);
    fill_uniform(C, 3);
    Matrix a_panel(1, MC * KC), b_block(1, KC * NC), c_block(mc, nc);
    v.pack_a(A.data(), n, mc, KC, k.MR, a_panel.data());
    v.pack_b_panels(B.data(), n, KC, nc, k.NR, 0, panels(nc, k.NR), b_block.data());
    Matrix tile(MR, NR);
    fill_uniform(tile, 4);
    fill_uniform(c_block, 4);
    // C cold: the mc x nc blocks of an n x n C, one after the other, as the product visits them.
    const std::int64_t row_blocks = panels(n, int(mc)), col_blocks = panels(n, int(nc));
    Matrix c_cold(row_blocks * mc, col_blocks * nc);
    fill_uniform(c_cold, 5);
    std::int64_t next_block = 0;
    Matrix work_a(1, MC * KC), work_b(1, KC * NC);  // scratch for the packing rows

    const double product_flops = 2.0 * double(n) * double(n) * double(n);
    std::vector<Level> levels;
    const std::string mine = impl == Impl::Student ? "yours" : "reference";
    levels.push_back({"micro-kernel", "A sliver, B micro-panel, C tile in L1", mine, 2.0 * MR * NR * KC,
                      [&] { k.micro(KC, a_panel.data(), b_block.data(), tile.data(), NR, true); }, {}});
    levels.push_back({"macro-kernel", "A panel, B block in L2, C block cached", mine, 2.0 * mc * nc * KC,
                      [&] { v.macro_kernel(k, mc, nc, KC, a_panel.data(), b_block.data(), c_block.data(), nc, true); },
                      {}});
    levels.push_back({"macro-kernel, C cold", "as above, C blocks of an n x n C", mine, 2.0 * mc * nc * KC,
                      [&] {
                          const std::int64_t i = next_block / col_blocks, j = next_block % col_blocks;
                          next_block = (next_block + 1) % (row_blocks * col_blocks);
                          v.macro_kernel(k, mc, nc, KC, a_panel.data(), b_block.data(),
                                                    c_cold.data() + i * mc * c_cold.cols() + j * nc, c_cold.cols(), true);
                      },
                      {}});
    // Packing as the product does it (the reference's blis.cpp): every MC x KC panel of
    // A once per (ic, pc), every KC x NC block of B once per (ic, pc, jc).
    levels.push_back({"packing A", "all MC x KC panels of one product", mine, 0,
                      [&] {
                          for (std::int64_t ic = 0; ic < n; ic += MC)
                              for (std::int64_t pc = 0; pc < n; pc += KC) {
                                  const std::int64_t h = std::min(MC, n - ic);
                                  v.pack_a(A.data() + ic * n + pc, n, h, std::min(KC, n - pc), k.MR, work_a.data());
                              }
                      },
                      {}});
    levels.push_back({"packing B", "all KC x NC blocks of one product", mine, 0,
                      [&] {
                          for (std::int64_t ic = 0; ic < n; ic += MC)
                              for (std::int64_t pc = 0; pc < n; pc += KC)
                                  for (std::int64_t jc = 0; jc < n; jc += NC) {
                                      const std::int64_t w = std::min(NC, n - jc);
                                      v.pack_b_panels(B.data() + pc * n + jc, n, std::min(KC, n - pc), w, k.NR, 0,
                                                         panels(w, k.NR), work_b.data());
                                  }
                      },
                      {}});
    levels.push_back({"lab5.blis", "the whole product, 1 thread", mine, product_flops,
                      [&] { v.matmul_blis(A.data(), B.data(), C.data(), n, n, n, k, requested, 1); }, {}});
    levels.push_back({"OpenBLAS sgemm", "the whole product, 1 thread", "OpenBLAS", product_flops,
                      [&] { peers::matmul_openblas(A.data(), B.data(), C.data(), n, n, n, 1); }, {}});

    print_machine_header(false);
    std::printf("peer    : OpenBLAS sgemm = %s\n", peers::openblas_description().c_str());
    // Whose code the levels are: said once here and on every row (the code column).
    std::printf("\ntimed: %s code (%s)\n", v.whose,
                impl == Impl::Student ? "labs/lab5/, --impl student" : "--impl student times yours");
    std::printf("lab5.blis level by level: %s kernels (MR x NR = %lld x %lld), MC %lld, KC %lld, NC %lld, n = %lld, 1 thread\n",
                k.name, (long long)MR, (long long)NR, (long long)mc, (long long)KC, (long long)nc, (long long)n);
    std::fprintf(stderr, "measuring the %s FMA peak and %zu levels in %d rounds ...\n", simd_name(simd),
                 levels.size(), rounds);
    std::vector<double> peak;
    for (int r = 0; r < rounds; ++r) {
        peak.push_back(measure_fma_peak(simd, 1).gflops);
        for (Level& l : levels) l.seconds.push_back(time_per_call(l.call, 0.1));
    }
    const double peak_gflops = median(peak);
    const double product_seconds = median(levels[5].seconds);
    std::printf("%-22s %-9s %-40s %10s %9s %8s\n", "level", "code", "what is where", "time", "GFLOP/s", "% peak");
    std::printf("%-22s %-9s %-40s %10s %9.1f %8.1f\n", "FMA peak", "given", "independent FMAs, registers only", "-",
                peak_gflops, 100.0);
    for (const Level& l : levels) {
        const double s = median(l.seconds);
        if (l.flops > 0)
            std::printf("%-22s %-9s %-40s %10s %9.1f %8.1f\n", l.name.c_str(), l.code.c_str(), l.where.c_str(),
                        format_seconds(s).c_str(),
                        l.flops / s / 1e9, 100.0 * l.flops / s / 1e9 / peak_gflops);
        else
            std::printf("%-22s %-9s %-40s %10s %9s %7.1f%% of the product's time\n", l.name.c_str(), l.code.c_str(),
                        l.where.c_str(),
                        format_seconds(s).c_str(), "-", 100.0 * s / product_seconds);
    }
    std::printf("\nmedians of %d rounds; wall clock; GFLOP/s = 2 flops per multiply-add. Read it top down: each\n"
                "level's loss against the one above is what that level of the loop nest costs.\n",
                rounds);
    return 0;
}

CommandRegistrar registrar({"blis-levels", "lab 5: where lab5.blis (--impl student: yours) loses time against the FMA peak,\n"
                            "                       level by level",
                            kUsage, run_levels, 5});

}  // namespace
}  // namespace mml
