// The agentrt command's shared pieces: its command line, the failures that set its exit status,
// and the output helpers every command uses. Internal to the command.
#pragma once

#include "display.hpp"

#include <agentrt/catalog/error.hpp>
#include <agentrt/runtime/records.hpp>
#include <agentrt/runtime/store.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::cli {

using display::display_width;
using display::sanitize;

inline constexpr int exit_ok = 0;
inline constexpr int exit_failed = 1;  // a failed operation or check
inline constexpr int exit_usage = 2;   // the command line was wrong, or a decision was not confirmed
inline constexpr int exit_damaged = 3; // reading the store stopped on a damaged page (main.cpp)

// Thrown for exit status 2 and 1; the message is printed after "agentrt: ".
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct failure : std::runtime_error {
    explicit failure(std::string const& message, int status = exit_failed)
        : std::runtime_error(message), status(status) {}
    // Of an error: a damaged store has its own status.
    failure(error const& e, std::string const& message)
        : failure(message, e.code == errc::store_damaged ? exit_damaged : exit_failed) {}
    int status;
};

// What the command line held, once parsed (parse.cpp): the command's arguments and options.
struct command_line {
    std::string command;
    std::vector<std::string> positional;
    std::map<std::string, std::string, std::less<>> values; // options with a value, by name ("--limit")
    std::set<std::string, std::less<>> flags;               // options without one ("--yes")

    bool has(std::string_view flag) const { return flags.contains(flag) || values.contains(flag); }
    std::optional<std::string> value(std::string_view option) const;
    std::uint64_t number(std::string_view option, std::uint64_t fallback) const; // usage_error when not one
};

struct context {
    std::optional<std::string> store_path; // --store, else AGENTRT_STORE
    bool json = false;
    std::ostream& out;
    std::ostream& err;

    // Opens the store for an operator: never creates or migrates it. failure when it cannot.
    agentrt::store open_store() const;
};

// One of a command's options, as its --help lists it.
struct option_spec {
    std::string_view name;        // "--hash"
    std::string_view value;       // what it takes, as help shows it ("H"); empty for a flag
    std::string_view description; // one line
};

struct command {
    std::string_view name;
    std::string_view synopsis; // "approve RUN [--yes | --hash H] ..."
    std::string_view summary;  // one line for the list of commands
    std::string_view help;     // the prose of `agentrt COMMAND --help`, before its options
    std::vector<option_spec> options;
    std::size_t min_args = 0, max_args = 0;
    int (*run)(context&, command_line const&) = nullptr;
    // Called before the command runs: what undoes the half-done work of a run that a damaged store
    // stopped (a partial backup). Null when there is nothing to undo.
    std::function<void()> (*before_damage)(command_line const&) = nullptr;
};

// Each file's commands.
std::vector<command> read_commands();
std::vector<command> decide_commands();
std::vector<command> store_commands();
std::vector<command> mcp_commands();

// Every command, in the order `agentrt --help` lists them.
std::vector<command> all_commands();

// A command line that does not parse: a usage error, in the command it names, if it names one.
struct parse_refusal : usage_error {
    parse_refusal(std::string const& message, command const* in) : usage_error(message), in(in) {}
    command const* in;
};

// The command line parsed against `commands` (CLI11): the command it names and what it was given, or
// the help text asked for with --help (of the tool, or of the command named). parse_refusal otherwise.
struct parsed_line {
    command const* found = nullptr;
    command_line line;
    std::optional<std::string> help;
};
parsed_line parse_command_line(std::vector<std::string> const& args, std::vector<command> const& commands);

// The names among `candidates` nearest to a mistyped `typed` (by edit distance), for "did you mean";
// empty when none is near enough to be a likely typo.
std::vector<std::string> nearest_names(std::string_view typed, std::vector<std::string> const& candidates);

// 2026-11-29T09:51:54.123Z
std::string utc_time(std::int64_t ms);
// "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SSZ" in UTC, as milliseconds; usage_error naming `what` otherwise.
std::int64_t parse_utc_date(std::string_view text, std::string_view what);
std::string json_line(boost::json::object const& o);
// A JSON value for a person to read: keys in stored order, numbers by value as canonical JSON spells
// them (120.0 is 120, 0.1 is 0.1; never Boost's 1.2E2). Not sanitised.
std::string display_json(boost::json::value const& v);

// Prints rows as columns separated by two spaces; every cell must already be sanitised.
void print_table(std::ostream& out, std::vector<std::vector<std::string>> const& rows);

// The approvals an operator can decide: of a run waiting for approval, the latest of each step, still pending.
std::vector<approval_record> pending_of(run_record const& run, std::vector<approval_record> const& approvals);
// Everything an operator decides on: tool, every argument with its size, kind, reason, capability,
// presentation and the hash. `full` shows long values whole (sanitised all the same).
void print_approval(std::ostream& out, approval_record const& a, bool full);

} // namespace agentrt::cli
