// build/bin/mmlab-nccl's GPU set-up (gpu_setup.h).
#include "harness/stages/lab12/gpu_setup.h"

#include <mpi.h>

#include <algorithm>
#include <map>
#include <utility>

#include "harness/stages/lab12/program_common.h"
#include "labs/common/lab12_comm.h"
#include "labs/common/lab12_nccl.h"

namespace mml::lab12 {

int g_local_rank = 0, g_local_size = 1, g_devices = 0;
ncclComm_t g_world_comm = nullptr;

std::string nccl_version() {
    int v = 0;
    nccl_check(ncclGetVersion(&v), "ncclGetVersion");
    // Since NCCL 2.9 the code is major*10000 + minor*100 + patch.
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

std::string device_name() {
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, g_local_rank));
    return prop.name;
}

// One GPU per process: local rank i (among the processes of this node) takes GPU i.
namespace {
void pick_device() {
    MPI_Comm node = MPI_COMM_NULL;
    mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world().rank, MPI_INFO_NULL, &node),
              "MPI_Comm_split_type");
    mpi_check(MPI_Comm_rank(node, &g_local_rank), "MPI_Comm_rank");
    mpi_check(MPI_Comm_size(node, &g_local_size), "MPI_Comm_size");
    mpi_check(MPI_Comm_free(&node), "MPI_Comm_free");
    const cudaError_t err = cudaGetDeviceCount(&g_devices);
    int ok = err == cudaSuccess && g_devices > 0;
    int all_ok = 0;
    mpi_check(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    if (!all_ok)
        throw Usage(std::string("needs a CUDA GPU per process, but ") +
                    (err != cudaSuccess ? std::string("cudaGetDeviceCount says: ") + cudaGetErrorString(err)
                                        : std::string("this machine has none")));
    int fits = g_local_size <= g_devices, all_fit = 0;
    mpi_check(MPI_Allreduce(&fits, &all_fit, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    if (!all_fit)
        throw Usage(std::to_string(g_local_size) + " processes on one node but only " + std::to_string(g_devices) +
                    " GPU(s): one process per GPU (mpirun -np " + std::to_string(g_devices) + " here)");
    CUDA_CHECK(cudaSetDevice(g_local_rank));
}
}  // namespace

// This process's GPU, then all ranks' NCCL communicator, from an id made by
// rank 0 and broadcast over MPI.
void set_up_gpu() {
    pick_device();
    ncclUniqueId id{};
    if (world().rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    mpi_check(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast (NCCL id)");
    nccl_check(ncclCommInitRank(&g_world_comm, world().size, id, world().rank), "ncclCommInitRank");
}

// The ranks of g_world_comm with the same color, ordered by key.
ncclComm_t split_world(int color, int key) {
    ncclComm_t out = nullptr;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0)
    nccl_check(ncclCommSplit(g_world_comm, color, key, &out, nullptr), "ncclCommSplit");
#else  // older NCCL: the same from MPI, an id per group
    MPI_Comm group = MPI_COMM_NULL;
    mpi_check(MPI_Comm_split(MPI_COMM_WORLD, color, key, &group), "MPI_Comm_split");
    int r = 0, n = 1;
    MPI_Comm_rank(group, &r);
    MPI_Comm_size(group, &n);
    ncclUniqueId id{};
    if (r == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    mpi_check(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, group), "MPI_Bcast (NCCL id)");
    nccl_check(ncclCommInitRank(&out, n, id, r), "ncclCommInitRank");
    mpi_check(MPI_Comm_free(&group), "MPI_Comm_free");
#endif
    return out;
}

// A block of host floats on the device, as float or as bfloat16.
std::size_t nccl_bytes(std::size_t bytes) { return std::max<std::size_t>(16, (bytes + 15) / 16 * 16); }

gpu::DeviceBuffer<char> to_device(const float* host, std::int64_t count, Precision p) {
    gpu::DeviceBuffer<char> out(nccl_bytes(count * element_bytes(p)));
    if (count == 0) return out;
    if (p == Precision::Fp32) {
        CUDA_CHECK(cudaMemcpy(out.get(), host, count * sizeof(float), cudaMemcpyHostToDevice));
    } else {
        gpu::DeviceBuffer<float> tmp(count);
        tmp.copy_from_host(host);
        to_bf16(tmp.get(), out.get(), count, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    return out;
}

namespace {
std::map<std::pair<int, int>, GridComms>& grid_cache() {
    static std::map<std::pair<int, int>, GridComms> cache;
    return cache;
}
}  // namespace

GridComms grid_comms(const Grid& g, int row, int col) {
    GridComms& c = grid_cache()[{g.rows, g.cols}];
    if (!c.row) {
        c.row = split_world(row, col);
        c.col = split_world(col, row);
    }
    return c;
}

void free_grid_comms() {
    for (auto& [grid, c] : grid_cache()) {
        if (c.row) ncclCommDestroy(c.row);
        if (c.col) ncclCommDestroy(c.col);
    }
    grid_cache().clear();
}

bool one_node() {
    int here = g_local_size == world().size, all = 0;
    mpi_check(MPI_Allreduce(&here, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    return all == 1;
}

}  // namespace mml::lab12
