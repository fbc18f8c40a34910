// One runner process as the checker sees it (checker.h): started on first
// use, watched on every request against the time the whole process may wait
// for its runners, and killed at the first thing it does wrong. Part of the
// checker's side only (linked into the checker programs, never a runner).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>

namespace mml::runner::detail {

using Clock = std::chrono::steady_clock;

// How much of what a runner prints is kept for the student's feedback
// (MML_RUNNER_OUTPUT; the grader shows less of it). The rest is read and counted.
constexpr std::size_t kKeptOutputBytes = 64 * 1024;

// One runner process: started on first use, watched on every request, and
// killed at the first thing it does wrong (after which every request fails
// with that reason: the test that was running records it).
class RunnerProcess {
public:
    RunnerProcess(const char* variable, std::string what) : variable_(variable), what_(std::move(what)) {}
    ~RunnerProcess() { kill_now(); }

    // Sends `text` (with `fd` attached) and waits for "done". Throws
    // UsageError / std::invalid_argument / std::runtime_error as the version
    // did in the runner, and std::runtime_error("the runner ...") for the
    // runner's own failures. With `answered`, the reply is "done WORDS..."
    // and WORDS are returned (a call's); otherwise it is "done" alone.
    std::string request(const std::string& text, int fd = -1, bool answered = false);

    // At exit: asks the runner to quit, then makes sure it is gone, keeping
    // what it printed on the way out (stdio flushes its buffers at exit).
    void stop();

    const std::string& what() const { return what_; }
    // An answer that makes no sense: the runner is failed for it.
    [[noreturn]] void broke(const std::string& how) { fail("broke the protocol: " + how); }
    // What the runner printed (stdout and stderr): the first kKeptOutputBytes
    // of it, and how many bytes it printed in all.
    const std::string& output() const { return output_; }
    std::size_t output_total() const { return output_total_; }

private:
    void start();
    std::string wait_reply();
    void drain_output();
    std::string output_excerpt() const;
    [[noreturn]] void gone(const char* when);
    std::string ended_text(int status) const;
    [[noreturn]] void timed_out();
    [[noreturn]] void fail(const std::string& why);
    [[noreturn]] void fail_without_process(const std::string& why);
    void kill_now();

    const char* variable_;
    std::string what_;
    pid_t pid_ = -1;  // >= 0 running; < -1: reaped, its group was -pid_ - 2
    int sock_ = -1, out_ = -1;
    std::string failed_;
    std::string output_;
    std::size_t output_total_ = 0;
};

}  // namespace mml::runner::detail
