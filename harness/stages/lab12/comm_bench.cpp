// mmlab comm-bench: the alpha and beta of the communication model, measured
// here: MPI_Bcast / MPI_Allreduce (mmlab-mpi bench) and ncclBroadcast /
// ncclAllReduce (mmlab-nccl bench) at several message sizes.
#include <cstdio>
#include <map>

#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/report.h"
#include "harness/stages/lab12/lab12.h"
#include "harness/targets.h"
#include "models/abg_model.h"

namespace mml::lab12 {

std::vector<Fields> run_comm_bench(const std::string& engine, int np, const std::vector<long long>& bytes, int reps,
                                   std::string& error) {
    const std::string missing = engine == "mpi" ? mpi_missing() : nccl_missing();
    if (!missing.empty()) {
        error = missing;
        return {};
    }
    std::string list;
    for (long long b : bytes) list += (list.empty() ? "" : ",") + std::to_string(b);
    const Launch l = launch(engine == "mpi" ? "mmlab-mpi" : "mmlab-nccl", np,
                            {"bench", "--bytes", list, "--reps", std::to_string(reps)});
    if (l.exit_code != 0 || l.results.empty()) error = l.error() + " (" + l.command + ")";
    return l.results;
}

void print_comm_bench(const std::vector<Fields>& rows) {
    std::printf("%-6s %-10s %3s %12s %12s %12s %12s\n", "engine", "op", "P", "bytes", "time", "algbw GB/s", "busbw GB/s");
    for (const Fields& f : rows) {
        const double b = number(f, "bytes"), t = number(f, "seconds"), P = number(f, "P", 1);
        const double alg = t > 0 ? b / t / 1e9 : 0;
        // NCCL's "bus bandwidth" (what each link carries): a broadcast's equals
        // its algorithm bandwidth, an allreduce moves 2(P-1)/P of the buffer.
        const double bus = field(f, "op") == "allreduce" ? alg * 2 * (P - 1) / P : alg;
        std::printf("%-6s %-10s %3.0f %12.0f %12s %12.2f %12.2f\n", field(f, "engine").c_str(), field(f, "op").c_str(), P,
                    b, format_seconds(t).c_str(), alg, P > 1 ? bus : 0.0);
    }
    // The link's alpha and beta, from the broadcasts between 2 processes.
    std::map<std::string, std::vector<model::Sample>> bcasts;
    std::map<std::string, std::vector<Fields>> allreduces;
    for (const Fields& f : rows) {
        if (number(f, "P") != 2) continue;
        if (field(f, "op") == "bcast") bcasts[field(f, "engine")].push_back({number(f, "bytes"), number(f, "seconds")});
        if (field(f, "op") == "allreduce") allreduces[field(f, "engine")].push_back(f);
    }
    for (const auto& [engine, samples] : bcasts) {
        if (samples.size() < 2) continue;
        const model::Link l = model::fit_link(samples, "");
        std::printf("%s between 2 processes: alpha = %s (the smallest broadcast), beta = %.3g s/byte = %.2f GB/s "
                    "(slope to the largest)\n",
                    engine.c_str(), format_seconds(l.alpha).c_str(), l.beta, l.beta > 0 ? 1e-9 / l.beta : 0.0);
        for (const Fields& f : allreduces[engine]) {
            const double pred = model::allreduce_time(2, number(f, "bytes"), l), meas = number(f, "seconds");
            std::printf("  check: allreduce of %.0f bytes, predicted from alpha and beta %s, measured %s (%+.0f%%)\n",
                        number(f, "bytes"), format_seconds(pred).c_str(), format_seconds(meas).c_str(),
                        meas > 0 ? 100 * (pred - meas) / meas : 0.0);
        }
    }
    if (bcasts.empty())
        std::printf("(alpha and beta need 2 processes: with one, a broadcast moves nothing - run with --np 2)\n");
}

namespace {

const char* kUsage = R"(usage: mmlab comm-bench [--engine mpi,nccl] [--np P] [--bytes LIST] [--reps R] [--csv FILE] [--save FILE]
The communication model's alpha (latency) and beta (seconds per byte), measured here:
MPI_Bcast and MPI_Allreduce (mmlab-mpi bench) and ncclBroadcast and ncclAllReduce
(mmlab-nccl bench: one process per GPU, so --np is at most the GPUs present) among P
processes, at each size (bytes; default 8,1024,65536,1048576,16777216,67108864). Time: the
slowest rank's, per call (several calls back to back), median of the repetitions.
With P = 2: alpha = the smallest broadcast's time, beta = the slope to the largest, and
the allreduce predicted from them beside the measured one. Defaults: --engine mpi
(plus nccl where build/bin/mmlab-nccl exists), --np 2, --reps 5.
--csv FILE: engine,op,P,bytes,seconds per row (for plots); --save FILE appends the programs'
RESULT lines (mmlab abg-model --measured reads them: NCCL broadcasts between 2 GPUs set the
model's link inside a node).
)";

int comm_bench_command(const std::vector<std::string>& args) {
    std::vector<std::string> engines;
    int np = 2, reps = 5;
    std::vector<long long> bytes = {8, 1024, 65536, 1048576, 16777216, 67108864};
    std::string csv, save;
    CommandArgs a(args, "comm-bench");
    for (std::string f; a.next(f);) {
        if (f == "--engine") {
            engines = split_list(a.value(f), f);
            for (const std::string& e : engines)
                if (e != "mpi" && e != "nccl") throw UsageError("--engine " + e + ": use mpi and/or nccl");
        } else if (f == "--np") {
            np = static_cast<int>(parse_integer(a.value(f), f, 1, 256));
        } else if (f == "--bytes") {
            bytes = parse_integer_list(a.value(f), f, 4, 1LL << 34);
        } else if (f == "--reps") {
            reps = static_cast<int>(parse_integer(a.value(f), f, 1, 1000));
        } else if (f == "--csv") {
            csv = a.value(f);
        } else if (f == "--save") {
            save = a.value(f);
        } else {
            a.unknown(f);
        }
    }
    if (engines.empty()) {
        engines = {"mpi"};
        if (nccl_missing().empty()) engines.push_back("nccl");
    }
    print_machine_header(false);
    std::vector<Fields> all;
    int skipped = 0;
    for (const std::string& e : engines) {
        std::string error;
        std::printf("\n%s broadcast and allreduce on %d processes\n", e == "mpi" ? "MPI" : "NCCL", np);
        std::fflush(stdout);
        const std::vector<Fields> rows = run_comm_bench(e, np, bytes, reps, error);
        if (!error.empty()) {
            std::printf("%s: %s: %s\n", e.c_str(), rows.empty() ? "skipped" : "failed", error.c_str());
            ++skipped;
        }
        all.insert(all.end(), rows.begin(), rows.end());
    }
    print_comm_bench(all);
    if (!save.empty() && !append_results(save, all)) throw UsageError("cannot write --save " + save);
    if (!csv.empty()) {
        std::FILE* out = std::fopen(csv.c_str(), "w");
        if (!out) throw UsageError("cannot write --csv " + csv);
        std::fprintf(out, "engine,op,P,bytes,seconds\n");
        for (const Fields& f : all)
            std::fprintf(out, "%s,%s,%s,%s,%s\n", field(f, "engine").c_str(), field(f, "op").c_str(), field(f, "P").c_str(),
                         field(f, "bytes").c_str(), field(f, "seconds").c_str());
        std::fclose(out);
    }
    return skipped ? 2 : 0;
}

CommandRegistrar cmd({"comm-bench", "lab 12: MPI and NCCL broadcast/allreduce times per message size (the model's alpha, beta)",
                      kUsage, comm_bench_command, 12});

}  // namespace
}  // namespace mml::lab12
