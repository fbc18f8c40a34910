// The shared memory of one shape between the checker and a runner
// (connection.h; protocol.h says what the runner may do with it).
#include "harness/runner/connection.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace mml::runner::detail {

void Connection::prepare(Shape s) {
    if (base_ && s == shape_) return;
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

void Connection::unmap() {
    if (base_) munmap(base_, size_);
    base_ = nullptr;
}

}  // namespace mml::runner::detail
