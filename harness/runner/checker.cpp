// The checker's side of grading (checker.h): starting and watching a runner
// process, the shared memory of one shape, the remote versions the Registry
// gets in place of the student's (and the reference's) code, and the check
// of each timed run.
#include "harness/runner/checker.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "cpu/rounding.h"
#include "harness/cli.h"
#include "harness/runner/protocol.h"
#include "harness/runner/remote.h"
#include "harness/runner/scale_factors.h"
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

using Clock = std::chrono::steady_clock;

// How much of what a runner prints is kept for the student's feedback
// (MML_RUNNER_OUTPUT; the grader shows less of it). The rest is read and counted.
constexpr std::size_t kKeptOutputBytes = 64 * 1024;

// ------------------------------------------------------------------ time

// The whole process shares one allowance for waiting on runners: the test
// case's time limit (MML_RUNNER_TIMEOUT), counted from start-up. A runner
// that loops for ever is then named by the checker itself, in its report,
// before the grader's own wall-clock limit (a little longer) would kill it.
const Clock::time_point kStarted = Clock::now();

double allowance_seconds() {
    const char* v = std::getenv("MML_RUNNER_TIMEOUT");
    if (!v || !*v) return 600;
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (end == v || *end || !(s > 0)) {
        std::fprintf(stderr, "mmlab-checker: MML_RUNNER_TIMEOUT=%s is not a number of seconds\n", v);
        std::exit(2);
    }
    return s;
}

double seconds_left() {
    static const double allowance = allowance_seconds();
    return allowance - std::chrono::duration<double>(Clock::now() - kStarted).count();
}

// ------------------------------------------------------------------ the process

// How a process ended, in the words the grader's feedback uses
// (tools/grading/testcases.py, exit_text): the sandbox (tools/grading/sandbox.sh)
// passes a signal on as exit status 128 + its number.
std::string ending_of(int status) {
    int sig = 0;
    if (WIFSIGNALED(status)) sig = WTERMSIG(status);
    else if (WIFEXITED(status) && WEXITSTATUS(status) > 128) sig = WEXITSTATUS(status) - 128;
    if (sig) {
        switch (sig) {
            case SIGILL: return "SIGILL (illegal instruction)";
            case SIGABRT: return "SIGABRT (abort)";
            case SIGBUS: return "SIGBUS";
            case SIGFPE: return "SIGFPE (arithmetic error)";
            case SIGKILL: return "SIGKILL (a limit: CPU time or memory)";
            case SIGSEGV: return "SIGSEGV (segmentation fault)";
            case SIGXCPU: return "SIGXCPU (CPU time limit)";
            case SIGXFSZ: return "SIGXFSZ (file size limit: too much output)";
            default: return "signal " + std::to_string(sig);
        }
    }
    return "exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

// MML_RUNNER_USER ("uid:gid"), for the student's runner only: the user it
// runs as. False when not set; a malformed value stops the checker (the
// runner must never run as root by mistake).
bool parse_user(const char* variable, uid_t* uid, gid_t* gid) {
    if (std::strcmp(variable, "MML_RUNNER") != 0) return false;
    const char* v = std::getenv("MML_RUNNER_USER");
    if (!v || !*v) return false;
    unsigned long u = 0, g = 0;
    char colon = 0, extra = 0;
    if (std::sscanf(v, "%lu%c%lu%c", &u, &colon, &g, &extra) != 3 || colon != ':' || u == 0) {
        std::fprintf(stderr, "mmlab-checker: MML_RUNNER_USER=%s is not uid:gid of an unprivileged user\n", v);
        std::exit(2);
    }
    *uid = uid_t(u);
    *gid = gid_t(g);
    return true;
}

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
    std::string request(const std::string& text, int fd = -1, bool answered = false) {
        if (!failed_.empty()) throw std::runtime_error(failed_ + " (earlier in this test)");
        if (pid_ < 0) start();
        try {
            send_message(sock_, text, fd);
        } catch (const std::system_error&) {
            gone("while receiving a request");
        }
        const std::string reply = wait_reply();
        if (!answered && reply == "done") return "";
        if (answered && reply.rfind("done ", 0) == 0) return reply.substr(5);
        const std::vector<std::string> w = split_words(reply);
        if (w.size() >= 2 && w[0] == "error") {
            const std::string message = reply.substr(std::min(reply.size(), 7 + w[1].size()));
            if (w[1] == "usage") throw UsageError(message);
            if (w[1] == "invalid") throw std::invalid_argument(message);
            if (w[1] == "runtime") throw std::runtime_error(message);
        }
        fail("broke the protocol: it answered \"" + printable(reply) + "\" to \"" + printable(text, 80) + "\"");
    }

    // At exit: asks the runner to quit, then makes sure it is gone, keeping
    // what it printed on the way out (stdio flushes its buffers at exit).
    void stop() {
        if (pid_ < 0) return;
        try {
            send_message(sock_, "quit");
        } catch (const std::exception&) {
        }
        // An honest runner exits at once; a second is plenty. Its output is
        // read meanwhile: a runner blocked on a full pipe could not exit.
        for (int i = 0; i < 100 && pid_ >= 0; ++i) {
            drain_output();
            int status;
            const pid_t r = waitpid(pid_, &status, WNOHANG);
            if (r == pid_ || (r < 0 && errno != EINTR)) pid_ = -pid_ - 2;  // reaped (kept negative: "not running")
            else usleep(10000);
        }
        drain_output();
        kill_now();
    }

    const std::string& what() const { return what_; }
    // An answer that makes no sense: the runner is failed for it.
    [[noreturn]] void broke(const std::string& how) { fail("broke the protocol: " + how); }
    // What the runner printed (stdout and stderr): the first kKeptOutputBytes
    // of it, and how many bytes it printed in all.
    const std::string& output() const { return output_; }
    std::size_t output_total() const { return output_total_; }

private:
    void start() {
        const char* command = std::getenv(variable_);
        if (!command || !*command)
            fail_without_process(std::string("is not configured: this is the grader's checker, built without the "
                                             "student's code; ") + variable_ + " must name the runner's command line");
        const std::string line = std::string("exec ") + command;
        // The runner's environment: this one without the grader's variables
        // (the runners' command lines would tell it where the reference runner is).
        std::vector<std::string> env_strings;
        for (char** e = environ; *e; ++e) {
            const std::string entry = *e;
            if (entry.rfind("MML_RUNNER", 0) == 0 || entry.rfind("MML_REFERENCE_RUNNER", 0) == 0 ||  // also MML_RUNNER_USER
                entry.rfind("MMLAB=", 0) == 0)
                continue;
            env_strings.push_back(entry);
        }
        std::vector<char*> envp;
        for (auto& e : env_strings) envp.push_back(e.data());
        envp.push_back(nullptr);
        // The student's runner runs as the unprivileged grading user when the
        // grader is root (MML_RUNNER_USER=uid:gid, tools/grading/checker.py):
        // switched to in the child below, before anything of it runs.
        uid_t uid = 0;
        gid_t gid = 0;
        const bool switch_user = parse_user(variable_, &uid, &gid);
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
            fail_without_process(std::string("could not be started: socketpair: ") + std::strerror(errno));
        int out[2];
        if (pipe2(out, O_CLOEXEC) != 0) {
            close(sv[0]);
            close(sv[1]);
            fail_without_process(std::string("could not be started: pipe: ") + std::strerror(errno));
        }
        const pid_t parent = getpid();
        const pid_t pid = fork();
        if (pid < 0) {
            for (int f : {sv[0], sv[1], out[0], out[1]}) close(f);
            fail_without_process(std::string("could not be started: fork: ") + std::strerror(errno));
        }
        if (pid == 0) {
            // The child: only async-signal-safe calls until exec.
            // Its own process group, so that the checker can kill all of it;
            // killed with the checker, should the checker die first (set
            // after the user switch, which would clear it).
            setpgid(0, 0);
            if (switch_user && (setgroups(0, nullptr) != 0 || setresgid(gid, gid, gid) != 0 ||
                                setresuid(uid, uid, uid) != 0))
                _exit(126);
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) _exit(126);
            const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
            if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(out[1], 1) < 0 || dup2(out[1], 2) < 0) _exit(126);
            if (sv[1] == kChannelFd) {
                if (fcntl(kChannelFd, F_SETFD, 0) < 0) _exit(126);  // dup2 onto itself would keep close-on-exec
            } else if (dup2(sv[1], kChannelFd) < 0) {
                _exit(126);
            }
            execle("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr), envp.data());
            _exit(127);
        }
        setpgid(pid, pid);  // also here: whichever runs first, the group exists before any kill
        close(sv[1]);
        close(out[1]);
        pid_ = pid;
        sock_ = sv[0];
        out_ = out[0];
        if (fcntl(out_, F_SETFL, O_NONBLOCK) < 0) fail("could not be watched: fcntl: " + std::string(std::strerror(errno)));
        const std::string hello = wait_reply();
        if (hello != kHello)
            fail("broke the protocol: its first message was \"" + printable(hello) + "\", not \"" + kHello + "\"");
    }

    // The next message from the runner, watching its output and the time.
    std::string wait_reply() {
        for (;;) {
            const double left = seconds_left();
            if (left <= 0) timed_out();
            pollfd fds[2] = {{sock_, POLLIN, 0}, {out_, POLLIN, 0}};
            const int nfds = out_ >= 0 ? 2 : 1;
            const int ms = int(std::min(left * 1000.0 + 1.0, 3600e3));
            const int n = poll(fds, nfds, ms);
            if (n < 0) {
                if (errno == EINTR) continue;
                fail(std::string("could not be watched: poll: ") + std::strerror(errno));
            }
            if (n == 0) continue;  // the allowance is checked at the top
            if (nfds == 2 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) drain_output();
            if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
                std::string text;
                bool got = false;
                try {
                    got = receive_message(sock_, text, nullptr);
                } catch (const std::system_error&) {
                    gone("while answering");
                } catch (const std::exception& e) {
                    fail(std::string("broke the protocol: ") + e.what());
                }
                if (!got) gone("before answering");
                drain_output();  // output written before the answer is in the pipe by now
                return text;
            }
        }
    }

    // Reads whatever the runner has printed so far, without waiting: the
    // first kKeptOutputBytes are kept (for the student's feedback), the rest
    // only counted, so a runner that prints for ever costs memory of its
    // own, never the checker's. Printing is allowed: it goes nowhere near the
    // channel (protocol.h) and decides nothing. Closes the pipe at its end.
    void drain_output() {
        while (out_ >= 0) {
            char buf[65536];
            const ssize_t n = read(out_, buf, sizeof buf);
            if (n > 0) {
                output_total_ += std::size_t(n);
                if (output_.size() < kKeptOutputBytes)
                    output_.append(buf, std::min(std::size_t(n), kKeptOutputBytes - output_.size()));
            } else if (n == 0) {
                close(out_);  // every writer is gone: nothing more can come
                out_ = -1;
            } else if (errno == EINTR) {
                continue;
            } else {
                break;  // EAGAIN: nothing more now
            }
        }
    }

    // The start of what the runner printed, for a message about a runner
    // that could not start (the sandbox's own complaint is there).
    std::string output_excerpt() const {
        return output_.empty() ? "" : "; it printed: \"" + printable(output_) + "\"";
    }

    // The runner's end of the channel is closed: it exited or was killed.
    [[noreturn]] void gone(const char* when) {
        int status = 0;
        bool reaped = false;
        for (int i = 0; i < 200 && !reaped; ++i) {  // up to 2 s for the process to be reaped
            const pid_t r = waitpid(pid_, &status, WNOHANG);
            if (r == pid_) reaped = true;
            else if (r < 0 && errno != EINTR) break;
            else usleep(10000);
        }
        drain_output();
        if (!reaped) fail("closed its end of the channel " + std::string(when));
        pid_ = -pid_ - 2;
        const std::string ended = ended_text(status);
        fail(ended + " " + when + (ended.rfind("could not be started", 0) == 0 ? output_excerpt() : ""));
    }

    std::string ended_text(int status) const {
        const bool signalled = WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) > 128);
        if (signalled) return "crashed: " + ending_of(status);
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (code == 125 || code == 126 || code == 127) return "could not be started (" + ending_of(status) + ")";
        return "exited (" + ending_of(status) + ")";
    }

    [[noreturn]] void timed_out() {
        static const double allowance = allowance_seconds();
        fail(std::string("did not answer within the test's time limit (") + std::to_string(int(allowance + 0.5)) +
             " s): an endless loop, or far too slow");
    }

    // The runner failed: kill it (keeping what it printed last), remember why, and throw.
    [[noreturn]] void fail(const std::string& why) {
        drain_output();
        kill_now();
        failed_ = kRunnerPrefix + why;
        throw std::runtime_error(failed_);
    }
    [[noreturn]] void fail_without_process(const std::string& why) {
        failed_ = kRunnerPrefix + why;
        throw std::runtime_error(failed_);
    }

    void kill_now() {
        if (pid_ >= 0) {
            // The whole group: the sandbox's shell and what it started
            // (in the full sandbox, its PID namespace takes the rest).
            if (killpg(pid_, SIGKILL) != 0 && errno != ESRCH) kill(pid_, SIGKILL);
            while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
            }
            pid_ = -1;
        } else if (pid_ < -1) {
            killpg(-pid_ - 2, SIGKILL);  // reaped already: whatever is left of its group
            pid_ = -1;
        }
        if (sock_ >= 0) close(sock_);
        sock_ = -1;
        if (out_ >= 0) close(out_);
        out_ = -1;
    }

    const char* variable_;
    std::string what_;
    pid_t pid_ = -1;  // >= 0 running; < -1: reaped, its group was -pid_ - 2
    int sock_ = -1, out_ = -1;
    std::string failed_;
    std::string output_;
    std::size_t output_total_ = 0;
};

// ------------------------------------------------------------------ shared memory

// The checker's end of one runner: the process, and the shared memory of the
// shape in use (made again when the shape changes).
class Connection {
public:
    Connection(const char* variable, std::string what) : process_(variable, std::move(what)) {}
    ~Connection() { unmap(); }

    RunnerProcess& process() { return process_; }

    // The shared memory of shape s, made and handed over when s is new.
    void prepare(Shape s) {
        if (base_ && s.M == shape_.M && s.N == shape_.N && s.K == shape_.K) return;
        unmap();
        const Layout l = layout_of(s);
        const int fd = memfd_create("mmlab-shared", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0) throw std::system_error(errno, std::generic_category(), "memfd_create");
        auto close_and_throw = [fd](const char* what) {
            const int e = errno;
            close(fd);
            throw std::system_error(e, std::generic_category(), what);
        };
        if (ftruncate(fd, off_t(l.total)) != 0) close_and_throw("sizing the shared memory");
        // Sealed: the runner cannot shrink it under this process's mapping (a SIGBUS here).
        if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) close_and_throw("sealing the shared memory");
        void* p = mmap(nullptr, l.total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) close_and_throw("mapping the shared memory");
        base_ = p;
        size_ = l.total;
        layout_ = l;
        shape_ = s;
        ++generation_;
        try {
            process_.request("prepare " + std::to_string(s.M) + " " + std::to_string(s.N) + " " + std::to_string(s.K), fd);
        } catch (...) {
            close(fd);
            unmap();
            throw;
        }
        close(fd);
    }

    float* A() const { return at(layout_.a); }
    float* B() const { return at(layout_.b); }
    float* C() const { return at(layout_.c); }
    // Changes whenever the inputs in the runner change (a new shape, a call's inputs).
    unsigned long long generation() const { return generation_; }
    unsigned long long touch() { return ++generation_; }

private:
    float* at(std::size_t offset) const { return reinterpret_cast<float*>(static_cast<char*>(base_) + offset); }
    void unmap() {
        if (base_) munmap(base_, size_);
        base_ = nullptr;
    }
    RunnerProcess process_;
    void* base_ = nullptr;
    std::size_t size_ = 0;
    Layout layout_;
    Shape shape_;
    unsigned long long generation_ = 0;
};

// ------------------------------------------------------------------ checking a timed run

std::string entry_name(std::int64_t i, std::int64_t j) { return "C[" + std::to_string(i) + "][" + std::to_string(j) + "]"; }

// Is C (M x N) the product A * diag(d) * B within the stage's bound? The
// timed runs are many and large, so this is a sampled check, in float64 on
// this process's own copies of A, B and d: every entry scanned for the poison
// and NaN/Inf; one Freivalds test over whole rows (C x against A (B' x), with
// x random signs and magnitudes, within the sum of the bounds of the row);
// and 64 random entries plus the two corners (every entry when C has at most
// 66), each against its own dot product. Skipping any noticeable part of the
// work fails it; its cost is O(MN + MK + KN + min(66, MN) K), far below the
// product's. Returns "" or the failure.
std::string check_scaled_product(const float* A, const float* B, const float* d, const float* C, Shape s,
                                 const ErrorBound& bound, InputRounding rounding, std::mt19937_64& rng) {
    const std::int64_t M = s.M, N = s.N, K = s.K;
    for (std::int64_t e = 0; e < M * N; ++e) {
        if (is_poison(C[e])) return entry_name(e / N, e % N) + " was never written (it still holds the poison value)";
        if (!std::isfinite(C[e])) return entry_name(e / N, e % N) + " is " + (std::isnan(C[e]) ? "NaN" : "Inf");
    }
    // The inputs as the stage multiplies them: fl(d_k b_kj), as the runner forms
    // B', then rounded as a reduced-precision stage rounds its inputs
    // (Stage::input_rounding; run_once_and_verify judges those stages so too).
    auto bprime = [&](std::int64_t k, std::int64_t j) { return double(round_input(d[k] * B[k * N + j], rounding)); };
    auto a = [&](std::int64_t i, std::int64_t k) { return double(round_input(A[i * K + k], rounding)); };
    const double ref_u = kFloat64UnitRoundoff;
    double normwise = 0;
    if (bound.kind == ErrorBound::Kind::Normwise) {
        double maxa = 0, maxb = 0;
        for (std::int64_t i = 0; i < M; ++i)
            for (std::int64_t k = 0; k < K; ++k) maxa = std::max(maxa, std::fabs(a(i, k)));
        for (std::int64_t k = 0; k < K; ++k)
            for (std::int64_t j = 0; j < N; ++j) maxb = std::max(maxb, std::fabs(bprime(k, j)));
        normwise = bound.factor * maxa * maxb;
    }
    // Freivalds over rows: y = B' x and |B'| |x|.
    std::uniform_real_distribution<double> mag(0.5, 1.0);
    std::vector<double> x(static_cast<std::size_t>(N)), y(static_cast<std::size_t>(K), 0.0), yabs(static_cast<std::size_t>(K), 0.0);
    double sum_abs_x = 0;
    for (auto& v : x) {
        v = (rng() & 1 ? 1.0 : -1.0) * mag(rng);
        sum_abs_x += std::fabs(v);
    }
    for (std::int64_t k = 0; k < K; ++k)
        for (std::int64_t j = 0; j < N; ++j) {
            const double b = bprime(k, j);
            y[std::size_t(k)] += b * x[std::size_t(j)];
            yabs[std::size_t(k)] += std::fabs(b) * std::fabs(x[std::size_t(j)]);
        }
    const double slack = gamma_n(double(K + N + 2), ref_u);
    for (std::int64_t i = 0; i < M; ++i) {
        double lhs = 0, lhs_abs = 0, rhs = 0, rhs_abs = 0;
        for (std::int64_t j = 0; j < N; ++j) {
            lhs += double(C[i * N + j]) * x[std::size_t(j)];
            lhs_abs += std::fabs(double(C[i * N + j]) * x[std::size_t(j)]);
        }
        for (std::int64_t k = 0; k < K; ++k) {
            rhs += a(i, k) * y[std::size_t(k)];
            rhs_abs += std::fabs(a(i, k)) * yabs[std::size_t(k)];
        }
        const double tol = (normwise > 0 ? normwise * sum_abs_x : bound.factor * rhs_abs) + slack * (lhs_abs + rhs_abs);
        if (std::fabs(lhs - rhs) > tol)
            return "row " + std::to_string(i) + " of C is wrong (a random combination of its elements is off by " +
                   std::to_string(std::fabs(lhs - rhs)) + ", more than its bound " + std::to_string(tol) + ")";
    }
    // Single entries: every one when there are at most 66 (lab 9's skinny
    // products: each costs K), else the two corners and 64 at random.
    std::uniform_int_distribution<std::int64_t> row(0, M - 1), col(0, N - 1);
    const bool every = M * N <= 66;
    for (std::int64_t t = 0; t < (every ? M * N : 66); ++t) {
        const std::int64_t i = every ? t / N : t == 0 ? 0 : t == 1 ? M - 1 : row(rng);
        const std::int64_t j = every ? t % N : t == 0 ? 0 : t == 1 ? N - 1 : col(rng);
        double ref = 0, abs_sum = 0;
        for (std::int64_t k = 0; k < K; ++k) {
            const double p = a(i, k) * bprime(k, j);
            ref += p;
            abs_sum += std::fabs(p);
        }
        const double admissible = (normwise > 0 ? normwise : bound.factor * abs_sum) + gamma_n(double(K), ref_u) * abs_sum;
        const double err = std::fabs(double(C[i * N + j]) - ref);
        if (err > admissible)
            return entry_name(i, j) + " = " + std::to_string(C[i * N + j]) + " but the float64 reference gives " +
                   std::to_string(ref) + " (error " + std::to_string(err) + ", bound " + std::to_string(admissible) + ")";
    }
    return "";
}

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
        if (loaded_generation_ != c_->generation() || s.M != shape_.M || s.N != shape_.N || s.K != shape_.K)
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
