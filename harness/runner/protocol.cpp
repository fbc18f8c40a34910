#include "harness/runner/protocol.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <system_error>

namespace mml::runner {

namespace {

constexpr std::size_t kRegionAlign = 64 * 1024;

std::size_t align_up(std::size_t x) { return (x + kRegionAlign - 1) / kRegionAlign * kRegionAlign; }

// bytes of a rows x cols float matrix, refusing sizes that overflow size_t.
std::size_t matrix_bytes(std::int64_t rows, std::int64_t cols) {
    const double bytes = double(rows) * double(cols) * double(sizeof(float));
    if (rows < 1 || cols < 1 || bytes > double(std::numeric_limits<std::size_t>::max() / 4))
        throw std::length_error("a shape too large for this machine's address space");
    return std::size_t(rows) * std::size_t(cols) * sizeof(float);
}

}  // namespace

Layout layout_of(Shape s) {
    Layout l;
    l.a = 0;
    l.b = align_up(l.a + matrix_bytes(s.M, s.K));
    l.c = align_up(l.b + matrix_bytes(s.K, s.N));
    l.total = align_up(l.c + matrix_bytes(s.M, s.N));
    return l;
}

void send_message(int sock, const std::string& text, int fd) {
    if (text.size() > kMaxMessage) throw std::length_error("message longer than the protocol allows: " + printable(text));
    iovec iov{const_cast<char*>(text.data()), text.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    if (fd >= 0) {
        std::memset(control, 0, sizeof control);
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
    }
    for (;;) {
        // MSG_NOSIGNAL: a peer that is gone is an error here, not a SIGPIPE that ends this process.
        const ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);
        if (n >= 0) {
            if (std::size_t(n) != text.size()) throw std::runtime_error("a message was sent in part only");
            return;
        }
        if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "sending to the other program");
    }
}

bool receive_message(int sock, std::string& text, int* fd) {
    if (fd) *fd = -1;
    char buf[kMaxMessage + 1];
    iovec iov{buf, sizeof buf};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))];
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n;
    do {
        // MSG_CMSG_CLOEXEC: a descriptor received must not leak into programs this one starts.
        n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n < 0) throw std::system_error(errno, std::generic_category(), "receiving from the other program");
    // Every descriptor that arrived is either handed to the caller or closed.
    std::vector<int> fds;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < count; ++i) {
            int f;
            std::memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            fds.push_back(f);
        }
    }
    auto refuse = [&](const std::string& why) {
        for (int f : fds) close(f);
        throw std::runtime_error(why);
    };
    if (n == 0 && fds.empty()) return false;  // SOCK_SEQPACKET: 0 bytes is the end of the stream
    if (msg.msg_flags & MSG_CTRUNC) refuse("a message carried more descriptors than the protocol allows");
    if ((msg.msg_flags & MSG_TRUNC) || std::size_t(n) > kMaxMessage)
        refuse("a message longer than the protocol allows (" + std::to_string(kMaxMessage) + " bytes)");
    if (fds.size() > 1 || (!fd && !fds.empty())) refuse("a message carried a file descriptor where none belongs");
    text.assign(buf, std::size_t(n));
    for (unsigned char ch : text)
        if (ch < 0x20 || ch > 0x7e) refuse("a message holding a byte that is not printable ASCII: \"" + printable(text) + "\"");
    if (fd && !fds.empty()) *fd = fds[0];
    return true;
}

std::vector<std::string> split_words(const std::string& text) {
    std::vector<std::string> words;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = text.find(' ', start);
        words.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) return words;
        start = end + 1;
    }
}

std::string printable(const std::string& text, std::size_t limit) {
    std::string out;
    for (unsigned char ch : text) {
        if (out.size() >= limit) {
            out += "...";
            break;
        }
        if (ch == '\n') out += "\\n";
        else if (ch >= 0x20 && ch < 0x7f) out += char(ch);
        else {
            static const char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[ch >> 4];
            out += hex[ch & 15];
        }
    }
    return out;
}

}  // namespace mml::runner
