// Stand-in for harness/gpu_backend_cuda.cu when this build has no CUDA toolkit.
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <string>
#include <vector>

#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/gpu_backend.h"

namespace mml::gpu {

namespace {
// No NVIDIA GPU on this machine at all (no driver's device list, no device
// node): a rebuild with CUDA would bring nothing back, so the advice says so.
bool gpu_present() {
    std::error_code ec;
    return std::filesystem::exists("/proc/driver/nvidia/gpus", ec) || std::filesystem::exists("/dev/nvidia0", ec);
}

// Why there is no GPU here, true to how this build was made (the Makefile
// says whether CUDA=0 was chosen: MML_CUDA_CHOSEN_OFF). `make sanitize`
// builds without CUDA on purpose (GCC defines __SANITIZE_ADDRESS__ /
// __SANITIZE_THREAD__ under its -fsanitize flags): installing the toolkit
// would change nothing there.
std::string why_no_cuda() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return "this is a sanitizer build (make sanitize): CPU stages and their tests only, built without CUDA on "
           "purpose, so it checks no GPU code; on a GPU machine, make gpu-check runs the GPU tests under "
           "compute-sanitizer (memcheck, racecheck)";
#elif MML_CUDA_CHOSEN_OFF
    if (!gpu_present())
        return "this build was configured with CUDA=0: CPU labs only (and no GPU is present on this machine: no "
               "NVIDIA driver or device, so a rebuild would not bring the GPU labs back; they need a machine with one)";
    return "this build was configured with CUDA=0: CPU labs only ('make clean' and make without CUDA=0 brings the "
           "GPU labs back where the CUDA toolkit is installed)";
#else
    if (!gpu_present())
        return "this build has no CUDA, and no GPU is present on this machine (no NVIDIA driver or device): the GPU "
               "labs need a machine with one";
    return "this build has no CUDA: nvcc was not found when it was configured (install the CUDA toolkit, then "
           "'make clean' and make again)";
#endif
}

// Asked once: the machine does not change while mmlab runs.
const std::string& no_cuda_why() {
    static const std::string why = why_no_cuda();
    return why;
}
}  // namespace

bool built_with_cuda() { return false; }

DeviceInfo probe() {
    DeviceInfo info;
    info.why_not = no_cuda_why();
    return info;
}

struct DeviceProblem::State {};
DeviceProblem::DeviceProblem(Shape) { throw std::runtime_error(no_cuda_why()); }
DeviceProblem::~DeviceProblem() = default;
void DeviceProblem::upload(const float*, const float*) {}
void DeviceProblem::poison_c() {}
double DeviceProblem::run_timed_ms(const MatmulFn&, const StageParams&, const MatmulFn&, const std::string&) {
    return 0;
}
void DeviceProblem::download_c(float*) {}

// The GPU labs' own mmlab commands live in harness/stages/labN/ of the GPU labs, which a build
// without CUDA leaves out. Without these stand-ins, `mmlab gpu-latency` (lab 10's
// handout names it) would answer "unknown command", as if it were a typo.
namespace {
Command left_out(const char* name, int lab, const char* summary, const char* note = "") {
    const std::string why = std::string("'mmlab ") + name + "' is lab " + std::to_string(lab) +
                            "'s command and is left out of this build" + note + ": " + no_cuda_why();
    return {name, std::string(summary) + " (not in this build: no CUDA)", why + "\n",
            [why](const std::vector<std::string>&) -> int { throw UsageError(why); }, lab};
}
CommandRegistrar left_out_commands[] = {
    CommandRegistrar(left_out("breakdown", 6, "lab 6: GPU cost split: allocation, copies in, kernel, copy out, free")),
    CommandRegistrar(left_out("gpu-vs-cpu", 6, "lab 6: a CPU stage against a GPU stage across sizes")),
    CommandRegistrar(left_out("tune", 8, "lab 8: every block tile x split-K at a shape, timed and checked")),
    CommandRegistrar(left_out("phvm", 9, "lab 9: the skinny shapes on the GPU (Lei et al. 2024, Exp. 1)")),
    CommandRegistrar(left_out("phvm-sweep", 9, "lab 9: PHVM over GS x BS against the model (Lei et al. 2024, Exp. 2)")),
    CommandRegistrar(left_out("phvm-model", 9, "lab 9: the PHVM time-cost model",
                              " (it needs no GPU, but it is built only with the CUDA toolkit)")),
    CommandRegistrar(left_out("gpu-latency", 9, "lab 9: latency micro-benchmarks and read bandwidth")),
    CommandRegistrar(left_out("mma-rate", 11, "lab 11: the tensor cores' rate through mma.sync, operands in registers")),
};
}  // namespace

CostBreakdown measure_breakdown(const MatmulFn&, const float*, const float*, float*, Shape,
                                const StageParams&, int) {
    throw std::runtime_error(no_cuda_why());
}

}  // namespace mml::gpu
