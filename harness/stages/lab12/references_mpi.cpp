// Lab 12's reference CPU algorithms, bound for build/bin/mmlab-mpi. Like every
// references*.cpp, the only kind of harness file that includes solutions/: a
// build without the answers leaves it out.
#include "harness/stages/lab12/cpu_versions.h"
#include "solutions/lab12/distributed.h"

namespace {
mml::lab12::CpuVersionsRegistrar reference_versions(true, reference::lab12::matmul_rows,
                                                    reference::lab12::matmul_summa);
}  // namespace
