// The test program's entry point. GPU tests live in test suites named
// "gpu-labN"; with no usable GPU they are excluded, and doctest reports them
// as skipped, with the reason printed first, never as passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "harness/gpu_backend.h"

int main(int argc, char** argv) {
    doctest::Context context;
    context.applyCommandLine(argc, argv);
    const mml::gpu::DeviceInfo gpu = mml::gpu::probe();
    if (!gpu.available) {
        context.addFilter("test-suite-exclude", "gpu-*");
        std::printf("[tests] GPU tests skipped: %s\n", gpu.why_not.c_str());
    } else {
        std::printf("[tests] GPU: %s (sm_%d%d)\n", gpu.name.c_str(), gpu.cc_major, gpu.cc_minor);
    }
    return context.run();
}
