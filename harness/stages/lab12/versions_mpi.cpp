// The student's lab 12 CPU algorithms, bound for build/bin/mmlab-mpi (the
// reference's: references_mpi.cpp).
#include "harness/stages/lab12/cpu_versions.h"
#include "labs/lab12/distributed.h"

namespace mml::lab12 {

CpuVersions& cpu_versions(bool reference) {
    static CpuVersions student, ref;
    return reference ? ref : student;
}

namespace {
CpuVersionsRegistrar student_versions(false, student::lab12::matmul_rows, student::lab12::matmul_summa);
}  // namespace

}  // namespace mml::lab12
