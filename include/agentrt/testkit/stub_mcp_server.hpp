// agentrt/testkit/stub_mcp_server.hpp — a scripted MCP server for tests: a real process on real pipes.
//
//     agentrt::testkit::stub_script script;
//     script.tools.push_back({.name = "lookup", .description = "Look an order up.", .input_schema = schema});
//     script.tools.push_back({.name = "hang", .description = "Never answers.", .input_schema = schema,
//                             .on_call = agentrt::testkit::stub_behaviour::stall});
//     script.journal = dir / "journal";       // every message the server received, one per line
//     auto server = agentrt::mcp::client::start(agentrt::testkit::stub_server("shop", script));
//
// The stub is the agentrt-mcp-stub program (or any program whose main calls run_stub_mcp_server)
// started with its script as JSON. It answers initialize with the script's protocol version,
// tools/list in pages of page_size, and each tools/call as the tool's behaviour says: faults are
// scripted by name, so a test reads as the fault it is about.
#pragma once

#include <agentrt/mcp/client.hpp>

#include <boost/json/object.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace agentrt::testkit {

enum class stub_behaviour {
    echo,      // content: the arguments as text; structuredContent: the arguments
    fail,      // isError: true, with a text naming the tool
    stall,     // never answers (a notifications/cancelled for it lands in the journal)
    crash,     // the server exits with status 3 in the middle of the call, answering nothing
    malformed, // the server answers with a line that is not JSON-RPC
    oversized, // the answer's text is oversized_bytes long
};

struct stub_tool {
    std::string name;
    std::string description;
    boost::json::object input_schema{{"type", "object"}};
    boost::json::object annotations;
    stub_behaviour on_call = stub_behaviour::echo;
};

struct stub_script {
    std::vector<stub_tool> tools;
    std::size_t page_size = 0;                   // tools per tools/list page; 0 for one page
    std::string protocol_version = "2025-06-18"; // what initialize answers
    bool change_after_first_list = false;        // the first tool's description changes once listed, with list_changed
    std::size_t oversized_bytes = std::size_t{1} << 20;
    std::filesystem::path journal; // empty for none

    boost::json::object to_json() const;
    static stub_script from_json(boost::json::object const& script); // throws std::invalid_argument
};

// How to start the stub with `script`: the agentrt-mcp-stub program (the AGENTRT_MCP_STUB
// environment variable names another) and the script as its one argument.
mcp::stdio_server stub_server(std::string name, stub_script const& script);

// The stub's main: serves stdin and stdout with the script given as argv[1] until stdin closes.
int run_stub_mcp_server(int argc, char** argv);

} // namespace agentrt::testkit
