// The suites' main: doctest's, except that a run whose filters match no test case fails.
//
// ctest runs each case by name (--test-case=NAME), and doctest passes a run that matched nothing.
// A case whose name CMake cannot carry (one holding ';', which it splits into two entries) was
// then reported passed while it never ran.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

namespace {

unsigned cases_matched = 0;
bool run_ended = false;

struct matched_cases final : doctest::IReporter {
    explicit matched_cases(doctest::ContextOptions const&) {}

    void test_run_end(doctest::TestRunStats const& stats) override {
        run_ended = true;
        cases_matched = stats.numTestCasesPassingFilters;
    }

    void report_query(doctest::QueryData const&) override {}
    void test_run_start() override {}
    void test_case_start(doctest::TestCaseData const&) override {}
    void test_case_reenter(doctest::TestCaseData const&) override {}
    void test_case_end(doctest::CurrentTestCaseStats const&) override {}
    void test_case_exception(doctest::TestCaseException const&) override {}
    void subcase_start(doctest::SubcaseSignature const&) override {}
    void subcase_end() override {}
    void log_assert(doctest::AssertData const&) override {}
    void log_message(doctest::MessageData const&) override {}
    void test_case_skipped(doctest::TestCaseData const&) override {}
};

REGISTER_LISTENER("matched_cases", 1, matched_cases);

} // namespace

int main(int argc, char** argv) {
    doctest::Context context(argc, argv);
    int const failures = context.run();
    if (context.shouldExit() || failures != 0)
        return failures;
    if (run_ended && cases_matched == 0) {
        std::fputs("no test case matches the filters: this run checked nothing\n", stderr);
        return 1;
    }
    return 0;
}
