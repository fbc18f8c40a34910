// `make check LAB=N` (GitHub Classroom and other CI graders): a doctest
// reporter that prints one line per test case and nothing else -
//   PASS  lab1.ijk: the baseline triple loop
//   FAIL  lab1.kji: ... the first failed check's message
// - and a last line "check: N passed, M failed". Selected with
// --reporters=check; the usual console reporter is unchanged.
#include <doctest/doctest.h>

#include <ostream>
#include <sstream>
#include <string>

namespace {

// One line: newlines and runs of spaces folded, long text cut.
std::string one_line(const std::string& text, std::size_t limit = 300) {
    std::string out;
    bool space = false;
    for (char c : text) {
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
            space = !out.empty();
            continue;
        }
        if (space) out += ' ';
        space = false;
        out += c;
    }
    return out.size() > limit ? out.substr(0, limit) + " [...]" : out;
}

struct CheckReporter : public doctest::IReporter {
    explicit CheckReporter(const doctest::ContextOptions& options) : out(*options.cout) {}

    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats& stats) override {
        out << "check: " << passed << " passed, " << failed << " failed";
        if (passed + failed == 0) out << " (no test case ran: " << stats.numTestCases << " selected)";
        out << "\n";
        out.flush();
    }
    void test_case_start(const doctest::TestCaseData& data) override {
        current = &data;
        first_failure.clear();
    }
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats& stats) override {
        const bool ok = stats.testCaseSuccess && stats.failure_flags == 0;
        (ok ? passed : failed)++;
        out << (ok ? "PASS  " : "FAIL  ") << current->m_name;
        if (!ok) out << ": " << (first_failure.empty() ? std::string("failed") : first_failure);
        out << "\n";
        out.flush();
    }
    void test_case_exception(const doctest::TestCaseException& e) override {
        if (first_failure.empty())
            first_failure = std::string(e.is_crash ? "crashed: " : "threw: ") + one_line(e.error_string.c_str());
    }
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData& a) override {
        if (!a.m_failed || !first_failure.empty()) return;
        std::ostringstream why;  // the check's own message (CHECK_MESSAGE, INFO) says what is wrong
        for (int i = 0; i < get_num_active_contexts(); ++i) {
            get_active_contexts()[i]->stringify(&why);
            why << " ";
        }
        std::string text = one_line(why.str());
        if (text.empty()) text = std::string(a.m_expr) + " is " + a.m_decomp.c_str();
        if (a.m_threw) text += std::string(" (threw: ") + a.m_exception.c_str() + ")";
        first_failure = one_line(text);
    }
    void log_message(const doctest::MessageData& m) override {
        if ((m.m_severity & doctest::assertType::is_check || m.m_severity & doctest::assertType::is_require) &&
            first_failure.empty())
            first_failure = one_line(m.m_string.c_str());
    }
    void test_case_skipped(const doctest::TestCaseData&) override {}

    std::ostream& out;
    const doctest::TestCaseData* current = nullptr;
    std::string first_failure;
    int passed = 0, failed = 0;
};

}  // namespace

REGISTER_REPORTER("check", 1, CheckReporter);
