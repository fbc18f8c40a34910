// Lab 6 - CUDA basics: the naive kernel with the coalesced and the uncoalesced
// thread mapping, and the one-block-per-element reduction kernel of Cao's survey.
// (`mmlab breakdown`, in breakdown.cpp, splits a GPU product into allocation,
// copies and kernel; `mmlab gpu-vs-cpu`, in gpu_vs_cpu.cpp, is the CUDA lab report's table.)
// The reference versions are bound in references.cpp.
#include "harness/stages/lab6/lab6.h"

#include "harness/cli.h"
#include "harness/targets.h"
#include "labs/lab6/lab6.h"

namespace mml::lab6 {

int block_param(const StageParams& p) {
    const long long t = p.get("block", 64);
    if (t < 32 || t > 1024 || (t & (t - 1)) != 0)
        throw UsageError("lab6.block_reduce: --param block must be a power of two from 32 to 1024, got " +
                         std::to_string(t));
    return int(t);
}

MatmulFn with_block_param(BlockReduceFn fn) {
    return [fn](const float* A, const float* B, float* C, Shape s, const StageParams& p) {
        fn(A, B, C, s.M, s.N, s.K, block_param(p));
    };
}

namespace {

void add_stage(Registry& reg, const char* name, MatmulFn student, const char* summary, bool reads_block = false) {
    Stage s = make_stage(6, name, summary, std::move(student), {});  // the reference: references.cpp
    if (reads_block) {  // --param block: said, and a bad value refused before anything runs
        s.param_names = {"block"};
        s.check_params = [](const StageParams& p) { block_param(p); };
    }
    reg.add(std::move(s));
}

TargetVerdict judge_lab6(const std::vector<Measurement>& rows) {
    if (auto failed = first_failure(rows, Impl::Student)) return *failed;
    const Shape largest = largest_shape(rows);
    const Measurement* own = find_row(rows, "lab6.naive_coalesced", Impl::Student, largest);
    const Measurement* own_unc = find_row(rows, "lab6.naive_uncoalesced", Impl::Student, largest);
    const Measurement* ref = find_row(rows, "lab6.naive_coalesced", Impl::Reference, largest);
    const Measurement* own_red = find_row(rows, "lab6.block_reduce", Impl::Student, largest);
    if (!own || !own_unc || !ref || !own_red)
        return {false, "the lab 6 stages were not all timed (student and reference) at " + shape_text(largest)};
    const double vs_ref = own->median_seconds / ref->median_seconds;
    const double gain = own_unc->median_seconds / own->median_seconds;
    TargetVerdict v;
    v.met = vs_ref <= 1.25 && gain >= 2.0;
    v.explanation = "at " + shape_text(largest) + ": your coalesced naive kernel takes " + fixed(vs_ref, 2) +
                    "x the reference's time (goal <= 1.25) and is " + fixed(gain, 1) +
                    "x faster than your uncoalesced one (goal >= 2); your block_reduce is correct";
    return v;
}

Registrar lab6_stages([](Registry& reg) {
    namespace st = student::lab6;
    add_stage(reg, "naive_coalesced", from_plain(st::matmul_naive_coalesced),
              "naive CUDA kernel, one thread per C element, threadIdx.x along C's columns (coalesced)");
    add_stage(reg, "naive_uncoalesced", from_plain(st::matmul_naive_uncoalesced),
              "the same kernel with threadIdx.x along C's rows (uncoalesced, the CUDA lab report's mapping)");
    add_stage(reg, "block_reduce", with_block_param(st::matmul_block_reduce),
              "one block per C element, strided partial sums, shared-memory halving (Cao's survey; --param block=64)", true);

    Lab lab;
    lab.number = 6;
    lab.default_shapes = {{1024, 1024, 1024}, {4096, 4096, 4096}};
    lab.target = "all stages correct; your coalesced naive kernel within 1.25x of the reference's time and >= 2x faster "
                 "than your uncoalesced one (largest shape)";
    lab.judge = judge_lab6;
    reg.add_lab(std::move(lab));
});

}  // namespace
}  // namespace mml::lab6
