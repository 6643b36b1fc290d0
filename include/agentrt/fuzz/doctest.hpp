// agentrt/fuzz/doctest.hpp — RapidCheck properties inside a doctest suite.
//
//     TEST_CASE("a send request never has more than three cc") {
//         AGENTRT_CHECK_PROPERTY("cc bound", [](send_args const& a) { RC_ASSERT(a.cc.size() <= 3u); });
//     }
//
// A failing property fails the doctest check at the caller's line with RapidCheck's message: the
// shrunk counterexample and the RC_PARAMS="reproduce=..." string that replays it (each property's
// id is "<test case>/<description>", so give a test case's properties distinct descriptions).
// Upstream's rapidcheck/doctest.h does not compile against doctest 2.4 (a namespace named
// `doctest` inside `rc` hides ::doctest in doctest's macros); this adapter replaces it.
#pragma once

#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

namespace rc::detail {
// Defined in librapidcheck (it reports reproduce strings at exit) but declared in no header.
TestListener& globalTestListener();
} // namespace rc::detail

namespace agentrt::fuzz {

// Overrides of RapidCheck's configuration (RC_PARAMS) for one property.
struct property_settings {
    std::optional<std::uint64_t> seed;
    int cases = 0;    // 0: RapidCheck's max_success
    int max_size = 0; // 0: RapidCheck's max_size
};

namespace doctest_detail {

inline std::string current_test_name() {
    auto const* options = ::doctest::getContextOptions();
    if (!options || !options->currentTest)
        return "agentrt";
    return options->currentTest->m_name;
}

} // namespace doctest_detail

// Checks a RapidCheck testable; on failure, adds a failed doctest check at file:line. Returns
// whether the property held.
template <class Testable>
bool check_property(char const* file, int line, std::string const& description, Testable&& testable,
                    property_settings const& settings = {}) {
    rc::detail::TestMetadata metadata;
    metadata.id = doctest_detail::current_test_name() + "/" + description;
    metadata.description = description;
    auto const& config = rc::detail::configuration();
    rc::detail::TestParams params = config.testParams;
    if (settings.seed)
        params.seed = *settings.seed;
    if (settings.cases > 0)
        params.maxSuccess = settings.cases;
    if (settings.max_size > 0)
        params.maxSize = settings.max_size;
    auto result = rc::detail::checkProperty(rc::detail::toProperty(std::forward<Testable>(testable)), metadata, params,
                                            rc::detail::globalTestListener(), config.reproduce);
    if (result.template is<rc::detail::SuccessResult>())
        return true;
    std::ostringstream message;
    rc::detail::printResultMessage(result, message);
    DOCTEST_ADD_FAIL_CHECK_AT(file, line, message.str());
    return false;
}

} // namespace agentrt::fuzz

// AGENTRT_CHECK_PROPERTY(description, testable [, property_settings])
#define AGENTRT_CHECK_PROPERTY(description, ...)                                                                       \
    ::agentrt::fuzz::check_property(__FILE__, __LINE__, description, __VA_ARGS__)
