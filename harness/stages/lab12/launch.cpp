// Starting lab 12's MPI programs with mpirun (launch.h).
#include "harness/stages/lab12/launch.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <thread>

namespace mml::lab12 {
namespace {

bool executable(const std::string& path) {
    struct stat st {};
    return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::string quoted(const std::string& word) {
    if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:+") ==
                             std::string::npos)
        return word;
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string run_capture(const std::string& command, int& exit_code) {
    std::string out;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe) {
        exit_code = -1;
        return "could not start: " + command;
    }
    std::array<char, 4096> buf{};
    while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe)) out += buf.data();
    const int status = pclose(pipe);
    exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
}

// Open MPI's mpirun takes --oversubscribe and --allow-run-as-root; MPICH's
// (Hydra) takes neither and needs neither.
bool is_open_mpi(const std::string& mpirun) {
    static int cached = -1;
    if (cached < 0) {
        int rc = 0;
        const std::string v = run_capture(quoted(mpirun) + " --version", rc);
        cached = v.find("Open MPI") != std::string::npos || v.find("OpenRTE") != std::string::npos ? 1 : 0;
    }
    return cached == 1;
}

}  // namespace

std::string program_path(const std::string& name) {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    std::string dir = "build/bin";
    if (n > 0) {
        buf[n] = '\0';
        dir = buf;
        dir = dir.substr(0, dir.rfind('/'));
    }
    return dir + "/" + name;
}

std::string find_mpirun() {
    // MML_MPIRUN names the one to use (another MPI's, or a missing one in the tests).
    if (const char* chosen = std::getenv("MML_MPIRUN")) return executable(chosen) ? chosen : "";
    if (const char* path = std::getenv("PATH")) {
        std::stringstream dirs(path);
        for (std::string d; std::getline(dirs, d, ':');)
            if (!d.empty() && executable(d + "/mpirun")) return d + "/mpirun";
    }
    for (const char* p : {"/usr/bin/mpirun", "/usr/local/bin/mpirun", "/usr/lib64/openmpi/bin/mpirun"})
        if (executable(p)) return p;
    return "";
}

std::string mpi_missing() {
    if (!executable(program_path("mmlab-mpi")))
        return "lab 12's MPI program (build/bin/mmlab-mpi) is not in this build: OpenMPI was not found when it was "
               "configured (sudo apt-get install libopenmpi-dev openmpi-bin, then make clean && make)";
    if (find_mpirun().empty()) return "mpirun is not installed (sudo apt-get install openmpi-bin)";
    return "";
}

std::string nccl_missing() {
    if (!executable(program_path("mmlab-nccl")))
        return "lab 12's GPU program (build/bin/mmlab-nccl) is not in this build: it needs the CUDA toolkit, "
               "NCCL (it comes with the toolkit, or sudo apt-get install libnccl-dev) and OpenMPI "
               "(sudo apt-get install libopenmpi-dev openmpi-bin), found when configured (then make clean && make)";
    if (find_mpirun().empty()) return "mpirun is not installed (sudo apt-get install openmpi-bin)";
    return "";
}

int cores_here() {
    const unsigned n = std::thread::hardware_concurrency();
    return n ? static_cast<int>(n) : 1;
}

std::string Launch::error() const {
    // The program's own lines ("mmlab-mpi: ..."), else whatever is not
    // mpirun's boilerplate about a process that exited non-zero.
    std::stringstream in(output);
    std::string own, other;
    int lines = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("mmlab-", 0) == 0) {
            own += (own.empty() ? "" : " | ") + line;
            continue;
        }
        if (line.rfind("RESULT ", 0) == 0 || line.empty() || line.find_first_not_of("-=* ") == std::string::npos)
            continue;
        static const char* boilerplate[] = {"Primary job", "non-zero exit code", "mpirun detected", "Process name",
                                            "Exit code", "first process to do so", "job to be terminated",
                                            "aborted", "mpirun noticed", "MPI_ABORT", "NOTE: invoking"};
        bool skip = false;
        for (const char* b : boilerplate) skip |= line.find(b) != std::string::npos;
        if (skip || ++lines > 4) continue;
        other += (other.empty() ? "" : " | ") + line;
    }
    std::string out = own.empty() ? other : own;
    if (exit_code == 124) out = "killed at its time limit" + (out.empty() ? "" : ": " + out);
    return out.empty() ? "exit code " + std::to_string(exit_code) : out;
}

Launch launch(const std::string& program, int np, const std::vector<std::string>& args, int limit_s) {
    const std::string mpirun = find_mpirun();
    std::string cmd;
    if (executable("/usr/bin/timeout")) cmd += "/usr/bin/timeout --kill-after=10 " + std::to_string(limit_s) + " ";
    cmd += quoted(mpirun) + " -np " + std::to_string(np);
    if (is_open_mpi(mpirun)) {
        cmd += " --oversubscribe";
        if (geteuid() == 0) cmd += " --allow-run-as-root";
        if (program.find("nccl") != std::string::npos && !std::getenv("NCCL_NVLS_ENABLE"))
            cmd += " -x NCCL_NVLS_ENABLE=0";
    }
    if (const char* extra = std::getenv("MML_MPIRUN_FLAGS")) cmd += std::string(" ") + extra;
    cmd += " " + quoted(program_path(program));
    for (const std::string& a : args) cmd += " " + quoted(a);
    Launch l;
    l.command = cmd;
    if (!std::getenv("NCCL_NVLS_ENABLE") && program.find("nccl") != std::string::npos)
        setenv("NCCL_NVLS_ENABLE", "0", 0);  // also for an mpirun that is not Open MPI's
    l.output = run_capture(cmd, l.exit_code);
    l.results = parse_results(l.output);
    return l;
}

}  // namespace mml::lab12
