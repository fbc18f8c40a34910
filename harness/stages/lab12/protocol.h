// What mmlab and lab 12's MPI programs (build/bin/mmlab-mpi, mmlab-nccl) say
// to each other. mmlab is not an MPI program: its lab 12 commands start the
// programs with mpirun and read their answers, one line per result:
//   RESULT algo=summa impl=reference P=4 grid=2x2 M=300 N=200 K=100 seconds=0.0123 ...
// (key=value, a value with spaces in double quotes). Plain C++: the programs
// and the harness both include it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cpu/error_bound.h"
#include "cpu/matrix.h"

namespace mml::lab12 {

// Builds a RESULT line: add("seconds", 0.5) ... then text().
class ResultLine {
public:
    ResultLine& add(const std::string& key, const std::string& value);
    ResultLine& add(const std::string& key, const char* value) { return add(key, std::string(value)); }
    ResultLine& add(const std::string& key, double value);
    ResultLine& add(const std::string& key, long long value);
    ResultLine& add(const std::string& key, int value) { return add(key, static_cast<long long>(value)); }
    // The fields of `more`, after these.
    ResultLine& append(const ResultLine& more) {
        body_ += more.body_;
        return *this;
    }
    std::string text() const { return "RESULT" + body_; }

private:
    std::string body_;
};

using Fields = std::map<std::string, std::string>;
// The fields of every RESULT line in `output` (other lines are ignored).
std::vector<Fields> parse_results(const std::string& output);
// A parsed line written back as a RESULT line (for --save files).
std::string result_text(const Fields& f);
// Appends the rows' RESULT lines to `path` (--save); false when it cannot be written.
bool append_results(const std::string& path, const std::vector<Fields>& rows);
// A field as a number; `fallback` when it is missing or not a number.
double number(const Fields& f, const std::string& key, double fallback = 0);
std::string field(const Fields& f, const std::string& key, const std::string& fallback = "");

// The seed of shape number `index`'s inputs in a run given --seed SEED:
// rank 0 makes A and B with fill_inputs(A, B, shape_seed(SEED, index)), and
// whoever checks the run makes the same A and B so.
inline std::uint64_t shape_seed(std::uint64_t seed, std::size_t index) { return seed + 1000003ULL * index; }

// --c-out DIR: rank 0 writes the product of shape number `index` to
// DIR/c<index>.bin, M x N float32 row-major, nothing else (write_product
// throws std::runtime_error naming the file when it cannot), so that a
// process without the student's code can check it (tests/lab12_runs.h).
std::string product_file(const std::string& dir, std::size_t index);
void write_product(const std::string& dir, std::size_t index, const Matrix& C);

// "300x200x100" or "512" (square), comma-separated, each >= 1; throws
// std::invalid_argument naming the bad item.
std::vector<Shape> parse_shape_list(const std::string& text);
std::string shape_arg(Shape s);  // "300x200x100" (what parse_shape_list reads back)

// The check of a product whose inputs were rounded to bfloat16 (8 significant
// bits, u = 2^-8) and whose products were summed in float32 (cuBLAS bf16 with
// CUBLAS_COMPUTE_32F): each product a*b is off by at most (2u + u^2)|a||b|,
// the float32 sum adds gamma_K(2^-24), so
//     |C - fl(A*B)| <= ((1 + 2u + u^2)(1 + gamma_K) - 1) * |A||B|   element-wise.
ErrorBound bf16_bound(Shape s);

}  // namespace mml::lab12
