// The compiled reference kernels behind lab 10's latency-hidden model: the
// model reads their registers and occupancy from the device, and the stage
// beside each is timed against the prediction. Built only with CUDA (the
// handles are CUDA kernels), and, like every references file, only with the
// answers: a build without them says that the GPU part of lh-model cannot run.
#include "harness/stages/lab10/lab10.h"
#include "solutions/lab6/lab6.h"
#include "solutions/lab7/lab7.h"

namespace {

using mml::lab10::bind_modelled_kernel;

const bool bound = [] {
    bind_modelled_kernel({"naive", "lab6.naive_coalesced", reference::lab6::naive_coalesced_handle()});
    bind_modelled_kernel({"tiled16", "lab7.tiled16", reference::lab7::tiled16_handle()});
    bind_modelled_kernel({"tiled32", "lab7.tiled32", reference::lab7::tiled32_handle()});
    bind_modelled_kernel({"volkov", "lab7.volkov", reference::lab7::volkov_handle()});
    return true;
}();

}  // namespace
