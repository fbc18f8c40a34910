#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "harness/catalog.h"
#include "harness/cli.h"
#include "harness/stage.h"

namespace mml {

const char* impl_name(Impl impl) { return impl == Impl::Student ? "student" : "reference"; }

long long StageParams::get(const std::string& name, long long fallback) const {
    auto it = values.find(name);
    return it == values.end() ? fallback : it->second;
}

MatmulFn from_plain(PlainMatmul fn) {
    return [fn](const float* A, const float* B, float* C, Shape s, const StageParams&) {
        fn(A, B, C, s.M, s.N, s.K);
    };
}

MatmulFn from_threaded(ThreadedMatmul fn) {
    return [fn](const float* A, const float* B, float* C, Shape s, const StageParams& p) {
        fn(A, B, C, s.M, s.N, s.K, p.threads);
    };
}

Stage make_stage(int lab, const std::string& short_name, const std::string& summary, MatmulFn student,
                 MatmulFn reference) {
    const CatalogEntry* entry = catalog_entry(lab);
    if (!entry) throw std::logic_error("lab " + std::to_string(lab) + " is not in labs/catalog.txt");
    Stage s;
    s.name = "lab" + std::to_string(lab) + "." + short_name;
    s.lab = lab;
    s.device = entry->kind;
    s.summary = summary;
    s.student = std::move(student);
    s.reference = std::move(reference);
    return s;
}

void check_param_names(const std::vector<const Stage*>& stages, const StageParams& p) {
    for (const auto& entry : p.values) {
        const std::string& name = entry.first;
        const auto reads_it = [&](const Stage* s) {
            return std::find(s->param_names.begin(), s->param_names.end(), name) != s->param_names.end();
        };
        if (std::any_of(stages.begin(), stages.end(), reads_it)) continue;
        std::string readers;  // "lab2.blocked reads block,kc,nc; lab3.strassen reads cutoff"
        for (const Stage* s : stages) {
            if (s->param_names.empty()) continue;
            std::string names;
            for (const auto& n : s->param_names) names += (names.empty() ? "" : ",") + n;
            readers += (readers.empty() ? "" : "; ") + s->name + " reads " + names;
        }
        throw UsageError("--param " + name + ": no stage of this run reads it (" +
                         (readers.empty() ? "they read no --param at all" : readers) + ")");
    }
}

Registry& Registry::instance() {
    static Registry registry;
    return registry;
}

void Registry::add(Stage stage) {
    for (const auto& s : stages_)  // (not find(): references are bound only after static initialisation)
        if (s.name == stage.name) throw std::logic_error("stage registered twice: " + stage.name);
    // A stage may arrive with neither version: a reference-only row (lab 7's
    // naive and volkov_stream_a) gets its one version from a references.cpp, which a
    // build without the answers leaves out; its rows then say "not in this
    // build". bind_references() refuses such a stage in a build with the answers.
    stage.order = int(stages_.size());
    stages_.push_back(std::move(stage));
}

void Registry::add_lab(Lab lab) {
    if (find_lab(lab.number)) throw std::logic_error("lab registered twice");
    if (!catalog_entry(lab.number)) throw std::logic_error("lab " + std::to_string(lab.number) + " is not in labs/catalog.txt");
    labs_.push_back(std::move(lab));
}

void Registry::add_reference(const std::string& stage_name, MatmulFn fn) {
    pending_references_.emplace_back(stage_name, std::move(fn));
    any_reference_ = true;
}

bool Registry::has_references() const { return any_reference_; }

void Registry::bind_references() const {
    for (auto& [name, fn] : pending_references_) {
        Stage* stage = nullptr;
        for (auto& s : stages_)
            if (s.name == name) stage = &s;
        if (!stage) {  // a typo in a references.cpp: a build mistake, said at once
            std::fprintf(stderr, "mmlab: a reference is bound to '%s', which no lab registers\n", name.c_str());
            std::exit(2);
        }
        if (stage->reference) {
            std::fprintf(stderr, "mmlab: stage %s has two references\n", name.c_str());
            std::exit(2);
        }
        stage->reference = std::move(fn);
    }
    if (!pending_references_.empty())  // this build has the answers: every stage must now have a version
        for (const auto& s : stages_)
            if (!s.student && !s.reference) {  // a reference-only row its references.cpp forgot
                std::fprintf(stderr, "mmlab: stage %s has no version: no student version, and no reference "
                                     "is bound to it\n", s.name.c_str());
                std::exit(2);
            }
    pending_references_.clear();
    if (rewrite_)
        for (auto& s : stages_)
            if (std::find(rewritten_.begin(), rewritten_.end(), s.name) == rewritten_.end()) {
                rewritten_.push_back(s.name);
                rewrite_(s);
            }
}

void Registry::set_version_rewriter(std::function<void(Stage&)> rewrite) { rewrite_ = std::move(rewrite); }

const Stage* Registry::find(const std::string& name) const {
    bind_references();
    for (const auto& s : stages_)
        if (s.name == name) return &s;
    return nullptr;
}

const Lab* Registry::find_lab(int number) const {
    for (const auto& l : labs_)
        if (l.number == number) return &l;
    return nullptr;
}

std::vector<const Stage*> Registry::stages() const {
    bind_references();
    std::vector<const Stage*> out;
    for (const auto& s : stages_) out.push_back(&s);
    std::stable_sort(out.begin(), out.end(), [](const Stage* a, const Stage* b) {
        return a->lab != b->lab ? a->lab < b->lab : a->order < b->order;
    });
    return out;
}

std::vector<const Stage*> Registry::stages_of_lab(int lab) const {
    std::vector<const Stage*> out;
    for (const Stage* s : stages())
        if (s->lab == lab) out.push_back(s);
    return out;
}

std::vector<const Lab*> Registry::labs() const {
    std::vector<const Lab*> out;
    for (const auto& l : labs_) out.push_back(&l);
    std::sort(out.begin(), out.end(), [](const Lab* a, const Lab* b) { return a->number < b->number; });
    return out;
}

}  // namespace mml
