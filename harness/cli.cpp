#include "harness/cli.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cpu/verify.h"
#include "harness/catalog.h"
#include "harness/format.h"
#include "harness/stages/lab9/named_shapes.h"

namespace mml {

std::string shared_options_text() {
    return R"(options of the commands above:
  --stage A,B          stages by name (see `mmlab list`), e.g. lab1.ijk,lab1.ikj
  --lab N              all stages of lab N (with `run`, and `demo`: its slide)
  --size LIST          shapes: 512 (square) or MxNxK, comma-separated: 256,17x31x63;
                       or the skinny shapes of Lei et al. 2024 by name: MTXA..MTXC, MTX1..MTX3
  --impl WHICH         student, reference or both (default: reference; `lab`: both)
  --solution           use the reference in the student's place (make labN SOLUTION=1)
  --threads T          threads for threaded stages (default 1; peak: up to all cores)
  --reps R             timed repetitions (default: 5, or 3 when one run takes > 0.25 s)
  --param k=v[,k=v]    stage parameters, e.g. --param kc=64 (mmlab list shows each stage's;
                       a name no stage of the run reads is refused)
  --json FILE          also write the results as JSON (Google Benchmark's runs + summary)
  --force              run slow teaching stages even past their size limit
  --quiet              no progress lines on stderr
  --l2 warm|flush      GPU timing: warm (default) leaves the inputs in the L2 cache between
                       runs; flush writes a buffer of twice the L2 before each timed run,
                       outside the timed region (cold, as nvbench times)
  --no-baseline        (run) leave out the lab1.ijk baseline row that `run` adds at each size
                       for the "x ijk" column (it takes 7 s at 1024^3 on one core)
  --wide               (demo) every column of the table and every note in full; by default the
                       demo fits 100 columns (a projected slide) unless the terminal is wider
  --help               this text

What is timed: CPU stages, the wall-clock time of one call (inputs already in
memory); GPU stages, the kernel alone between two CUDA events (inputs already
on the device; `breakdown` shows the transfers). Each (stage, shape) is first
run once on U(-1,1) inputs with C poisoned and verified against a float64
reference; then Google Benchmark times it: repetitions, median reported.
GFLOP/s counts 2 flops per multiply-add. Exit status: 0 all correct, 1 a
check failed, 2 bad input.
)";
}

long long parse_integer(const std::string& text, const std::string& what, long long lo, long long hi) {
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE)
        throw UsageError(what + " must be a whole number, got '" + text + "'");
    if (v < lo || v > hi)
        throw UsageError(what + " must be between " + std::to_string(lo) + " and " +
                         std::to_string(hi) + ", got " + text);
    return v;
}

std::vector<std::string> split_list(const std::string& text, const std::string& what) {
    if (text.empty()) throw UsageError(what + " needs at least one value");
    std::vector<std::string> out;
    for (std::size_t start = 0;;) {
        const std::size_t comma = text.find(',', start);
        out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (out.back().empty())
            throw UsageError(what + " '" + text + "' has an empty item: write the values with single commas, e.g. 256,512");
        if (comma == std::string::npos) return out;
        start = comma + 1;
    }
}

std::vector<long long> parse_integer_list(const std::string& text, const std::string& what, long long lo,
                                          long long hi) {
    std::vector<long long> out;
    for (const auto& v : split_list(text, what)) out.push_back(parse_integer(v, what, lo, hi));
    return out;
}

Impl parse_impl(const std::string& text) {
    if (text != "student" && text != "reference") throw UsageError("--impl must be student or reference");
    return text == "student" ? Impl::Student : Impl::Reference;
}

namespace {
// Edits (insert, delete, replace one character) that turn a into b.
std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// The stage a mistyped name probably meant: the same short name without its
// lab ("ijk" for lab1.ijk), or a name at most two edits away. Empty if none
// or if two stages fit equally well.
std::string closest_stage_name(const std::string& typed) {
    std::string best;
    std::size_t best_distance = 3;  // more than two edits: no suggestion
    bool tie = false;
    for (const Stage* s : Registry::instance().stages()) {
        const std::string& name = s->name;
        const std::string short_name = name.substr(name.find('.') + 1);
        const std::size_t d = typed == short_name ? 0 : edit_distance(typed, name);
        if (d < best_distance) {
            best = name;
            best_distance = d;
            tie = false;
        } else if (d == best_distance) {
            tie = true;
        }
    }
    return tie ? "" : best;
}
}  // namespace

const Stage& stage_or_error(std::string_view typed) {
    const std::string name(typed);
    const Stage* s = Registry::instance().find(name);
    if (s) return *s;
    const std::string guess = closest_stage_name(name);
    throw UsageError("unknown stage '" + name + "'" + (guess.empty() ? "" : " (did you mean " + guess + "?)") +
                     "; 'mmlab list' shows the names");
}

bool shape_by_name(const std::string& name, Shape& shape) {
    std::string upper = name;
    for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
    for (const auto& n : lab9::kNamedShapes)
        if (upper == n.name) {
            shape = n.shape;
            return true;
        }
    return false;
}

std::vector<Shape> parse_shapes(const std::string& text) {
    std::vector<Shape> out;
    constexpr long long kMaxDim = 1LL << 40;
    for (const std::string& item : split_list(text, "--size")) {
        Shape named;
        if (shape_by_name(item, named)) {
            out.push_back(named);
            continue;
        }
        std::vector<std::string> parts;
        std::stringstream dims(item);
        for (std::string d; std::getline(dims, d, 'x');) parts.push_back(d);
        // (getline drops a trailing empty part, so '1024x' would pass as 1024 without the back() test)
        if ((parts.size() != 1 && parts.size() != 3) || item.back() == 'x')
            throw UsageError("size '" + item + "' must be N (square), MxNxK or a name (MTXA..MTXC, MTX1..MTX3), e.g. 512 or 300x200x100");
        std::vector<long long> v;
        for (const auto& p : parts) v.push_back(parse_integer(p, "size '" + item + "'", 1, kMaxDim));
        out.push_back(v.size() == 1 ? Shape{v[0], v[0], v[0]} : Shape{v[0], v[1], v[2]});
    }
    return out;
}

double available_memory_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    double kb = 0;
    while (in >> key >> kb) {
        if (key == "MemAvailable:") return kb * 1024.0;
        in.ignore(1 << 10, '\n');
    }
    return 8e9;  // unknown: assume a small machine
}

void check_fits_in_memory(Shape s, Device device) {
    double bytes = 4.0 * (double(s.M) * double(s.K) + double(s.K) * double(s.N) + double(s.M) * double(s.N));
    // The full float64 check holds two M x N double arrays.
    if (double(s.M) * double(s.N) * double(s.K) <= kFullCheckMaxMacs) bytes += 16.0 * double(s.M) * double(s.N);
    const double avail = available_memory_bytes();
    if (bytes > 0.8 * avail)
        throw UsageError("shape " + shape_text(s) + " needs " + fixed(bytes / 1e9, 1) +
                         " GB of host memory but " + fixed(avail / 1e9, 1) +
                         " GB are available; choose a smaller --size");
    (void)device;  // the GPU side checks its own free memory when it allocates
}

StageParams parse_param_list(const std::string& text) {
    StageParams p;
    for (const auto& kv : split_list(text, "--param")) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) throw UsageError("--param takes name=value pairs, got '" + kv + "'");
        p.values[kv.substr(0, eq)] =
            parse_integer(kv.substr(eq + 1), "--param " + kv.substr(0, eq), -(1LL << 62), 1LL << 62);
    }
    return p;
}

Options parse_options(const std::string& command, const std::vector<std::string>& args) {
    Options o;
    o.command = command;
    std::size_t i = 0;
    auto value = [&](const std::string& flag) -> std::string {
        if (i >= args.size() || args[i].rfind("--", 0) == 0)
            throw UsageError(flag + " needs a value; see 'mmlab --help'");
        return args[i++];
    };
    while (i < args.size()) {
        const std::string a = args[i++];
        if (a == "--stage") o.stages = split_list(value(a), "--stage");
        else if (a == "--lab") o.lab = int(parse_integer(value(a), "--lab", 1, last_lab_number()));
        else if (a == "--size") o.shapes = parse_shapes(value(a));
        else if (a == "--impl") {
            const std::string v = value(a);
            if (v == "student") o.impl = ImplChoice::Student;
            else if (v == "reference") o.impl = ImplChoice::Reference;
            else if (v == "both") o.impl = ImplChoice::Both;
            else throw UsageError("--impl must be student, reference or both, got '" + v + "'");
            o.impl_given = true;
        } else if (a == "--solution") o.solution = true;
        else if (a == "--threads") {
            o.threads = int(parse_integer(value(a), "--threads", 1, 1024));
            o.threads_given = true;
        } else if (a == "--reps") o.reps = int(parse_integer(value(a), "--reps", 1, 1000));
        else if (a == "--param") {
            for (const auto& [key, v] : parse_param_list(value(a)).values) o.params.values[key] = v;
        } else if (a == "--json") o.json_path = value(a);
        else if (a == "--force") o.force = true;
        else if (a == "--quiet") o.quiet = true;
        else if (a == "--no-baseline") o.no_baseline = true;
        else if (a == "--wide") {
            if (command != "demo")  // run and lab print every column already
                throw UsageError("--wide is for 'mmlab demo'; '" + command + "' prints the full table already");
            o.wide = true;
        }
        else if (a == "--l2") {
            const std::string v = value(a);
            if (v != "warm" && v != "flush")
                throw UsageError("--l2 must be warm or flush, got '" + v + "' (flush: cold L2 before each timed GPU run)");
            o.flush_l2 = v == "flush";
        }
        else if (a.rfind("-", 0) == 0) throw UsageError("unknown option '" + a + "'; try 'mmlab --help'");
        else o.rest.push_back(a);
    }
    if (o.command == "lab") {
        if (o.rest.size() != 1) throw UsageError("'mmlab lab' needs one lab number, e.g. 'mmlab lab 1'");
        o.lab = int(parse_integer(o.rest[0], "lab number", 1, last_lab_number()));
        o.rest.clear();
    }
    if (!o.rest.empty()) throw UsageError("unexpected argument '" + o.rest[0] + "'; try 'mmlab --help'");
    o.params.threads = o.threads;
    return o;
}

}  // namespace mml
