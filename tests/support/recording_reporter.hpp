// A reporter that keeps what the test kit reports, so the kit's own tests can assert on it.
#pragma once

#include <agentrt/testkit/report.hpp>

#include <string>
#include <vector>

namespace test_support {

struct recording_reporter final : agentrt::testkit::reporter {
    struct report {
        std::string file;
        unsigned line = 0;
        std::string message;
    };
    std::vector<report> reports;
    std::vector<std::string> lines; // what went to the test log

    void fail(agentrt::testkit::source_location const& where, std::string_view message) override {
        reports.push_back({where.file_name(), unsigned(where.line()), std::string(message)});
    }
    void log(std::string_view line) override { lines.emplace_back(line); }
};

} // namespace test_support
