// The checker's end of one runner (checker.h): its process (runner_process.h)
// and the shared memory of the shape in use (protocol.h, "prepare"). Part of
// the checker's side only (linked into the checker programs, never a runner).
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "cpu/matrix.h"
#include "harness/runner/protocol.h"
#include "harness/runner/runner_process.h"

namespace mml::runner::detail {

// The checker's end of one runner: the process, and the shared memory of the
// shape in use (made again when the shape changes).
class Connection {
public:
    Connection(const char* variable, std::string what) : process_(variable, std::move(what)) {}
    ~Connection() { unmap(); }

    RunnerProcess& process() { return process_; }

    // The shared memory of shape s, made and handed over when s is new.
    void prepare(Shape s);

    float* A() const { return at(layout_.a); }
    float* B() const { return at(layout_.b); }
    float* C() const { return at(layout_.c); }
    // Changes whenever the inputs in the runner change (a new shape, a call's inputs).
    unsigned long long generation() const { return generation_; }
    unsigned long long touch() { return ++generation_; }

private:
    float* at(std::size_t offset) const { return reinterpret_cast<float*>(static_cast<char*>(base_) + offset); }
    void unmap();
    RunnerProcess process_;
    void* base_ = nullptr;
    std::size_t size_ = 0;
    Layout layout_;
    Shape shape_;
    unsigned long long generation_ = 0;
};

}  // namespace mml::runner::detail
