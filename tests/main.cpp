// The test program's entry point. GPU tests live in test suites named
// "gpu-labN"; with no usable GPU they are excluded, and doctest reports them
// as skipped, with the reason printed first, never as passed. The same for
// test cases named "(needs sm_80)" on a GPU older than compute capability 8.0,
// "(needs sm_90)" on one older than 9.0 (Hopper),
// and for test cases named "(without a GPU)" where a GPU is present.
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
        context.addFilter("test-case-exclude", "*(without a GPU)*");
        std::printf("[tests] tests of what mmlab does without a GPU skipped: a GPU is present\n");
        if (gpu.cc_major < 8) {  // TF32 tensor cores: tests named "(needs sm_80)"
            context.addFilter("test-case-exclude", "*(needs sm_80)*");
            std::printf("[tests] TF32 tests skipped: they need compute capability 8.0, this GPU has %d.%d\n",
                        gpu.cc_major, gpu.cc_minor);
        }
        if (gpu.cc_major < 9) {  // Hopper's wgmma and TMA (lab 11): tests named "(needs sm_90)"
            context.addFilter("test-case-exclude", "*(needs sm_90)*");
            std::printf("[tests] Hopper tests skipped: they need compute capability 9.0 (wgmma, TMA), this GPU "
                        "has %d.%d\n", gpu.cc_major, gpu.cc_minor);
        }
    }
    return context.run();
}
