// The checker's side of grading (checker.h): the remote versions the Registry
// gets in place of the student's (and the reference's) code, installing them,
// and forwarding the calls on the student's side. Its parts, each in its own
// file: starting and watching a runner process (runner_process.h), the shared
// memory of one shape (connection.h) and the check of each timed run
// (timed_check.h).
#include "harness/runner/checker.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/rounding.h"
#include "harness/cli.h"
#include "harness/runner/connection.h"
#include "harness/runner/protocol.h"
#include "harness/runner/remote.h"
#include "harness/runner/scale_factors.h"
#include "harness/runner/timed_check.h"
#include "harness/student_side.h"

namespace mml::runner {

[[noreturn]] void student_code_called(const char* symbol) {
    std::fprintf(stderr,
                 "mmlab-checker: %s was called directly, not through a stage's version: the grader's checker holds no "
                 "student code, so this test can be graded only in the student's own process %s\n",
                 symbol, kDirectCallMarker);
    std::fflush(nullptr);
    std::_Exit(kDirectCallExit);
}

namespace {

using detail::check_scaled_product;
using detail::Clock;
using detail::Connection;
using detail::RunnerProcess;

// ------------------------------------------------------------------ remote versions

std::string params_words(const StageParams& p) {
    std::string out = "threads=" + std::to_string(p.threads);
    for (const auto& [name, value] : p.values) {
        if (name.empty() || name.find_first_of(" =") != std::string::npos)
            throw UsageError("--param name '" + name + "' cannot be sent to the runner");
        out += " " + name + "=" + std::to_string(value);
    }
    return out;
}

class RemoteStage : public RemoteVersion {
public:
    RemoteStage(std::shared_ptr<Connection> c, const Stage& stage, Impl impl)
        : c_(std::move(c)), stage_(stage.name), device_(stage.device), rounding_(stage.input_rounding), impl_(impl) {}

    void call(const float* A, const float* B, float* C, Shape s, const StageParams& p) override {
        in_context(s, [&] {
            c_->prepare(s);
            c_->touch();  // these inputs replace any loaded for timing
            std::memcpy(c_->A(), A, std::size_t(s.M * s.K) * sizeof(float));
            std::memcpy(c_->B(), B, std::size_t(s.K * s.N) * sizeof(float));
            poison(c_->C(), s.M * s.N);
            c_->process().request(run_line("new", p));
        });
        // One copy out, then nothing more is read from the shared memory: what
        // the runner writes there later cannot change what is verified.
        std::memcpy(C, c_->C(), std::size_t(s.M * s.N) * sizeof(float));
    }

    void load(const float* A, const float* B, Shape s) override {
        c_->prepare(s);
        std::memcpy(c_->A(), A, std::size_t(s.M * s.K) * sizeof(float));
        std::memcpy(c_->B(), B, std::size_t(s.K * s.N) * sizeof(float));
        if (device_ == Device::Gpu) c_->process().request("load");
        loaded_generation_ = c_->touch();
        A_ = A;  // the caller keeps them alive and unchanged for the timed runs (bench.cpp's Problem)
        B_ = B;
        shape_ = s;
    }

    double timed_run(Shape s, const StageParams& p, const ErrorBound& bound) override {
        if (loaded_generation_ != c_->generation() || s != shape_)
            throw std::logic_error("a timed run of " + stage_ + " without its inputs loaded");
        // A fresh secret seed from this process's own generator; its K factors
        // made here, before the clock, for the check (scale_factors.h).
        const std::uint64_t seed = rng_();
        d_.resize(std::size_t(s.K));
        for (std::size_t k = 0; k < d_.size(); ++k) d_[k] = scale_factor(seed, k);
        poison(c_->C(), s.M * s.N);
        const std::string line = run_line("scaled=" + std::to_string(seed), p);
        // The clock starts BEFORE the seed is sent: nothing the runner did
        // earlier can have computed A diag(d) B. It stops when the answer
        // arrives, with C (copied back from a GPU too) in place.
        Clock::time_point t0, t1;
        in_context(s, [&] {
            t0 = Clock::now();
            c_->process().request(line);
            t1 = Clock::now();
        });
        const double seconds = std::chrono::duration<double>(t1 - t0).count();
        result_.resize(std::size_t(s.M * s.N));
        std::memcpy(result_.data(), c_->C(), result_.size() * sizeof(float));
        const std::string wrong = check_scaled_product(A_, B_, d_.data(), result_.data(), s, bound, rounding_, rng_);
        if (!wrong.empty()) throw std::runtime_error("a timed run of " + stage_ + " gave a wrong result: " + wrong);
        return seconds;
    }

private:
    // Runs fn; a failure of the runner itself (not an error the version
    // reported) says which stage and shape it was running.
    template <typename Fn>
    void in_context(Shape s, Fn fn) const {
        try {
            fn();
        } catch (const UsageError&) {
            throw;
        } catch (const std::runtime_error& e) {
            const std::string what = e.what();
            if (what.rfind(kRunnerPrefix, 0) != 0) throw;
            throw std::runtime_error(what + ", while running " + stage_ + " at M x N x K = " + std::to_string(s.M) +
                                     " x " + std::to_string(s.N) + " x " + std::to_string(s.K));
        }
    }

    std::string run_line(const std::string& inputs, const StageParams& p) const {
        return "run " + stage_ + " " + impl_name(impl_) + " " + inputs + " " + params_words(p);
    }

    std::shared_ptr<Connection> c_;
    std::string stage_;
    Device device_;
    InputRounding rounding_;
    Impl impl_;
    unsigned long long loaded_generation_ = 0;
    const float* A_ = nullptr;
    const float* B_ = nullptr;
    Shape shape_;
    std::vector<float> d_, result_;
    std::mt19937_64 rng_{fresh_seed()};
};

// ------------------------------------------------------------------ installing

// Never destroyed: stop_runners (an atexit handler) needs them after the
// static objects made later than its registration are gone.
std::shared_ptr<Connection>& student_runner() {
    static auto* c = new std::shared_ptr<Connection>();
    return *c;
}
std::shared_ptr<Connection>& reference_runner() {
    static auto* c = new std::shared_ptr<Connection>();
    return *c;
}

// MML_RUNNER_OUTPUT: the file the student's runner's output goes to (the
// grader's, outside the sandbox): a first line written here,
// "mmlab-runner-output total=N kept=K", then the K bytes kept. Nothing is
// written when the runner printed nothing.
void write_runner_output(const RunnerProcess& p) {
    const char* path = std::getenv("MML_RUNNER_OUTPUT");
    if (!path || !*path || p.output_total() == 0) return;
    std::FILE* f = std::fopen(path, "wb");
    if (!f) {
        std::fprintf(stderr, "mmlab-checker: cannot write the runner's output to %s: %s\n", path, std::strerror(errno));
        return;
    }
    std::fprintf(f, "mmlab-runner-output total=%zu kept=%zu\n", p.output_total(), p.output().size());
    std::fwrite(p.output().data(), 1, p.output().size(), f);
    if (std::fclose(f) != 0) std::fprintf(stderr, "mmlab-checker: writing %s failed\n", path);
}

// At exit: every runner asked to quit and gone; what the student's runner
// printed goes to MML_RUNNER_OUTPUT, what the reference runner (ours)
// printed to this program's log.
void stop_runners() {
    if (auto& c = student_runner()) {
        c->process().stop();
        write_runner_output(c->process());
    }
    if (auto& c = reference_runner()) {
        c->process().stop();
        if (c->process().output_total() > 0)
            std::fprintf(stderr, "mmlab-checker: the reference runner printed: \"%s\"\n",
                         printable(c->process().output(), 2000).c_str());
    }
}

// Before the first runner is made: stop_runners at exit.
void stop_runners_at_exit() {
    static const bool at_exit = std::atexit(stop_runners) == 0;
    if (!at_exit) {
        std::fputs("mmlab-checker: cannot register the runners' clean-up\n", stderr);
        std::exit(2);
    }
}

void rewrite(Stage& s) {
    stop_runners_at_exit();
    if (s.student) {
        auto& c = student_runner();
        if (!c) c = std::make_shared<Connection>("MML_RUNNER", "the student's runner");
        s.student = RemoteFn{std::make_shared<RemoteStage>(c, s, Impl::Student)};
    }
    const char* ref = std::getenv("MML_REFERENCE_RUNNER");
    if (ref && *ref) {  // every reference version (and peer row) from the trusted reference runner
        auto& c = reference_runner();
        if (!c) c = std::make_shared<Connection>("MML_REFERENCE_RUNNER", "the reference runner");
        s.reference = RemoteFn{std::make_shared<RemoteStage>(c, s, Impl::Reference)};
    }
}

// Linked only into the checker programs: from here on every lookup in the
// Registry finds the remote versions.
// ------------------------------------------------------------------ calls on the student's side

// The most one call's answer may bring back (its text and blobs together).
constexpr std::size_t kMaxCallBytes = std::size_t(1) << 30;

// A call of harness/student_side.h made in this process (lab 12's tests start
// the student's MPI program): sent to the student's runner ("call", protocol.h),
// which runs it inside the sandbox, or, under calibration on the reference
// (no MML_RUNNER), to the reference runner; its pieces come back through the
// shared memory ("fetch"). What comes back is the student's side's data: the
// caller verifies it.
SideCallResult forward_call(const std::string& name, const std::vector<std::string>& words) {
    std::string line = "call";
    std::vector<std::string> all = {name};
    all.insert(all.end(), words.begin(), words.end());
    for (const std::string& w : all) {
        const bool plain = !w.empty() && std::all_of(w.begin(), w.end(), [](char ch) { return ch > 0x20 && ch < 0x7f; });
        if (!plain)
            throw UsageError("'" + printable(w, 60) + "' cannot be sent to the runner (the words of a call are "
                             "printable ASCII without spaces)");
        line += " " + w;
    }
    if (line.size() > kMaxMessage) throw UsageError("a call too long to send to the runner: " + printable(line, 80));
    const char* student = std::getenv("MML_RUNNER");
    const bool to_student = student && *student;
    stop_runners_at_exit();
    auto& c = to_student ? student_runner() : reference_runner();
    if (!c)
        c = to_student ? std::make_shared<Connection>("MML_RUNNER", "the student's runner")
                       : std::make_shared<Connection>("MML_REFERENCE_RUNNER", "the reference runner");
    RunnerProcess& p = c->process();
    const std::vector<std::string> a = split_words(p.request(line, -1, true));
    auto number = [&](const std::string& w) -> long long {
        const bool digits = !w.empty() && w.size() <= 12 &&
                            w.find_first_not_of("0123456789", w[0] == '-' ? 1 : 0) == std::string::npos && w != "-";
        if (!digits) p.broke("a call's answer holds '" + printable(w, 40) + "' where a number belongs");
        return std::stoll(w);
    };
    if (a.size() < 2) p.broke("a call's answer is not 'done STATUS N SIZES...'");
    SideCallResult r;
    r.status = int(number(a[0]));
    const long long n = number(a[1]);
    if (n < 1 || std::size_t(n) + 2 != a.size()) p.broke("a call's answer does not list its N pieces");
    std::vector<std::size_t> sizes;
    std::size_t total = 0;
    for (long long i = 0; i < n; ++i) {
        const long long size = number(a[std::size_t(i) + 2]);
        if (size < 0 || std::size_t(size) > kMaxCallBytes - total) p.broke("a call's answer larger than 1 GiB");
        sizes.push_back(std::size_t(size));
        total += std::size_t(size);
    }
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        std::string piece(sizes[i], '\0');
        if (!piece.empty()) {
            c->prepare(Shape{1, std::int64_t((sizes[i] + sizeof(float) - 1) / sizeof(float)), 1});
            p.request("fetch " + std::to_string(i));
            std::memcpy(piece.data(), c->C(), piece.size());
        }
        if (i == 0) r.text = std::move(piece);
        else r.blobs.push_back(std::move(piece));
    }
    return r;
}

const bool kInstalled = [] {
    Registry::instance().set_version_rewriter(rewrite);
    set_student_side_forwarder(forward_call);
    return true;
}();

}  // namespace
}  // namespace mml::runner
