#include "harness/catalog.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace mml {

namespace {

const char* const kCatalogText =
#include "catalog.inc"  // build/gen/catalog.inc: labs/catalog.txt as a raw string literal
    ;

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> words(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> out;
    for (std::string w; in >> w;)
        if (w != "-") out.push_back(w);
    return out;
}

[[noreturn]] void bad_line(const std::string& line, const char* why) {
    std::fprintf(stderr, "mmlab: labs/catalog.txt: %s in line '%s' (fix the catalog and rebuild)\n", why, line.c_str());
    std::exit(2);
}

std::vector<CatalogEntry> parse() {
    std::vector<CatalogEntry> out;
    std::istringstream in(kCatalogText);
    for (std::string line; std::getline(in, line);) {
        if (trim(line).empty() || trim(line)[0] == '#') continue;
        std::vector<std::string> cols;
        std::istringstream fields(line);
        for (std::string f; std::getline(fields, f, '|');) cols.push_back(trim(f));
        if (cols.size() != 5) bad_line(line, "5 columns separated by '|' expected");
        CatalogEntry e;
        e.number = std::atoi(cols[0].c_str());
        if (e.number <= 0) bad_line(line, "the lab number must be a whole number >= 1");
        if (cols[1] != "cpu" && cols[1] != "gpu") bad_line(line, "the kind must be cpu or gpu");
        e.kind = cols[1] == "gpu" ? Device::Gpu : Device::Cpu;
        e.suites = words(cols[2]);
        e.demo = words(cols[3]);
        e.title = cols[4];
        out.push_back(e);
    }
    std::sort(out.begin(), out.end(), [](const CatalogEntry& a, const CatalogEntry& b) { return a.number < b.number; });
    return out;
}

}  // namespace

const std::vector<CatalogEntry>& catalog() {
    static const std::vector<CatalogEntry> entries = parse();
    return entries;
}

const CatalogEntry* catalog_entry(int number) {
    for (const CatalogEntry& e : catalog())
        if (e.number == number) return &e;
    return nullptr;
}

int last_lab_number() { return catalog().empty() ? 0 : catalog().back().number; }

std::string lab_numbers(Device kind) {
    std::string out;
    for (const CatalogEntry& e : catalog())
        if (e.kind == kind) out += (out.empty() ? "" : ", ") + std::to_string(e.number);
    return out;
}

bool in_demo(const Stage& stage) {
    const CatalogEntry* e = catalog_entry(stage.lab);
    return e && std::find(e->demo.begin(), e->demo.end(), stage.name) != e->demo.end();
}

}  // namespace mml
