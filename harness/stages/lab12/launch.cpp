// Starting lab 12's MPI programs with mpirun (launch.h).
#include "harness/stages/lab12/launch.h"

#include <dirent.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "harness/student_side.h"

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

namespace {
// `name` in a folder of PATH, or "".
std::string on_path(const std::string& name) {
    if (const char* path = std::getenv("PATH")) {
        std::stringstream dirs(path);
        for (std::string d; std::getline(dirs, d, ':');)
            if (!d.empty() && executable(d + "/" + name)) return d + "/" + name;
    }
    return "";
}
}  // namespace

std::string find_mpirun() {
    // MML_MPIRUN names the one to use (another MPI's, or a missing one in the tests).
    if (const char* chosen = std::getenv("MML_MPIRUN")) return executable(chosen) ? chosen : "";
    const std::string found = on_path("mpirun");
    if (!found.empty()) return found;
    for (const char* p : {"/usr/bin/mpirun", "/usr/local/bin/mpirun", "/usr/lib64/openmpi/bin/mpirun"})
        if (executable(p)) return p;
    return "";
}

std::string mpi_missing() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    // The sanitizer builds leave the MPI programs out on purpose (Makefile:
    // OpenMPI's own allocations at exit would read as leaks); installing
    // OpenMPI would change nothing here.
    if (!executable(program_path("mmlab-mpi")))
        return "this is a sanitizer build (make sanitize): lab 12's MPI programs are left out of it on purpose "
               "(OpenMPI's own allocations would read as leaks); make lab12 runs them";
#endif
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
    // The CPUs this process may run on (taskset, a batch system's cpuset),
    // which its mpirun's processes inherit; not every CPU of the machine.
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
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

namespace {

// Where the CPU program's ranks run, unless MML_MPIRUN_FLAGS says (Open MPI):
//  - while they fit on the cores this process may use (cores_here), one core
//    each (--bind-to core): a rank moved between cores leaves its caches
//    behind, and Open MPI binds more than 2 ranks only to a socket by itself;
//    ranks of several threads (--threads) are left as Open MPI places them;
//  - when they do not fit, unbound, and yielding the core while they wait in
//    MPI (mpi_yield_when_idle). Open MPI yields by itself only when it sees
//    more ranks than cores, and it counts the machine's cores, not those of a
//    taskset or cpuset: it would busy-poll, and a polling rank holds a core
//    that a rank with work to do is waiting for (measured, handouts/lab12.md:
//    4 ranks on 2 of 16 cores, SUMMA 2048^3 took 2.33 s against 83 ms on 2).
std::string cpu_placement(int np, const std::vector<std::string>& args) {
    const char* extra = std::getenv("MML_MPIRUN_FLAGS");
    if (extra && std::string(extra).find("--bind-to") != std::string::npos) return "";
    long threads = 1;
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "--threads") threads = std::max(1L, std::strtol(args[i + 1].c_str(), nullptr, 10));
    if (np * threads <= cores_here()) return threads == 1 ? " --bind-to core --map-by core" : "";
    return " --bind-to none --mca mpi_yield_when_idle 1";
}

// The start itself, in this process (the side the call runs on).
Launch launch_here(const std::string& program, int np, const std::vector<std::string>& args, int limit_s) {
    const std::string mpirun = find_mpirun();
    std::string cmd;
    if (executable("/usr/bin/timeout")) cmd += "/usr/bin/timeout --kill-after=10 " + std::to_string(limit_s) + " ";
    cmd += quoted(mpirun) + " -np " + std::to_string(np);
    if (is_open_mpi(mpirun)) {
        cmd += " --oversubscribe";
        if (geteuid() == 0) cmd += " --allow-run-as-root";
        // Open MPI refuses to start, even on this machine alone, when its
        // remote-start agent (ssh or rsh) is not installed (seen on the H100
        // machine's image, inside the grader's sandbox): a run here never
        // uses it, so any program that exists will do.
        if (!std::getenv("OMPI_MCA_plm_rsh_agent") && on_path("ssh").empty() && on_path("rsh").empty())
            cmd += " --mca plm_rsh_agent false";
        if (program.find("nccl") != std::string::npos && !std::getenv("NCCL_NVLS_ENABLE"))
            cmd += " -x NCCL_NVLS_ENABLE=0";
        if (program == "mmlab-mpi") cmd += cpu_placement(np, args);
    }
    if (const char* extra = std::getenv("MML_MPIRUN_FLAGS")) cmd += std::string(" ") + extra;
    cmd += " " + quoted(program_path(program));
    for (const std::string& a : args) cmd += " " + quoted(a);
    Launch l;
    l.command = cmd;
    if (!std::getenv("NCCL_NVLS_ENABLE") && program.find("nccl") != std::string::npos)
        setenv("NCCL_NVLS_ENABLE", "0", 0);  // also for an mpirun that is not Open MPI's
    l.output = run_capture(cmd, l.exit_code);
    return l;
}

// A fresh folder for a run's products, in $TMPDIR (the grader's sandbox: the
// student's tree) or /tmp.
std::string fresh_folder() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/mmlab-lab12-XXXXXX";
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot make a folder for the products in " + pattern);
    return pattern;
}

// The products a run wrote (c0.bin, c1.bin, ... until one is missing), at
// most 1 GiB in all; then the folder and whatever is in it are removed.
std::vector<std::string> take_products(const std::string& dir) {
    std::vector<std::string> products;
    std::size_t total = 0;
    for (std::size_t i = 0;; ++i) {
        std::ifstream in(product_file(dir, i), std::ios::binary);
        if (!in) break;
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        total += bytes.size();
        if (total > (std::size_t(1) << 30)) break;
        products.push_back(std::move(bytes));
    }
    if (DIR* d = opendir(dir.c_str())) {
        while (const dirent* e = readdir(d))
            if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
                unlink((dir + "/" + e->d_name).c_str());
        closedir(d);
    }
    rmdir(dir.c_str());
    return products;
}

// The call "lab12.launch": PROGRAM NP LIMIT_S PRODUCTS(0|1) ARGS... Its
// status is the program's exit code, its text the output, its blobs the
// command line and then, with PRODUCTS, every product (take_products).
SideCallResult launch_call(const std::vector<std::string>& w) {
    if (w.size() < 4) throw std::invalid_argument("lab12.launch takes PROGRAM NP LIMIT_S PRODUCTS ARGS...");
    const int np = std::stoi(w[1]), limit_s = std::stoi(w[2]);
    const bool products = w[3] == "1";
    std::vector<std::string> args(w.begin() + 4, w.end());
    std::string dir;
    if (products) {
        dir = fresh_folder();
        args.insert(args.end(), {"--c-out", dir});
    }
    const Launch l = launch_here(w[0], np, args, limit_s);
    SideCallResult r;
    r.status = l.exit_code;
    r.text = l.output.size() > (std::size_t(1) << 20) ? l.output.substr(0, std::size_t(1) << 20) : l.output;
    r.blobs.push_back(l.command);
    if (products)
        for (std::string& p : take_products(dir)) r.blobs.push_back(std::move(p));
    return r;
}

const SideCallRegistrar kLaunchCall("lab12.launch", launch_call);

// The call with these words, its answer as a Launch (and the products after the command).
SideCallResult launch_on_student_side(const std::string& program, int np, const std::vector<std::string>& args,
                                      int limit_s, bool products, Launch& l) {
    std::vector<std::string> words = {program, std::to_string(np), std::to_string(limit_s), products ? "1" : "0"};
    words.insert(words.end(), args.begin(), args.end());
    SideCallResult r = call_student_side("lab12.launch", words);
    l.exit_code = r.status;
    l.output = r.text;
    l.command = r.blobs.empty() ? program : r.blobs.front();
    l.results = parse_results(l.output);
    return r;
}

}  // namespace

Launch launch(const std::string& program, int np, const std::vector<std::string>& args, int limit_s) {
    Launch l;
    launch_on_student_side(program, np, args, limit_s, false, l);
    return l;
}

ProductRun launch_with_products(const std::string& program, int np, const std::vector<std::string>& args,
                                std::uint64_t seed, int limit_s) {
    std::vector<std::string> with_seed = args;
    with_seed.insert(with_seed.end(), {"--seed", std::to_string(seed)});
    ProductRun pr;
    SideCallResult r = launch_on_student_side(program, np, with_seed, limit_s, true, pr.run);
    for (std::size_t i = 1; i < r.blobs.size(); ++i) pr.products.push_back(std::move(r.blobs[i]));
    return pr;
}

}  // namespace mml::lab12
