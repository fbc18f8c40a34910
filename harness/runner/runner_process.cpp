// Starting and watching a runner process (runner_process.h), and the time
// allowance the whole checker shares for waiting on its runners.
#include "harness/runner/runner_process.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "harness/cli.h"
#include "harness/runner/checker.h"
#include "harness/runner/protocol.h"

namespace mml::runner::detail {

namespace {

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
// (tools/grading/testcases.py, exit_text; the grader is in the instructors' repository
// only): the sandbox (tools/grading/sandbox.sh, instructors' repository) passes a signal on as exit status 128 + its number.
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

// MML_RUNNER_CGROUP, for the student's runner only: the cgroup.procs files
// (colon-separated) of the group its process joins before the user switch
// (the instructors' tools/grading/limits.py: memory with shared memory, and processes, counted
// for the whole sandbox; an unprivileged process may not join by itself).
std::vector<std::string> cgroup_files(const char* variable) {
    std::vector<std::string> files;
    const char* v = std::strcmp(variable, "MML_RUNNER") == 0 ? std::getenv("MML_RUNNER_CGROUP") : nullptr;
    for (const char* p = v; p && *p;) {
        const char* end = std::strchr(p, ':');
        const std::size_t n = end ? std::size_t(end - p) : std::strlen(p);
        if (n) files.emplace_back(p, n);
        p += n + (end ? 1 : 0);
    }
    return files;
}

// In the child before exec: closes every descriptor above `keep`, on
// purpose rather than by luck (the checker's report file, opened without
// close-on-exec by doctest, must not reach a runner). close_range where the
// kernel has it (5.9+), else one by one up to the open-file limit.
void close_above(int keep) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, unsigned(keep + 1), ~0U, 0U) == 0) return;
#endif
    rlimit r{};
    const long top = getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY ? long(r.rlim_cur) : 65536;
    for (long fd = keep + 1; fd < top; ++fd) close(int(fd));
}

}  // namespace

std::string RunnerProcess::request(const std::string& text, int fd, bool answered) {
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

void RunnerProcess::stop() {
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

void RunnerProcess::start() {
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
    // grader is root (MML_RUNNER_USER=uid:gid, the instructors' tools/grading/checker.py):
    // switched to in the child below, before anything of it runs.
    uid_t uid = 0;
    gid_t gid = 0;
    const bool switch_user = parse_user(variable_, &uid, &gid);
    const std::vector<std::string> groups = cgroup_files(variable_);
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
        for (const std::string& f : groups) {  // as root still: only root may move a process there
            const int fd = open(f.c_str(), O_WRONLY | O_CLOEXEC);
            if (fd < 0 || write(fd, "0", 1) != 1) _exit(126);
            close(fd);
        }
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
        close_above(kChannelFd);
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
std::string RunnerProcess::wait_reply() {
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
void RunnerProcess::drain_output() {
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
std::string RunnerProcess::output_excerpt() const {
    return output_.empty() ? "" : "; it printed: \"" + printable(output_) + "\"";
}

// The runner's end of the channel is closed: it exited or was killed.
[[noreturn]] void RunnerProcess::gone(const char* when) {
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

std::string RunnerProcess::ended_text(int status) const {
    const bool signalled = WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) > 128);
    if (signalled) return "crashed: " + ending_of(status);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 125 || code == 126 || code == 127) return "could not be started (" + ending_of(status) + ")";
    return "exited (" + ending_of(status) + ")";
}

[[noreturn]] void RunnerProcess::timed_out() {
    static const double allowance = allowance_seconds();
    fail(std::string("did not answer within the test's time limit (") + std::to_string(int(allowance + 0.5)) +
         " s): an endless loop, or far too slow");
}

// The runner failed: kill it (keeping what it printed last), remember why, and throw.
[[noreturn]] void RunnerProcess::fail(const std::string& why) {
    drain_output();
    kill_now();
    failed_ = kRunnerPrefix + why;
    throw std::runtime_error(failed_);
}
[[noreturn]] void RunnerProcess::fail_without_process(const std::string& why) {
    failed_ = kRunnerPrefix + why;
    throw std::runtime_error(failed_);
}

void RunnerProcess::kill_now() {
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

}  // namespace mml::runner::detail
