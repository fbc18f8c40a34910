// The RESULT lines between mmlab and lab 12's MPI programs (protocol.h).
#include "harness/stages/lab12/protocol.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace mml::lab12 {

ResultLine& ResultLine::add(const std::string& key, const std::string& value) {
    const bool quote = value.empty() || value.find_first_of(" \t\"=") != std::string::npos;
    std::string v;
    if (quote) {
        v = "\"";
        for (char c : value) {
            if (c == '"' || c == '\\') v += '\\';
            v += (c == '\n' ? ' ' : c);
        }
        v += "\"";
    } else {
        v = value;
    }
    body_ += " " + key + "=" + v;
    return *this;
}

ResultLine& ResultLine::add(const std::string& key, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", value);
    return add(key, std::string(buf));
}

ResultLine& ResultLine::add(const std::string& key, long long value) { return add(key, std::to_string(value)); }

std::string product_file(const std::string& dir, std::size_t index) {
    return dir + "/c" + std::to_string(index) + ".bin";
}

void write_product(const std::string& dir, std::size_t index, const Matrix& C) {
    const std::string path = product_file(dir, index);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw std::runtime_error("cannot write the product to " + path);
    const std::size_t n = std::size_t(C.rows()) * std::size_t(C.cols());
    const bool ok = std::fwrite(C.data(), sizeof(float), n, f) == n;
    if (std::fclose(f) != 0 || !ok) throw std::runtime_error("writing the product to " + path + " failed");
}

std::vector<Fields> parse_results(const std::string& output) {
    std::vector<Fields> out;
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("RESULT ", 0) != 0) continue;
        Fields f;
        std::size_t i = 7;
        while (i < line.size()) {
            while (i < line.size() && line[i] == ' ') ++i;
            const std::size_t eq = line.find('=', i);
            if (eq == std::string::npos) break;
            const std::string key = line.substr(i, eq - i);
            std::string value;
            i = eq + 1;
            if (i < line.size() && line[i] == '"') {
                for (++i; i < line.size() && line[i] != '"'; ++i) {
                    if (line[i] == '\\' && i + 1 < line.size()) ++i;
                    value += line[i];
                }
                ++i;  // the closing quote
            } else {
                const std::size_t end = line.find(' ', i);
                value = line.substr(i, end == std::string::npos ? std::string::npos : end - i);
                i = end == std::string::npos ? line.size() : end;
            }
            f[key] = value;
        }
        out.push_back(std::move(f));
    }
    return out;
}

std::string result_text(const Fields& f) {
    ResultLine line;
    for (const auto& [k, v] : f) line.add(k, v);
    return line.text();
}

bool append_results(const std::string& path, const std::vector<Fields>& rows) {
    std::FILE* out = std::fopen(path.c_str(), "a");
    if (!out) return false;
    for (const Fields& f : rows) std::fprintf(out, "%s\n", result_text(f).c_str());
    return std::fclose(out) == 0;
}

double number(const Fields& f, const std::string& key, double fallback) {
    const auto it = f.find(key);
    if (it == f.end() || it->second.empty()) return fallback;
    char* end = nullptr;
    const double v = std::strtod(it->second.c_str(), &end);
    return end && *end == '\0' ? v : fallback;
}

std::string field(const Fields& f, const std::string& key, const std::string& fallback) {
    const auto it = f.find(key);
    return it == f.end() ? fallback : it->second;
}

std::vector<Shape> parse_shape_list(const std::string& text) {
    std::vector<Shape> shapes;
    std::stringstream items(text);
    std::string item;
    auto bad = [&](const std::string& why) {
        return std::invalid_argument("size '" + item + "' " + why + " (sizes are N or MxNxK, comma-separated)");
    };
    while (std::getline(items, item, ',')) {
        std::vector<long long> dims;
        std::stringstream parts(item);
        std::string part;
        while (std::getline(parts, part, 'x')) {
            if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos)
                throw bad("is not a size");
            dims.push_back(std::atoll(part.c_str()));
        }
        if (dims.size() == 1) dims = {dims[0], dims[0], dims[0]};
        if (dims.size() != 3) throw bad("is not a size");
        for (long long d : dims)
            if (d < 1) throw bad("has a dimension below 1");
        shapes.push_back({dims[0], dims[1], dims[2]});
    }
    if (shapes.empty() || (!text.empty() && text.back() == ',')) {
        item = text;
        throw bad("is empty");
    }
    return shapes;
}

std::string shape_arg(Shape s) {
    return std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
}

ErrorBound bf16_bound(Shape s) {
    constexpr double u = 1.0 / 256.0;  // bfloat16: 8 significant bits
    const double g = gamma_n(double(s.K), kFloat32UnitRoundoff);
    ErrorBound b;
    b.kind = ErrorBound::Kind::Elementwise;
    b.factor = (1 + 2 * u + u * u) * (1 + g) - 1;
    b.formula = "(1+2u+u^2)(1+gamma_K)-1, u=2^-8 (bf16 inputs, float32 sums)";
    return b;
}

}  // namespace mml::lab12
