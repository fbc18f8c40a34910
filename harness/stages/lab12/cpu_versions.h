// The two versions (student, reference) of lab 12's CPU algorithms, as the
// MPI program build/bin/mmlab-mpi finds them: the student's are bound in
// versions_mpi.cpp, the reference's in references_mpi.cpp (left out of a
// build without the answers, where --impl reference then says so).
#pragma once

#include <mpi.h>

#include <cstdint>

#include "labs/common/lab12_comm.h"
#include "labs/common/lab12_grid.h"

namespace mml::lab12 {

using RowsFn = void (*)(const Layout&, MPI_Comm, const float*, const float*, float*, CommStats&);
using SummaFn = void (*)(const Layout&, MPI_Comm, const float*, const float*, float*, std::int64_t, CommStats&);

struct CpuVersions {
    RowsFn rows = nullptr;
    SummaFn summa = nullptr;
};
CpuVersions& cpu_versions(bool reference);

struct CpuVersionsRegistrar {
    CpuVersionsRegistrar(bool reference, RowsFn rows, SummaFn summa) {
        cpu_versions(reference) = {rows, summa};
    }
};

}  // namespace mml::lab12
