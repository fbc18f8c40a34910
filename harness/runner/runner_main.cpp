// mmlab-runner: the UNTRUSTED half of grading (protocol.h says who does what).
// It holds the student's code and the stage registrations, and serves the
// checker's requests on file descriptor 3: map the shared memory of a shape,
// run one version of one stage on it, answer "done" or "error ...".
//
// Nothing here decides anything: the checker made the inputs and keeps its
// own copies, verifies C itself, times the requests on its own clock and
// writes the report. So whatever the student's code does in this process -
// exit, crash, hang, write garbage on the channel, answer "done" without
// working - costs only the test case the checker was running, with the reason
// named by the checker; and what it prints (a leftover debug printf) costs
// nothing: stdout and stderr are a pipe the checker reads apart from the
// channel, and the start of it goes into the student's feedback.
//
// It is started by the checker (MML_RUNNER), never by hand.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "harness/cli.h"
#include "harness/run_stage.h"
#include "harness/runner/device.h"
#include "harness/runner/protocol.h"
#include "harness/runner/scale_factors.h"
#include "harness/student_side.h"

namespace {

using namespace mml;
using namespace mml::runner;

// The checker's shared memory of one shape, mapped here.
class Shared {
public:
    ~Shared() { unmap(); }

    // Maps the memfd `fd` (which the caller closes) for shape s.
    void map(Shape s, int fd) {
        unmap();
        const Layout l = layout_of(s);
        struct stat st {};
        if (fstat(fd, &st) != 0) throw std::system_error(errno, std::generic_category(), "fstat of the shared memory");
        if (st.st_size < 0 || std::size_t(st.st_size) != l.total)
            throw std::runtime_error("the shared memory's size does not match M x N x K");
        void* p = mmap(nullptr, l.total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mapping the shared memory");
        base_ = p;
        size_ = l.total;
        // A and B read-only: a stage that writes into its inputs stops at once.
        if (mprotect(p, l.c, PROT_READ) != 0)
            throw std::system_error(errno, std::generic_category(), "protecting the inputs");
        shape_ = s;
        layout_ = l;
    }

    bool mapped() const { return base_ != nullptr; }
    Shape shape() const { return shape_; }
    const float* A() const { return at(layout_.a); }
    const float* B() const { return at(layout_.b); }
    float* C() const { return at(layout_.c); }

private:
    float* at(std::size_t offset) const { return reinterpret_cast<float*>(static_cast<char*>(base_) + offset); }
    void unmap() {
        if (base_) munmap(base_, size_);  // nothing to do about a failure: the mapping is dropped either way
        base_ = nullptr;
    }
    void* base_ = nullptr;
    std::size_t size_ = 0;
    Shape shape_;
    Layout layout_;
};

// A request the checker should never send: a bug on its side, said as such.
struct BadRequest : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

long long parse_number(const std::string& word, const std::string& what) {
    if (word.empty() || word.size() > 18 || word.find_first_not_of("-0123456789") != std::string::npos ||
        word.find('-', 1) != std::string::npos)
        throw BadRequest("not a number for " + what + ": '" + word + "'");
    return std::stoll(word);
}

Shape parse_shape(const std::vector<std::string>& w) {
    if (w.size() != 4) throw BadRequest("prepare takes M N K");
    Shape s{parse_number(w[1], "M"), parse_number(w[2], "N"), parse_number(w[3], "K")};
    if (s.M < 1 || s.N < 1 || s.K < 1) throw BadRequest("M, N and K must be at least 1");
    return s;
}

// The seed of a timed run's factors: a decimal 64-bit number.
std::uint64_t parse_seed(const std::string& word) {
    if (word.empty() || word.size() > 20 || word.find_first_not_of("0123456789") != std::string::npos)
        throw BadRequest("not a seed: '" + word + "'");
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(word.c_str(), &end, 10);
    if (errno != 0 || *end) throw BadRequest("not a seed: '" + word + "'");
    return v;
}

// "threads=T name=value ...": the stage's parameters.
StageParams parse_params(const std::vector<std::string>& w, std::size_t first) {
    StageParams p;
    bool threads_given = false;
    for (std::size_t i = first; i < w.size(); ++i) {
        const std::size_t eq = w[i].find('=');
        if (eq == std::string::npos || eq == 0) throw BadRequest("a parameter is not name=value: '" + w[i] + "'");
        const std::string name = w[i].substr(0, eq);
        const long long value = parse_number(w[i].substr(eq + 1), name);
        if (name == "threads") {
            if (value < 1 || value > 4096) throw BadRequest("threads out of range");
            p.threads = int(value);
            threads_given = true;
        } else {
            p.values[name] = value;
        }
    }
    if (!threads_given) throw BadRequest("run needs threads=T");
    return p;
}

class Runner {
public:
    // One request; returns the reply.
    std::string handle(const std::string& text, int fd) {
        const std::vector<std::string> w = split_words(text);
        for (const auto& word : w)
            if (word.empty()) throw BadRequest("an empty word in '" + text + "'");
        if (w[0] == "prepare") {
            if (fd < 0) throw BadRequest("prepare without its shared memory");
            const Shape s = parse_shape(w);
            device_.reset();
            shared_.map(s, fd);
            return "done";
        }
        if (fd >= 0) throw BadRequest("a file descriptor with '" + w[0] + "'");
        if (w[0] == "call" && w.size() >= 2) return call(w);
        if (!shared_.mapped()) throw BadRequest("'" + w[0] + "' before prepare");
        if (w[0] == "fetch" && w.size() == 2) return fetch(w[1]);
        if (w[0] == "load" && w.size() == 1) {  // only for GPU stages: the checker knows the stage's device
            device_.load(shared_.shape(), shared_.A(), shared_.B());
            return "done";
        }
        if (w[0] == "run" && w.size() >= 5) return run(w);
        throw BadRequest("unknown request '" + printable(text, 60) + "'");
    }

private:
    // "call NAME WORDS...": a call of harness/student_side.h, here (lab 12:
    // mpirun of the student's MPI program, inside this sandbox). Its pieces
    // (the text, then the blobs) wait for the checker's "fetch I".
    std::string call(const std::vector<std::string>& w) {
        pieces_.clear();
        SideCallResult r = call_here(w[1], std::vector<std::string>(w.begin() + 2, w.end()));
        if (r.blobs.size() + 1 > kMaxPieces) throw std::runtime_error("the call returned too many pieces");
        pieces_.push_back(std::move(r.text));
        for (auto& b : r.blobs) pieces_.push_back(std::move(b));
        std::string reply = "done " + std::to_string(r.status) + " " + std::to_string(pieces_.size());
        for (const auto& p : pieces_) reply += " " + std::to_string(p.size());
        return reply;
    }

    // "fetch I": piece I of the last call into C of the shared memory (which
    // the checker made large enough).
    std::string fetch(const std::string& word) {
        const long long i = parse_number(word, "the piece");
        if (i < 0 || std::size_t(i) >= pieces_.size()) throw BadRequest("there is no piece " + word);
        const std::string& p = pieces_[std::size_t(i)];
        const Shape s = shared_.shape();
        if (p.size() > std::size_t(s.M) * std::size_t(s.N) * sizeof(float))
            throw BadRequest("piece " + word + " does not fit the shared memory");
        std::memcpy(shared_.C(), p.data(), p.size());
        return "done";
    }

    static constexpr std::size_t kMaxPieces = 256;  // the reply's sizes fit one message

    std::string run(const std::vector<std::string>& w) {
        const Stage* stage = Registry::instance().find(w[1]);
        if (!stage) throw BadRequest("there is no stage " + w[1] + " in this runner");
        Impl impl;
        if (w[2] == "student") impl = Impl::Student;
        else if (w[2] == "reference") impl = Impl::Reference;
        else throw BadRequest("unknown version '" + w[2] + "'");
        const bool scaled = w[3].rfind("scaled=", 0) == 0;
        if (w[3] != "new" && !scaled) throw BadRequest("unknown inputs '" + w[3] + "'");
        const std::uint64_t seed = scaled ? parse_seed(w[3].substr(7)) : 0;
        const StageParams params = parse_params(w, 4);
        const MatmulFn& fn = version_of(*stage, impl);  // std::invalid_argument when there is no such version
        const Shape s = shared_.shape();
        if (stage->device == Device::Cpu) {
            if (!scaled) {
                fn(shared_.A(), shared_.B(), shared_.C(), s, params);
                return "done";
            }
            // B' = diag(d) * B in a Matrix of its own: 64-byte aligned rows, as every stage may assume.
            if (scaled_.rows() != s.K || scaled_.cols() != s.N) scaled_ = Matrix(s.K, s.N);
            const float* B = shared_.B();
            float* out = scaled_.data();
            for (std::int64_t k = 0; k < s.K; ++k) {
                const float f = scale_factor(seed, std::uint64_t(k));
                for (std::int64_t j = 0; j < s.N; ++j) out[k * s.N + j] = f * B[k * s.N + j];
            }
            fn(shared_.A(), scaled_.data(), shared_.C(), s, params);
            return "done";
        }
        if (!scaled) device_.load(s, shared_.A(), shared_.B());
        else if (!device_.loaded(s)) throw BadRequest("a scaled GPU run before load");
        device_.run(fn, stage->prepare, params, scaled, seed, shared_.C());
        return "done";
    }

    Shared shared_;
    DeviceSide device_;
    Matrix scaled_;
    std::vector<std::string> pieces_;  // the last call's text and blobs
};

// "error KIND text", the text made printable (the protocol carries ASCII only).
std::string error_reply(const char* kind, const std::string& what) { return std::string("error ") + kind + " " + printable(what, 1500); }

}  // namespace

int main() {
    struct stat st {};
    if (fstat(kChannelFd, &st) != 0 || !S_ISSOCK(st.st_mode)) {
        std::fputs("mmlab-runner: the grader's checker starts this program (MML_RUNNER), with its socket as file "
                   "descriptor 3; it is not run by hand (the instructors' handouts/grading.md)\n",
                   stderr);
        return 2;
    }
    // The channel is for this process alone: a program it starts (lab 12's
    // mpirun and the ranks it starts) does not inherit it.
    if (fcntl(kChannelFd, F_SETFD, FD_CLOEXEC) != 0) return 3;
    // Line by line: what the student's code prints reaches the checker as it
    // is printed, so a crash later in the test does not swallow it.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    Runner runner;
    try {
        send_message(kChannelFd, kHello);
        for (;;) {
            std::string text;
            int fd = -1;
            if (!receive_message(kChannelFd, text, &fd)) return 0;  // the checker is gone: nothing left to do
            if (text == "quit") {
                if (fd >= 0) close(fd);
                return 0;
            }
            std::string reply;
            try {
                reply = runner.handle(text, fd);
            } catch (const BadRequest& e) {
                reply = error_reply("invalid", std::string("bad request: ") + e.what());
            } catch (const UsageError& e) {  // (a std::runtime_error: before it)
                reply = error_reply("usage", e.what());
            } catch (const std::invalid_argument& e) {
                reply = error_reply("invalid", e.what());
            } catch (const std::bad_alloc&) {
                reply = error_reply("runtime", "out of memory (std::bad_alloc)");
            } catch (const std::exception& e) {
                reply = error_reply("runtime", e.what());
            } catch (...) {
                reply = error_reply("runtime", "an exception that is not a std::exception");
            }
            if (fd >= 0) close(fd);  // mapped (or refused): the descriptor is no longer needed
            send_message(kChannelFd, reply);
        }
    } catch (const std::exception&) {
        // The channel itself failed: the checker is gone or broke the protocol.
        // Nothing may be printed; the exit status says it.
        return 3;
    }
}
