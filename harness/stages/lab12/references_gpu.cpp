// Lab 12's one binding to lab 8: the per-tile product "--tile lab8" of the
// GPU SUMMA is lab 8's fastest kernel (the reference's double-buffered one),
// reached only through labs/common/lab12_lab8_binding.h. Built with CUDA only (the
// _gpu.cpp rule), and left out of a build without the answers, where
// --tile lab8 then says it is not in this build.
#include "labs/common/lab12_lab8_binding.h"
#include "solutions/lab8/lab8.h"

namespace {
struct Bind {
    Bind() { mml::lab12::bind_lab8_kernel(reference::lab8::double_buffer, "double_buffer kernel"); }
} bind;
}  // namespace
