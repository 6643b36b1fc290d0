// agentrt/mcp/tools.hpp — an MCP server's tools in a tool table, pinned and classified by the operator.
//
//     auto file = agentrt::mcp::operator_file::load("agentrt-mcp.json");  // servers and classes
//     auto pins = agentrt::mcp::pins::load(file->pins_path());            // agentrt-mcp.pins.json
//     auto files = agentrt::mcp::client::start(file->find("files")->server);
//     auto tools = agentrt::mcp::pinned_tools(*files, *pins, file->find("files")->classes);
//     agentrt::tool_table table = catalogue.table().with(std::move(tools->entries));
//
// Nothing the server says about itself is trusted. A pin holds the SHA-256 of a tool's name,
// description and input schema (canonical JSON): a tool whose definition changed, appeared or
// disappeared since it was pinned is refused with errc::pin_mismatch naming every difference, until
// the operator pins again (`agentrt mcp pin SERVER`). A tool's side-effect class and timeout come
// from the operator's file; its annotations (readOnlyHint, destructiveHint) are shown, never used,
// and a tool the file does not classify is side_effect::unknown, which the class table denies.
// The model is shown the pinned definitions, and the gate records the tools like any other.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/catalog/tool.hpp>
#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/mcp/client.hpp>

#include <boost/json/object.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::mcp {

struct tool_class {
    side_effect effect = side_effect::unknown;
    std::chrono::milliseconds timeout{30'000};
};

struct server_entry {
    server_address server;
    std::string const& name() const noexcept { return name_of(server); }
    std::map<std::string, tool_class, std::less<>> classes; // by tool name
};

// The operator's file:
//
//     {"servers": {"files": {"command": ["mcp-files", "/srv/share"],
//                            "environment": {"LOG": "quiet"},
//                            "tools": {"read": {"side_effect": "read_only", "timeout_ms": 5000}}},
//                  "tickets": {"url": "https://tickets.example/mcp", "bearer_token_env": "TICKETS_TOKEN",
//                              "tools": {"open": {"side_effect": "remote_mutation"}}}}}
//
// Loading refuses (errc::invalid_arguments) a file that breaks this shape, naming the file and
// the JSON Pointer of what is wrong.
struct operator_file {
    std::filesystem::path path;
    std::vector<server_entry> servers;

    static result<operator_file> load(std::filesystem::path const& path);
    server_entry const* find(std::string_view server) const noexcept;
    // Where this file's pins live: beside it, "NAME.pins.json" for "NAME.json".
    std::filesystem::path pins_path() const;
};

// SHA-256 of the canonical JSON of tool.definition().
std::string definition_hash(listed_tool const& tool);

struct pin_difference {
    enum class kind { appeared, disappeared, changed };
    kind what = kind::changed;
    std::string tool;
    std::vector<std::string> fields; // of a changed tool: "description", "inputSchema"

    // "tool "read" changed its inputSchema since it was pinned"
    std::string to_string() const;
    friend bool operator==(pin_difference const&, pin_difference const&) = default;
};

class pins {
public:
    struct pin {
        std::string sha256;
        boost::json::object definition; // as listed when pinned: what the model is shown
    };

    // A missing file holds no pins; a damaged one is an error naming the file.
    static result<pins> load(std::filesystem::path const& path);
    // Written aside, synced and renamed over `path`: a crash leaves the old pins or the new.
    result<void> save(std::filesystem::path const& path) const;

    // What differs between the server's tools today and their pins, by tool name.
    std::vector<pin_difference> compare(std::string_view server, std::span<listed_tool const> listed) const;
    // Pins `listed` as the server's tools, forgetting tools it no longer lists; returns what changed.
    std::vector<pin_difference> pin_all(std::string_view server, std::span<listed_tool const> listed);

    pin const* find(std::string_view server, std::string_view tool) const noexcept;

private:
    std::map<std::string, std::map<std::string, pin, std::less<>>, std::less<>> servers_;
};

struct server_tools {
    std::vector<tool_entry> entries;
    // Tools nobody classified that agentrt cannot take (a schema outside the checked subset, a name
    // providers refuse), each with why: the model is not shown them. A classified one is an error.
    std::vector<std::string> left_out;
};

// The server's listed tools as tool entries, when every one matches its pin (errc::pin_mismatch
// naming each difference otherwise). Each entry's schema is the pinned one, its class and timeout
// the operator's, and its call goes to `server` (which the entries keep alive) with the step's
// idempotency key.
result<server_tools> pinned_tools(std::shared_ptr<client> const& server, std::span<listed_tool const> listed,
                                  pins const& pinned, std::map<std::string, tool_class, std::less<>> const& classes);
// Lists the server's tools first.
result<server_tools> pinned_tools(std::shared_ptr<client> const& server, pins const& pinned,
                                  std::map<std::string, tool_class, std::less<>> const& classes);

} // namespace agentrt::mcp
