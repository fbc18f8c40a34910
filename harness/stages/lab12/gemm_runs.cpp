// What lab 12's two product commands (mpi_gemm.cpp: mmlab mpi-gemm,
// nccl_gemm.cpp: mmlab nccl-gemm) share: the flags they read alike, a
// launch's RESULT lines into the Table, and the row helpers every lab 12
// report uses (lab12.h).
#include <algorithm>
#include <stdexcept>

#include "harness/cli.h"
#include "harness/report.h"
#include "harness/stages/lab12/lab12.h"
#include "harness/targets.h"
#include "labs/common/lab12_grid.h"

namespace mml::lab12 {

// ---------------------------------------------------------------- rows

std::string row_shape(const Fields& f) { return shape_text(shape_of(f)); }

Shape shape_of(const Fields& f) {
    return {static_cast<std::int64_t>(number(f, "M", 1)), static_cast<std::int64_t>(number(f, "N", 1)),
            static_cast<std::int64_t>(number(f, "K", 1))};
}

std::string percent(double fraction) { return fraction < 0 ? "-" : fixed(100 * fraction, 0) + "%"; }

const Fields* find_result(const std::vector<Fields>& rows, const std::vector<std::pair<std::string, std::string>>& match) {
    for (const Fields& f : rows) {
        bool all = true;
        for (const auto& [k, v] : match) all &= field(f, k) == v;
        if (all) return &f;
    }
    return nullptr;
}

double efficiency_of(const Fields& row, const std::vector<Fields>& rows, const std::string& baseline_algo) {
    std::vector<std::pair<std::string, std::string>> match = {
        {"algo", baseline_algo}, {"M", field(row, "M")}, {"N", field(row, "N")}, {"K", field(row, "K")}};
    if (!field(row, "precision").empty()) match.push_back({"precision", field(row, "precision")});
    const Fields* base = find_result(rows, match);
    const double t = number(row, "seconds"), P = number(row, "P", 1);
    if (!base || t <= 0 || field(*base, "check") == "WRONG") return -1;
    double t1 = number(*base, "seconds");
    // On the CPU, the reference's rows and SUMMA on one process run the same
    // kernel on the whole matrices (nothing moves): T1 is the fastest of them
    // and the "local" row. One baseline timed once followed the clock: on an
    // idle 16-core host (2026-12-08) "local" took 252.6 ms where the
    // reference's SUMMA on one process took 110.7 ms, and put 228 % in the
    // efficiency column.
    if (baseline_algo == "local")
        for (const Fields& f : rows)
            if (field(f, "impl") == "reference" && number(f, "P", 0) == 1 && field(f, "check") == "ok" &&
                field(f, "M") == field(row, "M") && field(f, "N") == field(row, "N") &&
                field(f, "K") == field(row, "K") && number(f, "seconds") > 0)
                t1 = std::min(t1, number(f, "seconds"));
    return t1 / (P * t);
}

// ---------------------------------------------------------------- launches

std::string size_list(const std::vector<Shape>& shapes) {
    std::string s;
    for (Shape x : shapes) s += (s.empty() ? "" : ",") + shape_arg(x);
    return s;
}

void add_launch(Table& t, const Launch& l, const std::string& what, const std::string& save) {
    // Saved as each launch ends: a run stopped at a time limit keeps what it measured.
    if (!save.empty() && !append_results(save, l.results)) t.errors.push_back("cannot write " + save);
    for (const Fields& f : l.results) {
        t.rows.push_back(f);
        if (field(f, "check") == "WRONG") ++t.wrong;
    }
    if (l.results.empty() && l.error().find("reference is not in this build") != std::string::npos)
        t.notes.push_back(what + ": skipped: " + l.error());  // a student release, a grading build
    else if (l.results.empty() || (l.exit_code != 0 && l.exit_code != 1))
        t.errors.push_back(what + ": " + l.error() + " (" + l.command + ")");
}

// ---------------------------------------------------------------- flags

std::vector<Shape> sizes_flag(const std::string& value) {
    try {
        return parse_shape_list(value);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--size: ") + e.what());
    }
}

std::vector<std::string> impl_flag(const std::string& value) {
    if (value == "both") return {"student", "reference"};
    if (value == "student" || value == "reference") return {value};
    throw UsageError("--impl " + value + ": use student, reference or both");
}

void check_grid_flag(const std::string& grid, const std::vector<int>& nps) {
    if (grid.empty()) return;
    Grid g;
    if (!parse_grid(grid, g)) throw UsageError("--grid " + grid + ": use RxC, e.g. 2x2");
    for (int P : nps)
        if (P != g.size())
            throw UsageError("--grid " + grid + " needs " + std::to_string(g.size()) + " processes, but --np asks for " +
                             std::to_string(P) + ": give --np " + std::to_string(g.size()));
}

}  // namespace mml::lab12
