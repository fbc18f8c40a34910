// Lab 12's block distribution and SUMMA panels (process_grid.h).
#include "cpu/process_grid.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace mml::lab12 {

std::int64_t part_begin(std::int64_t n, int parts, int i) { return n * i / parts; }

std::int64_t part_size(std::int64_t n, int parts, int i) {
    return part_begin(n, parts, i + 1) - part_begin(n, parts, i);
}

// part_begin(i) <= k  <=>  n*i/parts < k+1  <=>  i < (k+1)*parts/n, so the
// owner is the largest such i: ceil((k+1)*parts/n) - 1. An empty part i has
// part_begin(i+1) = part_begin(i), so the largest i is never empty.
int part_owner(std::int64_t n, int parts, std::int64_t k) {
    return static_cast<int>(((k + 1) * parts + n - 1) / n - 1);
}

std::string grid_text(Grid g) { return std::to_string(g.rows) + "x" + std::to_string(g.cols); }

bool parse_grid(const std::string& text, Grid& g) {
    const auto x = text.find('x');
    if (x == std::string::npos || x == 0 || x + 1 >= text.size()) return false;
    const std::string a = text.substr(0, x), b = text.substr(x + 1);
    for (const std::string& part : {a, b}) {
        if (part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos) return false;
    }
    g.rows = std::atoi(a.c_str());
    g.cols = std::atoi(b.c_str());
    return g.rows >= 1 && g.cols >= 1;
}

double summa_received_elements(Shape s, Grid g) {
    const int r = g.rows, c = g.cols;
    // A panels when the row has several processes, B panels when the column has.
    const double a = c > 1 ? double(s.M) / r * double(s.K) * (c - 1) / c : 0.0;
    const double b = r > 1 ? double(s.N) / c * double(s.K) * (r - 1) / r : 0.0;
    return a + b;
}

Grid best_grid(int P, Shape s) {
    Grid best{P, 1};
    double best_volume = std::numeric_limits<double>::infinity();
    for (int r = 1; r <= P; ++r) {
        if (P % r != 0) continue;
        const int c = P / r;
        const double volume = summa_received_elements(s, {r, c});
        const auto squareness = [](Grid g) { return std::abs(g.rows - g.cols); };
        const bool first = best_volume == std::numeric_limits<double>::infinity();
        const double tie = first ? 0.0 : 1e-9 * std::max(1.0, best_volume);
        if (first || volume < best_volume - tie ||
            (volume <= best_volume + tie && squareness({r, c}) < squareness(best))) {
            best = {r, c};
            best_volume = std::min(volume, best_volume);
        }
    }
    return best;
}

Layout layout_of(Shape s, Grid g, int rank) {
    Layout L;
    L.shape = s;
    L.grid = g;
    L.rank = rank;
    L.row = rank / g.cols;
    L.col = rank % g.cols;
    L.m0 = part_begin(s.M, g.rows, L.row);
    L.m1 = part_begin(s.M, g.rows, L.row + 1);
    L.n0 = part_begin(s.N, g.cols, L.col);
    L.n1 = part_begin(s.N, g.cols, L.col + 1);
    L.ka0 = part_begin(s.K, g.cols, L.col);
    L.ka1 = part_begin(s.K, g.cols, L.col + 1);
    L.kb0 = part_begin(s.K, g.rows, L.row);
    L.kb1 = part_begin(s.K, g.rows, L.row + 1);
    return L;
}

bool receives_a(Grid g, const Panel& p, int col, bool always) { return always || (g.cols > 1 && p.a_owner != col); }
bool receives_b(Grid g, const Panel& p, int row, bool always) { return always || (g.rows > 1 && p.b_owner != row); }

std::size_t first_fetch_step(Shape s, Grid g, const std::vector<Panel>& panels, int rank, bool always) {
    std::vector<int> readers(static_cast<std::size_t>(g.size()), 0);  // of each rank, by the ranks placed so far
    for (int r = 0; r < g.size(); ++r) {
        const Layout L = layout_of(s, g, r);
        std::size_t best = 0;
        std::int64_t best_elems = 0;
        int best_load = 0, best_a = -1, best_b = -1;
        for (std::size_t k = 0; k < panels.size(); ++k) {
            const Panel& p = panels[k];
            const bool a = receives_a(g, p, L.col, always), b = receives_b(g, p, L.row, always);
            const int src_a = a ? L.row * g.cols + p.a_owner : -1, src_b = b ? p.b_owner * g.cols + L.col : -1;
            const std::int64_t elems = (a ? L.rows() * p.width() : 0) + (b ? p.width() * L.cols() : 0);
            const int load = std::max(src_a >= 0 ? readers[src_a] : 0, src_b >= 0 ? readers[src_b] : 0);
            if (k == 0 || elems < best_elems || (elems == best_elems && load < best_load)) {
                best = k, best_elems = elems, best_load = load, best_a = src_a, best_b = src_b;
            }
        }
        if (r == rank) return best;
        if (best_elems > 0 && best_a >= 0) ++readers[best_a];
        if (best_elems > 0 && best_b >= 0) ++readers[best_b];
    }
    return 0;
}

std::vector<Panel> summa_panels(Shape s, Grid g, std::int64_t max_width) {
    // Every block edge of A's K split (cols parts) and of B's (rows parts).
    std::vector<std::int64_t> edges = {0, s.K};
    for (int j = 1; j < g.cols; ++j) edges.push_back(part_begin(s.K, g.cols, j));
    for (int i = 1; i < g.rows; ++i) edges.push_back(part_begin(s.K, g.rows, i));
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    std::vector<Panel> panels;
    for (std::size_t e = 0; e + 1 < edges.size(); ++e) {
        const std::int64_t a = edges[e], b = edges[e + 1];
        // Equal pieces of at most max_width (1000 with 384 -> 3 x 333/334, not 384+384+232).
        const std::int64_t pieces = max_width > 0 ? (b - a + max_width - 1) / max_width : 1;
        for (std::int64_t p = 0; p < pieces; ++p) {
            Panel panel;
            panel.k0 = a + (b - a) * p / pieces;
            panel.k1 = a + (b - a) * (p + 1) / pieces;
            panel.a_owner = part_owner(s.K, g.cols, panel.k0);
            panel.b_owner = part_owner(s.K, g.rows, panel.k0);
            panels.push_back(panel);
        }
    }
    return panels;
}

}  // namespace mml::lab12
