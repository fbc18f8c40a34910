// Lab 12's model sections (abg_model_cmd.cpp), shared by `mmlab abg-model`
// and `mmlab lab 12`.
#pragma once

#include <string>
#include <vector>

#include "harness/stages/lab12/lab12.h"
#include "labs/common/lab12_grid.h"
#include "models/abg_model.h"

namespace mml::lab12 {

// ---- GPUs, 1 to 512
struct GpuModelInputs {
    model::Machine machine;
    std::string device;  // the GPU gamma was measured on
};
// gamma from the measured single-GPU cuBLAS rows; links measured or named.
// gamma_note is set (and gamma 0) when no rate is known.
GpuModelInputs gpu_inputs(const std::vector<Fields>& measured, const std::string& precision, std::string& gamma_note);

struct ModelRow {
    std::string scenario;  // "strong" (n fixed) or "weak" (n x sqrt(P))
    int P = 1;
    Shape shape;
    Grid grid;
    std::int64_t panel = 0;  // SUMMA's panel width: the measured run's, else model::default_gpu_panel
    model::Prediction rows_1d, summa_serial, summa_overlap;
    double measured_overlap_s = -1, measured_serial_s = -1;  // mmlab-nccl SUMMA, where measured
    bool timing_only = false;  // a measured run was not checked (--no-check)
};
std::vector<ModelRow> gpu_model_rows(const GpuModelInputs& in, const std::vector<Fields>& measured, std::int64_t n,
                                     const std::string& precision);
void print_gpu_model(const GpuModelInputs& in, const std::vector<ModelRow>& rows, const std::string& precision);
void write_model_csv(const std::string& path, const std::vector<ModelRow>& rows, const std::string& precision);

// Every SUMMA run in `measured` (mmlab-nccl RESULT lines, checked or timing
// only) beside model_seconds, the prediction from its own launch's inputs
// (model_runs.cpp). Returns 1 when one is off by more than 10 %, else 0.
int print_run_models(const std::vector<Fields>& measured);

// The H100 run recorded in the repository (handouts/data/lab12-h100.txt); "" when absent.
std::string recorded_gpu_file();
std::vector<Fields> read_results(const std::string& path);

// ---- this machine's CPUs
struct CpuModel {
    model::Machine machine;     // gamma and the MPI link, measured now
    std::vector<Fields> bench;  // the broadcasts
    Table table;                // local, rows and SUMMA at P = 1, 2, 4
    std::string error;          // why it could not run
};
CpuModel cpu_model(std::int64_t n, int reps, bool quiet);
// Only the link: MPI_Bcast between 2 processes, measured now (c.bench,
// c.machine's links); false, with c.error, when it could not run.
bool measure_cpu_link(CpuModel& c);
// Predicted beside measured; returns 0 when every prediction (with the
// cores' share) is within 25 %, 1 otherwise, 2 when it could not run.
int print_cpu_model(const CpuModel& c);

}  // namespace mml::lab12
