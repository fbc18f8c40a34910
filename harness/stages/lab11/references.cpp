// Lab 11's reference versions, bound to the stages by name. The only file of
// lab 11's harness that includes solutions/: a build without the answers (the
// grader's) leaves it out, and the stages keep their student versions only.
// (The cuBLAS peers are library calls, registered with the stages.)
#include "harness/stage.h"
#include "harness/stages/lab11/adapters.h"
#include "solutions/lab11/lab11.h"

namespace {

using mml::ReferenceRegistrar;
using mml::lab11::on_bf16;
using mml::lab11::on_e4m3;
using mml::lab11::on_tf32;
namespace ref = reference::lab11;

ReferenceRegistrar wmma_bf16("lab11.wmma_bf16", on_bf16(ref::wmma_bf16));
ReferenceRegistrar mma_sync("lab11.mma_sync", on_bf16(ref::mma_sync));
ReferenceRegistrar wgmma("lab11.wgmma", on_bf16(ref::wgmma));
ReferenceRegistrar wgmma_tf32("lab11.wgmma_tf32", on_tf32(ref::wgmma_tf32));
ReferenceRegistrar wgmma_streamk("lab11.wgmma_streamk", on_bf16(ref::wgmma_streamk));
ReferenceRegistrar wgmma_fp8("lab11.wgmma_fp8", on_e4m3(ref::wgmma_fp8));

}  // namespace
