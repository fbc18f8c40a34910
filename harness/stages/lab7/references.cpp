// Lab 7's reference versions, bound to the stages by name: the student
// stages' references and the two reference-only comparison rows (lab 6's
// naive kernel as lab7.naive, the RTX 4090 GEMM walk-through's layout as
// lab7.volkov_stream_a). The
// only file of lab 7's harness that includes solutions/: a build without the
// answers (the grader's) leaves it out.
#include "harness/stage.h"
#include "solutions/lab6/lab6.h"
#include "solutions/lab7/lab7.h"

namespace {

using mml::from_plain;
using mml::ReferenceRegistrar;
namespace ref = reference::lab7;

ReferenceRegistrar naive("lab7.naive", from_plain(reference::lab6::matmul_naive_coalesced));
ReferenceRegistrar tiled16("lab7.tiled16", from_plain(ref::matmul_tiled16));
ReferenceRegistrar tiled32("lab7.tiled32", from_plain(ref::matmul_tiled32));
ReferenceRegistrar transposed_b("lab7.transposed_b", from_plain(ref::matmul_transposed_b));
ReferenceRegistrar transposed_b_padded("lab7.transposed_b_padded", from_plain(ref::matmul_transposed_b_padded));
ReferenceRegistrar volkov("lab7.volkov", from_plain(ref::matmul_volkov));
ReferenceRegistrar volkov_stream_a("lab7.volkov_stream_a", from_plain(ref::matmul_volkov_stream_a));

}  // namespace
