// agentrt/testkit/doctest.hpp — reports the test kit's failures to doctest.
//
// Include it in one translation unit of a doctest suite (or in several: the reporter is one inline
// object). A helper's failure then fails the running test case at the consumer's file and line.
#pragma once

#include <agentrt/testkit/report.hpp>

#include <doctest/doctest.h>

#include <string>

namespace agentrt::testkit {

class doctest_reporter final : public reporter {
public:
    doctest_reporter() noexcept { set_reporter(this); }
    void fail(source_location const& where, std::string_view message) override {
        std::string text(message);
        DOCTEST_ADD_FAIL_CHECK_AT(where.file_name(), int(where.line()), text);
    }
};

inline doctest_reporter const installed_doctest_reporter;

} // namespace agentrt::testkit
