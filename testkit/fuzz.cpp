#include <agentrt/testkit/fuzz.hpp>

#include <agentrt/testkit/report.hpp>

#include <cstdio>

namespace agentrt::testkit {
namespace {

bool reported(fuzz::check_report const& r, char const* check, source_location const& where) {
    if (!r) {
        current_reporter().fail(where, std::string(check) + ": " + r.message);
        return false;
    }
    std::printf("%s\n", r.message.c_str()); // the summary line names its check
    return true;
}

} // namespace

bool fuzz_check(tool_table const& table, fuzz::fuzz_check_options const& options, source_location where) {
    return reported(fuzz::fuzz_check(table, options), "fuzz_check", where);
}

bool never(evaluator const& policy, tool_table const& table, side_effect effect, outcome forbidden,
           fuzz::never_options const& options, source_location where) {
    return reported(fuzz::never(policy, table, effect, forbidden, options), "never", where);
}

} // namespace agentrt::testkit
