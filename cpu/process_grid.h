// Lab 12 (given code, not a TODO): who owns which block of A, B and C when a
// product is spread over P processes, and the panels SUMMA walks through.
// It lives in cpu/, below models/, because the alpha-beta-gamma model
// (models/abg_model.h) predicts with the same layout; lab 12's code includes
// it as labs/common/lab12_grid.h.
//
// The distribution (van de Geijn & Watts, "SUMMA", 1997), on a grid of
// `rows` x `cols` processes, rank r at grid row r / cols, column r % cols:
//   C and A are cut into `rows` blocks of rows, C and B into `cols` blocks of
//   columns; A's K columns are cut into `cols` blocks and B's K rows into
//   `rows` blocks. Process (i, j) holds
//       A(rows block i, K block j of cols)    B(K block i of rows, columns block j)
//       C(rows block i, columns block j)
// Blocks are as equal as possible (sizes differ by at most one) and may be
// empty when there are more processes than rows or columns.
//
// The 1-D algorithm (lab12 "rows") is the grid P x 1: rank r holds rows
// block r of A (all K columns) and of C (all N columns), and K block r of B's
// rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu/matrix.h"

namespace mml::lab12 {

// Part i of n items cut into `parts` nearly equal parts: [part_begin(i), part_begin(i+1)).
std::int64_t part_begin(std::int64_t n, int parts, int i);
std::int64_t part_size(std::int64_t n, int parts, int i);
// The part that holds item k (0 <= k < n): never an empty part.
int part_owner(std::int64_t n, int parts, std::int64_t k);

struct Grid {
    int rows = 1, cols = 1;
    int size() const { return rows * cols; }
};
std::string grid_text(Grid g);  // "2x3"
// "2x3" -> {2, 3}; false when it is not two whole numbers >= 1 joined by 'x'.
bool parse_grid(const std::string& text, Grid& g);

// The elements a process receives in SUMMA on grid g, on average over the
// grid's processes: A panels M/rows x K*(cols-1)/cols along the process row,
// B panels K*(rows-1)/rows x N/cols along the process column, so
//     K * (M/rows * (cols-1)/cols + N/cols * (rows-1)/rows).
// Exact for uneven blocks too: each A element crosses to the cols - 1 other
// processes of its row, each B element to the rows - 1 of its column. The
// least any SUMMA can move, and what the reference moves (lab 12's target).
double summa_received_elements(Shape s, Grid g);

// The grid of P processes (every factorization rows x cols = P is a
// candidate) that receives the fewest elements per process in SUMMA
// (summa_received_elements). Ties go to the squarer grid, then to fewer
// rows. A prime P gives 1 x P or P x 1, whichever the shape prefers.
Grid best_grid(int P, Shape s);

// What one rank owns: [m0, m1) rows of A and C, [n0, n1) columns of B and C,
// [ka0, ka1) columns of A, [kb0, kb1) rows of B. Local blocks are row-major:
// A_loc is (m1-m0) x (ka1-ka0), B_loc (kb1-kb0) x (n1-n0), C_loc (m1-m0) x (n1-n0).
struct Layout {
    Shape shape;
    Grid grid;
    int rank = 0, row = 0, col = 0;
    std::int64_t m0 = 0, m1 = 0, n0 = 0, n1 = 0, ka0 = 0, ka1 = 0, kb0 = 0, kb1 = 0;
    std::int64_t rows() const { return m1 - m0; }
    std::int64_t cols() const { return n1 - n0; }
    std::int64_t a_depth() const { return ka1 - ka0; }  // columns of A_loc
    std::int64_t b_depth() const { return kb1 - kb0; }  // rows of B_loc
};
Layout layout_of(Shape s, Grid g, int rank);

// One step of SUMMA: the K range [k0, k1), the grid column whose processes
// hold those columns of A, and the grid row whose processes hold those rows
// of B. The steps cover [0, K) in order; a step never straddles a block edge
// of A's or of B's K split, and is at most `max_width` wide (0: as wide as
// the blocks allow).
struct Panel {
    std::int64_t k0 = 0, k1 = 0;
    int a_owner = 0;  // grid column (the root of the broadcast along a process row)
    int b_owner = 0;  // grid row (the root of the broadcast along a process column)
    std::int64_t width() const { return k1 - k0; }
};
std::vector<Panel> summa_panels(Shape s, Grid g, std::int64_t max_width);

// Whether the process at grid column `col` (row `row`) gets step p's A panel
// (B panel) from another process: its process row (column) has more than one
// process and another one owns the panel - or `always` (--always-broadcast:
// every panel moves, on one GPU from itself).
bool receives_a(Grid g, const Panel& p, int col, bool always);
bool receives_b(Grid g, const Panel& p, int row, bool always);

// The step where rank `rank` starts when every rank fetches its panels from
// the owners itself (the GPU copy transport, labs/common/lab12_copy.h; it
// then walks the rest in K order, wrapping round). Only the first step's
// fetch is not hidden behind a product, so each rank starts where it
// receives the fewest elements, and of those where the ranks it reads from
// serve the fewest ranks already placed (ranks placed in rank order, ties to
// the earlier step): on a 2 x 2 grid the diagonal ranks start on a step they
// hold whole, and the other two fetch from different owners, not both from
// one (which halves each one's share of that owner's links).
std::size_t first_fetch_step(Shape s, Grid g, const std::vector<Panel>& panels, int rank, bool always);

}  // namespace mml::lab12
