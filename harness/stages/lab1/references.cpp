// Lab 1's reference versions, bound to the stages by name. The only file of
// lab 1's harness that includes solutions/: a build without the answers (the
// grader's) leaves it out, and the stages keep their student versions only.
#include "harness/stage.h"
#include "solutions/lab1/loop_orders.h"

namespace {

using mml::from_plain;
using mml::ReferenceRegistrar;
namespace ref = reference::lab1;

ReferenceRegistrar ijk("lab1.ijk", from_plain(ref::matmul_ijk));
ReferenceRegistrar ikj("lab1.ikj", from_plain(ref::matmul_ikj));
ReferenceRegistrar jik("lab1.jik", from_plain(ref::matmul_jik));
ReferenceRegistrar jki("lab1.jki", from_plain(ref::matmul_jki));
ReferenceRegistrar kij("lab1.kij", from_plain(ref::matmul_kij));
ReferenceRegistrar kji("lab1.kji", from_plain(ref::matmul_kji));

}  // namespace
