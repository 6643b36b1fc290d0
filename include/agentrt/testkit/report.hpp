// agentrt/testkit/report.hpp — how the test kit's helpers report failures.
//
// Every helper reports through the current reporter, with the file and line of the consumer's
// call, and also returns whether it passed. Including <agentrt/testkit/doctest.hpp> in a doctest
// suite installs a reporter that fails the running test case; another framework can install its own.
#pragma once

#include <string_view>

namespace agentrt::testkit {

// Where a helper was called from: the consumer's file and line, as a default argument captures
// them. (Not source_location: clang 14 with libstdc++ 12 has none; both compilers have these
// builtins.)
class source_location {
public:
    static constexpr source_location current(char const* file = __builtin_FILE(),
                                             unsigned line = __builtin_LINE()) noexcept {
        return source_location(file, line);
    }
    constexpr char const* file_name() const noexcept { return file_; }
    constexpr unsigned line() const noexcept { return line_; }

private:
    constexpr source_location(char const* file, unsigned line) noexcept : file_(file), line_(line) {}
    char const* file_;
    unsigned line_;
};

class reporter {
public:
    virtual ~reporter() = default;
    virtual void fail(source_location const& where, std::string_view message) = 0;
    // A line of progress for the test log (explore's progress and summary); by default stdout.
    virtual void log(std::string_view line);
};

// The reporter helpers use; by default one that prints to stderr (so a failure is never silent).
reporter& current_reporter() noexcept;

// Installs `r` (null restores the default) and returns the previous one.
reporter* set_reporter(reporter* r) noexcept;

// Installs a reporter for the lifetime of the guard.
class scoped_reporter {
public:
    explicit scoped_reporter(reporter& r) noexcept : previous_(set_reporter(&r)) {}
    ~scoped_reporter() { set_reporter(previous_); }
    scoped_reporter(scoped_reporter const&) = delete;
    scoped_reporter& operator=(scoped_reporter const&) = delete;

private:
    reporter* previous_;
};

} // namespace agentrt::testkit
