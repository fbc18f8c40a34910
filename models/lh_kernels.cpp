// The basic blocks of our three kernels, as Yuan et al. 2010's model sees them (lh_kernels.h).
//
// How a block's numbers are counted (the paper counts PTX instructions; we
// count the operations of the CUDA source, as the comments list them):
//   ILP       = ALU instructions x issue_alu + loads/stores x issue_lsu
//   latency   = the level the block waits on (DRAM or shared memory), as
//               measured by `mmlab gpu-latency` (or the paper's Table 2)
//   bandwidth = one warp's bytes / the bytes an SM gets per cycle. Global
//               bytes are counted in whole sectors per row a warp touches
//               (a warp reading 32 neighbouring floats moves 128 bytes; one
//               float for the whole warp still moves a 32-byte sector);
//               shared accesses one wavefront (128 bytes) per instruction.
// Memory::DramOnly is the paper's model: every global access goes to DRAM, no
// L1 or L2 cache (the C1060 had none for global memory). Memory::Caches is
// lab 10's extension for the H100 (50 MB of L2, up to 256 KB of L1 an SM): a
// global load block's bytes are split between the levels by the reuse
// analysis (models/lh_reuse.h), and the block is charged
//   latency   = the longest of its streams' expected waits, a stream's being
//               sum over levels of P(its wait ends there) x that level's latency
//               (the warp needs all its loads before it goes on);
//   bandwidth = the slowest level's transfer time for the warp's bytes: every
//               requested byte through the L1 (per SM), those that miss it
//               through the L2 (its bandwidth / NSM), those that miss both
//               from DRAM (its bandwidth / NSM); the levels work as a
//               pipeline, so the slowest one sets the pace.
// The instructors' handouts/data/lab10/history.md shows both, before and after.
#include "models/lh_kernels.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/lh_reuse.h"

namespace mml::lh {
namespace {

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

double round_up(double bytes, int sector) { return double(ceil_div((long long)bytes, sector)) * sector; }

Block make_block(const Hardware& hw, const char* what, int alu, int lsu, double bytes, bool global, bool barrier) {
    Block b;
    b.what = what;
    b.ilp = alu * hw.issue_alu + lsu * hw.issue_lsu;
    b.latency = global ? hw.latency_global : hw.latency_shared;
    b.bandwidth = bytes / (global ? hw.global_bytes_per_cycle() : hw.shared_bytes_per_cycle);
    b.barrier = barrier;
    return b;
}

// One global load stream of a cache-aware block: the warp's requested bytes and where they come from.
struct Stream {
    double bytes = 0;
    StreamShare share;
};

std::string percent(double x) { return std::to_string(int(100 * x + 0.5)); }

// A global load block charged level by level (the file's comment says how).
Block cached_block(const Hardware& hw, const std::string& what, int alu, int lsu, const std::vector<Stream>& streams,
                   bool barrier) {
    Block b;
    b.ilp = alu * hw.issue_alu + lsu * hw.issue_lsu;
    double l1 = 0, l2 = 0, dram = 0, total = 0;
    for (const Stream& st : streams) {
        const Levels& w = st.share.wait;
        b.latency = std::max(b.latency, w.l1 * hw.latency_l1 + w.l2 * hw.latency_l2 + w.dram * hw.latency_global);
        total += st.bytes;
        l1 += st.bytes * st.share.bytes.l1, l2 += st.bytes * st.share.bytes.l2, dram += st.bytes * st.share.bytes.dram;
    }
    b.bandwidth = std::max({total / hw.l1_bytes_per_cycle, (l2 + dram) / hw.l2_bytes_per_cycle(),
                            dram / hw.global_bytes_per_cycle()});
    b.barrier = barrier;
    // The shares in the name, so that --explain shows them.
    b.what = what + " [L1/L2/DRAM " + percent(l1 / total) + "/" + percent(l2 / total) + "/" + percent(dram / total) + "%]";
    return b;
}

void require_caches(const Hardware& hw, Memory memory) {
    if (memory == Memory::Caches && !hw.has_caches())
        throw std::invalid_argument("the cache-aware model needs the caches' latencies, bandwidths and size (" +
                                    hw.name + " has none)");
}

LaunchGeometry geometry(const Kernel& k, Shape s, long long block_rows, long long block_cols) {
    LaunchGeometry g;
    g.grid_x = ceil_div(s.N, block_cols);
    g.grid_y = ceil_div(s.M, block_rows);
    g.block_rows = block_rows, g.block_cols = block_cols;
    g.resident = std::min<long long>(k.grid_blocks, (long long)k.occupancy.blocks_per_sm * k.sm_count);
    return g;
}

Kernel launch(const Hardware& hw, const char* name, long long grid_blocks, Occupancy occ) {
    if (hw.sm_count < 1 || hw.clock_ghz <= 0 || hw.bandwidth_gbs <= 0 || hw.shared_bytes_per_cycle <= 0)
        throw std::invalid_argument("hardware description incomplete for the latency-hidden model");
    Kernel k;
    k.name = name;
    k.grid_blocks = grid_blocks;
    k.sm_count = hw.sm_count;
    k.clock_ghz = hw.clock_ghz;
    // A launch smaller than the GPU leaves SMs with fewer blocks than they could hold.
    occ.blocks_per_sm = int(std::max(1LL, std::min<long long>(occ.blocks_per_sm, ceil_div(grid_blocks, hw.sm_count))));
    k.occupancy = occ;
    return k;
}

}  // namespace

Hardware paper_c1060() {
    Hardware h;
    h.name = "Tesla C1060 (Yuan et al. 2010, Table 2)";
    h.sm_count = 30;
    h.clock_ghz = 1.30;
    h.issue_alu = 4;  // 32 threads / 8 cores
    h.issue_lsu = 4;
    h.latency_global = 550;
    h.latency_shared = 36;
    h.bandwidth_gbs = 102;
    h.shared_bytes_per_cycle = 50 / 1.30;
    h.sector_bytes = 32;
    h.block_scheduling = true;
    return h;
}

Hardware recorded_h100() {
    Hardware h;
    h.name = std::string("H100 80GB HBM3 (inputs measured ") + kRecordedH100Date + ")";
    h.sm_count = 132;
    h.clock_ghz = 1.98;
    h.issue_alu = 0.25;  // 4 schedulers x 32 FP32 lanes
    h.issue_lsu = 1.0;   // 32 load/store units an SM
    h.latency_global = 688;
    h.latency_shared = 29;
    h.bandwidth_gbs = 3022;
    h.shared_bytes_per_cycle = 128;
    h.sector_bytes = 32;
    h.block_scheduling = false;
    // The caches: L1 and L2 hit latencies by pointer chasing, the L2's read
    // bandwidth (all SMs), its size as the device reports it; the L1 moves
    // 128 bytes a cycle (the SRAM it shares with shared memory).
    h.latency_l1 = 39.6;
    h.latency_l2 = 283;
    h.l1_bytes_per_cycle = 128;
    h.l2_bandwidth_gbs = 6083;
    h.l2_bytes = 50.0 * 1048576;
    return h;
}

const std::vector<long long>& recorded_h100_sizes() {
    static const std::vector<long long> sizes = {544, 1056, 2080, 4128, 512, 1024, 2048, 4096};
    return sizes;
}

Occupancy recorded_h100_occupancy(const std::string& kernel) {
    if (kernel == "naive" || kernel == "tiled16") return {8, 8};
    if (kernel == "tiled32") return {32, 2};
    if (kernel == "volkov") return {4, 3};
    throw std::invalid_argument("no recorded H100 occupancy for kernel '" + kernel + "'");
}

// Lab 6's naive kernel: one thread per element of C, a block of bx x by
// threads. A warp covers rows_w = 32/bx rows of bx columns. At every k it
// loads A[i][k] (one float per row: a sector each) and B[k][j..] (one
// segment per row), then does one multiply-add. Blocks (Fig. 11 of the
// paper, with its first load folded into the setup):
//   0       setup (8 integer ops), load A[i][0], B[0][j]       wait: DRAM
//   1..K-1  FMA of k-1, load A[i][k], B[k][j], 2 address adds  wait: DRAM
//   K       FMA of K-1, store C[i][j]                         wait: DRAM
//
// With Memory::Caches, as the compiler builds the loop: kNaiveStepsPerWait = U
// steps a block (their 2U loads in flight together), and the loads split by the
// reuse analysis (lh_reuse.cpp): A[i][k]'s sector serves the warp 8 steps
// (own_reuse, 8 uses, a wait every U steps), B[k][j..]'s segment is read by
// the block's by/rows_w warps in step (convoy); their L1 misses split on
// the L2 side as lh_reuse.h's a_panel_l2 and b_strip_l2 say (DRAM once a
// wave that shares the data, or once in all when it stays in the L2; nothing
// from DRAM when the inputs stay warm from the run before).
//   0        setup, loads of steps 0..U-1
//   1..S-1   U FMA of the previous steps, loads of the next U    (S = ceil(K/U))
//   S        U FMA, store C
Kernel naive_model(const Hardware& hw, Shape s, int bx, int by, Occupancy occ, Memory memory) {
    require_caches(hw, memory);
    const int cols_w = std::min(bx, 32), rows_w = std::max(1, 32 / bx);
    const double a_bytes = rows_w * double(hw.sector_bytes), b_bytes = rows_w * round_up(4.0 * cols_w, hw.sector_bytes);
    const double per_k = b_bytes + a_bytes;
    const double c_bytes = rows_w * round_up(4.0 * cols_w, hw.sector_bytes);
    Kernel k = launch(hw, "naive", ceil_div(s.N, bx) * ceil_div(s.M, by), occ);
    if (memory == Memory::Caches) {
        const int u = kNaiveStepsPerWait;
        const LaunchGeometry g = geometry(k, s, by, bx);
        const double floats_per_sector = hw.sector_bytes / 4.0;
        const std::vector<Stream> streams = {
            {u * a_bytes, own_reuse(floats_per_sector, u, a_panel_l2(s, g, hw.l2_bytes))},
            {u * b_bytes, convoy(double(by) / rows_w, b_strip_l2(s, g, hw.l2_bytes))}};
        k.blocks.push_back(cached_block(hw, "setup, loads of the first steps", 8, 2 * u, streams, false));
        const Block step = cached_block(hw, std::to_string(u) + " FMA, loads of the next " + std::to_string(u) + " steps",
                                        3 * u, 2 * u, streams, false);
        for (long long group = 1; group < ceil_div(s.K, u); ++group) k.blocks.push_back(step);
        k.blocks.push_back(make_block(hw, (std::to_string(u) + " FMA, store C[i][j]").c_str(), 3 * u, 1, c_bytes, true,
                                      hw.block_scheduling));
        return k;
    }
    k.blocks.push_back(make_block(hw, "setup, load A[i][0], B[0][j]", 8, 2, per_k, true, false));
    const Block step = make_block(hw, "FMA, load A[i][k], B[k][j]", 3, 2, per_k, true, false);
    for (long long kk = 1; kk < s.K; ++kk) k.blocks.push_back(step);
    k.blocks.push_back(make_block(hw, "FMA, store C[i][j]", 3, 1, c_bytes, true, hw.block_scheduling));
    return k;
}

// Lab 7's tiled kernel (the paper's CUBLAS 1.1 scheme, Fig. 12): TILE x TILE
// threads, TILE*TILE/32 warps a block. Per step of TILE along K, 3 blocks
// (the paper's NBB = 3*(WA/BS) + 1):
//   load    one float of A's and of B's tile per thread, 6 integer ops
//           (bounds, addresses)                                     wait: DRAM
//   store   both to shared memory, __syncthreads                    wait: shared, barrier
//   compute TILE x (load Bs[k][tx], FMA) + TILE/4 16-byte loads of
//           As[ty][k..k+3] (a broadcast), 2 loop ops, __syncthreads  wait: shared, barrier
// and one final block, the store of C.
// With Memory::Caches, the load block's two streams have no L1 reuse (each
// element is copied to shared memory once per block), and split on
// the L2 side as lh_reuse.h's a_panel_l2 and b_strip_l2 say (DRAM once a
// wave that shares the data, or once in all when it stays in the L2; nothing
// from DRAM when the inputs stay warm from the run before).
Kernel tiled_model(const Hardware& hw, Shape s, int tile, Occupancy occ, Memory memory) {
    if (tile < 4 || tile > 32 || 32 % tile) throw std::invalid_argument("tiled_model: tile must be 4, 8, 16 or 32");
    require_caches(hw, memory);
    const int rows_w = 32 / tile;
    const double tile_bytes = rows_w * round_up(4.0 * tile, hw.sector_bytes);  // one tile's part for one warp
    const int as_loads = std::max(1, tile / 4);
    Kernel k = launch(hw, tile == 16 ? "tiled16" : tile == 32 ? "tiled32" : "tiled",
                               ceil_div(s.N, tile) * ceil_div(s.M, tile), occ);
    Block load = make_block(hw, "load A, B tile elements", 6, 2, 2 * tile_bytes, true, false);
    if (memory == Memory::Caches) {
        const LaunchGeometry g = geometry(k, s, tile, tile);
        load = cached_block(hw, "load A, B tile elements", 6, 2,
                            {{tile_bytes, no_l1_reuse(a_panel_l2(s, g, hw.l2_bytes))},
                             {tile_bytes, no_l1_reuse(b_strip_l2(s, g, hw.l2_bytes))}},
                            false);
    }
    const Block store = make_block(hw, "store to shared, barrier", 1, 2, 2 * 128.0, false, true);
    const Block compute = make_block(hw, "TILE FMA from shared, barrier", tile + 2, tile + as_loads,
                                     (tile + as_loads) * 128.0, false, true);
    for (long long step = 0; step < ceil_div(s.K, tile); ++step) {
        k.blocks.push_back(load);
        k.blocks.push_back(store);
        k.blocks.push_back(compute);
    }
    k.blocks.push_back(make_block(hw, "store C", 2, 1, tile_bytes, true, hw.block_scheduling));
    return k;
}

// Lab 7's Volkov-Demmel kernel: 128 threads (4 warps), each a strip of 64
// elements of C in registers; A's 64 x 32 tile in shared memory, B streamed
// from global memory. Per step of 32 along K:
//   load A  16 loads a thread (128 bytes a warp each), 2 integer ops each   wait: DRAM
//   store   16 stores to shared, __syncthreads                           wait: shared, barrier
//   8 x     4 loads of B (128 bytes a warp each), 64 16-byte broadcast
//           loads of A's tile, 256 FMA, 4 address ops                    wait: DRAM
//           (the 8th ends at the __syncthreads)
// and a final block: 64 guarded stores of C.
// With Memory::Caches, neither stream has L1 reuse (A's tile is copied to
// shared memory once per block, each B element read by one thread of one
// block), and split on
// the L2 side as lh_reuse.h's a_panel_l2 and b_strip_l2 say (DRAM once a
// wave that shares the data, or once in all when it stays in the L2; nothing
// from DRAM when the inputs stay warm from the run before).
Kernel volkov_model(const Hardware& hw, Shape s, Occupancy occ, Memory memory) {
    require_caches(hw, memory);
    const int per_thread = kVolkovRows * kVolkovDepth / kVolkovThreads;  // 16 elements of A's tile
    const int groups = kVolkovDepth / 4;
    Kernel k = launch(hw, "volkov", ceil_div(s.N, kVolkovThreads) * ceil_div(s.M, kVolkovRows), occ);
    Block load = make_block(hw, "load A's tile", 2 * per_thread, per_thread, per_thread * 128.0, true, false);
    const Block store = make_block(hw, "store A's tile, barrier", 1, per_thread, per_thread * 128.0, false, true);
    Block group = make_block(hw, "4 B loads, 64 As loads, 256 FMA", 4 * kVolkovRows + 4, 4 + kVolkovRows,
                             4 * 128.0, true, false);
    if (memory == Memory::Caches) {
        const LaunchGeometry g = geometry(k, s, kVolkovRows, kVolkovThreads);
        load = cached_block(hw, "load A's tile", 2 * per_thread, per_thread,
                            {{per_thread * 128.0, no_l1_reuse(a_panel_l2(s, g, hw.l2_bytes))}}, false);
        group = cached_block(hw, "4 B loads, 64 As loads, 256 FMA", 4 * kVolkovRows + 4, 4 + kVolkovRows,
                             {{4 * 128.0, no_l1_reuse(b_strip_l2(s, g, hw.l2_bytes))}}, false);
    }
    Block last = group;
    last.barrier = true;
    for (long long step = 0; step < ceil_div(s.K, kVolkovDepth); ++step) {
        k.blocks.push_back(load);
        k.blocks.push_back(store);
        for (int g = 0; g + 1 < groups; ++g) k.blocks.push_back(group);
        k.blocks.push_back(last);
    }
    k.blocks.push_back(make_block(hw, "store 64 C values", kVolkovRows, kVolkovRows, kVolkovRows * 128.0, true,
                                  hw.block_scheduling));
    return k;
}

const std::vector<std::string>& modelled_kernels() {
    static const std::vector<std::string> names = {"naive", "tiled16", "tiled32", "volkov"};
    return names;
}

const char* memory_name(Memory m) { return m == Memory::Caches ? "caches" : "DRAM only"; }

Kernel kernel_model(const std::string& kernel, const Hardware& hw, Shape s, Occupancy occ, Memory memory) {
    if (kernel == "naive") return naive_model(hw, s, kNaiveBlockX, kNaiveBlockY, occ, memory);
    if (kernel == "tiled16") return tiled_model(hw, s, 16, occ, memory);
    if (kernel == "tiled32") return tiled_model(hw, s, 32, occ, memory);
    if (kernel == "volkov") return volkov_model(hw, s, occ, memory);
    throw std::invalid_argument("no latency-hidden model for kernel '" + kernel + "'");
}

}  // namespace mml::lh
