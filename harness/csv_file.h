// A --csv output that appears whole or not at all. It is opened (as PATH.tmp)
// before the work starts, so that a path that cannot be written is a one-line
// usage error at once, not after minutes of measuring; rows go to the .tmp
// file; commit(), after the last row, renames it to PATH. A run that stops
// half-way (an exception, a wrong result) leaves no file behind.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

#include "harness/cli.h"

namespace mml {

class CsvFile {
public:
    // An empty path means "no --csv": get() is then null and commit() false.
    explicit CsvFile(std::string path) : path_(std::move(path)) {
        if (path_.empty()) return;
        file_ = std::fopen(tmp().c_str(), "w");
        if (!file_) throw UsageError("cannot write --csv " + path_ + ": check that its folder exists and is writable");
    }
    ~CsvFile() {
        if (!file_) return;
        std::fclose(file_);
        std::remove(tmp().c_str());
    }
    CsvFile(const CsvFile&) = delete;
    CsvFile& operator=(const CsvFile&) = delete;

    std::FILE* get() const { return file_; }

    // Puts the finished file in place; false when there was no --csv.
    bool commit() {
        if (!file_) return false;
        const bool closed = std::fclose(file_) == 0;
        file_ = nullptr;
        if (!closed || std::rename(tmp().c_str(), path_.c_str()) != 0) {
            std::remove(tmp().c_str());
            throw std::runtime_error("cannot write " + path_);
        }
        return true;
    }

private:
    std::string tmp() const { return path_ + ".tmp"; }
    std::string path_;
    std::FILE* file_ = nullptr;
};

}  // namespace mml
