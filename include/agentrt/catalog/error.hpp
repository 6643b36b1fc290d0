// agentrt/catalog/error.hpp — the one result type of the library.
//
// Expected failures (arguments that do not validate, an operation refused because of state) are
// values the caller must look at; broken invariants and programming errors throw.
//
//     agentrt::result<send_args> args = agentrt::decode<send_args>(text);
//     if (!args) for (auto const& v : args.error().violations) std::cerr << v << '\n';
#pragma once

#include <boost/system/result.hpp>

#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace agentrt {

enum class errc {
    invalid_json = 1,  // the JSON boundary refused the text
    invalid_arguments, // the text is JSON but breaks the schema
    unknown_tool,      // a decision names a tool the catalogue does not have
    invalid_schema,    // a schema known only at run time uses what agentrt cannot check
    refused,           // an operation refused because of state
    tool_failed,       // a tool reported an error of its own
    not_found,         // a run, step, approval or store that does not exist
    conflict,          // a compare-and-set lost a race: the state changed under the caller
    lease_held,        // a run is held by a live driver
    too_large,         // an input beyond a documented bound
    store_failed,      // the store cannot be opened or used as asked (permissions, version, I/O)
    storage_full,      // the store's storage is full (no space left, LMDB's map at its maximum): nothing written
    store_damaged,     // the store's files are damaged (cut short, a record failing its checksum): restore a backup
    server_failed,     // a tool server (MCP) could not be started, broke its protocol, or went away
    timed_out,         // a request to a tool server got no answer before its deadline, or was cancelled
    pin_mismatch,      // a tool server's definitions differ from the operator's pins: review and pin again
};

char const* to_string(errc code) noexcept;

// One broken rule: where (a JSON Pointer, "" is the whole document), which keyword, and what was found.
struct violation {
    std::string pointer;
    std::string keyword;
    std::string detail;

    // "/cc/3: maxLength 64, got 70"
    std::string to_string() const;
    friend bool operator==(violation const&, violation const&) = default;
};

std::ostream& operator<<(std::ostream& out, violation const& v);

struct error {
    errc code{};
    std::string message;
    std::vector<violation> violations; // every rule broken, when the error is about a document

    // The message followed by one line per violation.
    std::string to_string() const;
};

std::ostream& operator<<(std::ostream& out, error const& e);

// Thrown by result::value() on an error, and for broken invariants.
class exception : public std::runtime_error {
public:
    explicit exception(agentrt::error e);
    agentrt::error const& error() const noexcept { return error_; }

private:
    agentrt::error error_;
};

template <class T>
using result = boost::system::result<T, error>;

[[noreturn]] void throw_exception_from_error(error const& e, boost::source_location const& where);

} // namespace agentrt
