// Lab 7 - shared memory: tiles of 16 and 32 with zero-padded edges, the
// bank-conflict lesson (B's tile transposed, [32][32] against [32][33]), and
// the Volkov-Demmel kernel. Two comparison rows the student does not write:
// lab 6's naive kernel (the yardstick) and the Volkov kernel as the RTX 4090
// GEMM walk-through lays it out (A streamed). They exist only as references, so they are registered here with no
// version at all and get their one version from references.cpp (with the
// student versions' references); a build without the answers shows them as
// "not in this build".
#include "harness/stage.h"
#include "harness/targets.h"
#include "labs/lab7/lab7.h"

namespace {

using namespace mml;

// `student` empty: a reference-only comparison row.
void add_stage(Registry& reg, const char* name, PlainMatmul student, const char* summary) {
    MatmulFn own = student ? from_plain(student) : MatmulFn{};
    reg.add(make_stage(7, name, summary, std::move(own), {}));  // the reference: references.cpp
}

double ratio(const Measurement* slow, const Measurement* fast) { return slow->median_seconds / fast->median_seconds; }

TargetVerdict judge_lab7(const std::vector<Measurement>& rows) {
    if (auto failed = first_failure(rows, Impl::Student)) return *failed;
    const Shape largest = largest_shape(rows);
    const Measurement* volkov = find_row(rows, "lab7.volkov", Impl::Student, largest);
    const Measurement* tiled32 = find_row(rows, "lab7.tiled32", Impl::Student, largest);
    const Measurement* conflict = find_row(rows, "lab7.transposed_b", Impl::Student, largest);
    const Measurement* padded = find_row(rows, "lab7.transposed_b_padded", Impl::Student, largest);
    const Measurement* naive = find_row(rows, "lab7.naive", Impl::Reference, largest);
    if (!volkov || !tiled32 || !conflict || !padded || !naive)
        return {false, "the lab 7 stages were not all timed at " + shape_text(largest)};
    const double over_tiled = ratio(tiled32, volkov), over_naive = ratio(naive, volkov);
    const double padding = ratio(conflict, padded);
    TargetVerdict v;
    v.met = over_tiled >= 1.5 && over_naive >= 2.0 && padding >= 1.5;
    v.explanation = "at " + shape_text(largest) + ": your volkov is " + fixed(over_tiled, 2) +
                    "x faster than your tiled32 (goal >= 1.5) and " + fixed(over_naive, 2) +
                    "x faster than lab 6's naive kernel (goal >= 2); padding made your transposed-B kernel " +
                    fixed(padding, 2) + "x faster (goal >= 1.5)";
    return v;
}

Registrar lab7_stages([](Registry& reg) {
    namespace st = student::lab7;
    add_stage(reg, "naive", nullptr, "lab 6's naive coalesced kernel (reference), the yardstick for lab 7");
    add_stage(reg, "tiled16", st::matmul_tiled16,
              "16x16 shared-memory tiles of A and B, zero-padded at the edges (as in the CUDA lab report)");
    add_stage(reg, "tiled32", st::matmul_tiled32, "32x32 shared-memory tiles of A and B, zero-padded at the edges");
    add_stage(reg, "transposed_b", st::matmul_transposed_b,
              "tile 32, B's tile stored transposed in float[32][32]: 32-way bank conflicts (as in the RTX 4090 GEMM walk-through)");
    add_stage(reg, "transposed_b_padded", st::matmul_transposed_b_padded,
              "the same in float[32][33]: one column of padding, no bank conflicts");
    add_stage(reg, "volkov", st::matmul_volkov,
              "Volkov-Demmel: A's tile in shared, B streamed (coalesced), 64 C values a thread in registers");
    add_stage(reg, "volkov_stream_a", nullptr,
              "the RTX 4090 GEMM walk-through's layout: B's tile in shared, A streamed (uncoalesced), a row strip of C in registers");

    Lab lab;
    lab.number = 7;
    lab.default_shapes = {{4096, 4096, 4096}};
    lab.target = "all stages correct; your volkov >= 1.5x faster than your tiled32 and >= 2x faster than lab 6's "
                 "naive kernel; padding makes your transposed-B kernel >= 1.5x faster";
    lab.judge = judge_lab7;
    reg.add_lab(std::move(lab));
});

}  // namespace
