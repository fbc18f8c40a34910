// Printing what the harness measured: the machine header, the results table,
// and the JSON file for plots and grading.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cpu/peak.h"
#include "harness/bench.h"
#include "harness/cli.h"
#include "harness/targets.h"

namespace mml {

// columns > 0: each line wrapped to that many columns (make demo); 0: as one
// line each. spread_note: false leaves the peak's spread out (the demo says
// it under its table, machine_notes). slide (make demo without WIDE=1): each
// item as one line of its essentials, cut to `columns`.
void print_machine_header(bool include_gpu, int columns = 0, bool spread_note = true, bool slide = false);
// A CPU model without trademarks, "CPU", "Processor" and its base clock:
// "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz" -> "Intel Xeon Gold 6338".
std::string short_cpu_model(const std::string& model);
// The slide's machine line: "machine : <model, shortened to fit>, N cores, SIMD",
// within `columns` (0: any width).
std::string machine_essentials(const std::string& cpu_model, int cores, const std::string& simd, int columns);
// The header's line under the peak when its runs spread (empty when they did
// not): who moved them - other programs, or the CPU's clock on an idle machine;
// and where this run's peak was not used: the stored quiet one instead, or none
// (no speed verdict).
std::string peak_spread_note(const PeakSpread& peak);
// One line per peer row in `jobs` (OpenBLAS, cuBLAS): the library version and
// the kernel it picked (Stage::describe_library), once per stage.
// slide: each as one line of its facts (peer_essentials), its warnings left to
// the note under the table (peer_warning_notes).
void print_peer_libraries(const std::vector<Job>& jobs, int columns = 0, bool slide = false);
// The slide's peer line: "peer    : <stages> = <library's facts>" within
// `columns` (0: any width), the library's configuration cut to its name and
// version first; its warnings ("WARNING: ...") left out.
std::string peer_essentials(const std::string& stages, const std::string& description, int columns);

// The results table of run, lab and the demo's full view: every column, one
// line a row (table_lines), then its legend and notes (table_notes), wrapped
// to `columns` (0: not wrapped); machine_warnings: with the WARNING that a
// threaded peak came out low (the demo says it among machine_notes instead).
std::vector<std::string> table_lines(const std::vector<Measurement>& rows);
std::vector<std::string> table_notes(const std::vector<Measurement>& rows, int columns, bool machine_warnings);
void print_table(const std::vector<Measurement>& rows);  // both, as run and lab print them

// make demo on a projector (issue #40): what its slide shows.
// A row's x ijk and how far its repetitions move it: the baseline's and the
// row's fastest and slowest runs (time_ratio), scaled as the speedup is
// where the baseline ran at a smaller shape; the baseline's own row is 1x.
// All 0 where the row has no speedup.
TimeRatio speedup_range(const std::vector<Measurement>& rows, const Measurement& row);
// Whether the repetitions spread a ratio wider than a quiet machine's noise
// in its two timings explains (high / low over 1.23; report.cpp says why).
bool moved_beyond_noise(const TimeRatio& r);
// "62x" (the median; whole numbers from 10, one decimal from 1, two below)
// where the ratio did not move beyond its noise, else the range the
// repetitions span, "28-50x": the slide shows it may move between runs.
std::string ratio_text(const TimeRatio& r);
// The slide's table: stage, what it is (its summary, shortened to the room
// left), [shape, where the rows differ], threads, GFLOP/s, x ijk, % peak and
// a check mark, in at most `columns` columns; then why a row was skipped or
// wrong, and the legend, a short line a column.
std::vector<std::string> slide_table_lines(const std::vector<Measurement>& rows, int columns);

// What the demo says about the machine it ran on: a warning's few words for
// the one note line under the slide's table, and its full text (--wide).
struct MachineNote {
    std::string brief;  // "other programs used 1.7 cores"
    std::string full;   // the sentence the full view prints
    bool timings = true;  // it moves the timings (the machine's); false: a peer's own warning
};
// The peak's spread (peak_spread_note), a low threaded peak, a busy machine
// (`busy`: targets.h's machine_busy()) and numbers above the peak
// (impossible_numbers), each as a note; none on a quiet machine.
std::vector<MachineNote> machine_notes(const std::vector<Measurement>& rows, const std::string& busy);
// The notes as one line of at most `columns` (as many briefs as fit, and
// where to read them in full); "" when there are none.
std::string note_line(const std::vector<MachineNote>& notes, int columns);
// The peers' own warnings (OpenBLAS's: a kernel narrower than the CPU, OpenMP
// threads spinning beside it) as notes: "OpenBLAS warned: ..."; the full
// header (--wide) says them on the peer's line instead.
std::vector<MachineNote> peer_warning_notes(const std::vector<Job>& jobs);
// Everything the demo prints after measuring: the slide's table, legend and
// note line when it fits `columns`; the full table and every note in full
// when `wide` (--wide) or when the full table fits the terminal anyway.
// columns 0 (--wide into a file): nothing wrapped.
std::vector<std::string> demo_lines(const std::vector<Measurement>& rows, bool wide, int columns,
                                    const std::vector<MachineNote>& notes);
std::string format_seconds(double s);

// A row's benchmark name in --json, in Google Benchmark's style and stable
// from run to run, so two runs can be compared by name (tools/compare.py, or
// Google Benchmark's compare.py): "lab5.blis/reference/2048x2048x2048/threads:2".
std::string benchmark_name(const Measurement& m);

// --json: Google Benchmark's own format ("context", "benchmarks": every
// repetition and aggregate) plus what the harness adds: "machine", "gpu",
// "date", "command", "threads", "summary" (one entry per table row, with the
// check) and, for `lab`, "target". Written to `path` + ".tmp" and renamed, so
// a reader never sees half a file.
void write_json(const std::string& path, const Options& options, const BenchOutput& out,
                const std::optional<TargetVerdict>& verdict, const std::string& lab_target);

}  // namespace mml
