// Lab 8's reference versions, bound to the stages by name (the cuBLAS rows
// are peers with their library call, registered in stages.cpp). The only
// file of lab 8's harness that includes solutions/: a build without the
// answers (the grader's) leaves it out.
#include "harness/stage.h"
#include "harness/stages/lab8/autotile_param.h"
#include "solutions/lab8/lab8.h"

namespace {

using mml::from_plain;
using mml::ReferenceRegistrar;
namespace ref = reference::lab8;

ReferenceRegistrar register_tile("lab8.register_tile", from_plain(ref::register_tile));
ReferenceRegistrar vector_loads("lab8.vector_loads", from_plain(ref::vector_loads));
ReferenceRegistrar conflict_free("lab8.conflict_free", from_plain(ref::conflict_free));
ReferenceRegistrar double_buffer("lab8.double_buffer", from_plain(ref::double_buffer));
ReferenceRegistrar async_copy("lab8.async_copy", from_plain(ref::async_copy));
ReferenceRegistrar autotile("lab8.autotile", mml::lab8::autotiled(ref::autotile));
ReferenceRegistrar streamk("lab8.streamk", mml::lab8::streamk_switched(ref::streamk));
ReferenceRegistrar wmma_tf32("lab8.wmma_tf32", from_plain(ref::wmma_tf32));

}  // namespace
