// What the MCP tests share: a scratch directory, a catalogue and a policy for MCP tools beside typed
// ones, the stub started, and its journal read back.
#pragma once

#include <agentrt/mcp/client.hpp>
#include <agentrt/testkit/stub_mcp_server.hpp>

#include <boost/json/parse.hpp>

#include <agentrt/catalog/catalog.hpp>
#include <agentrt/catalog/policy.hpp>

#include "support/doctest_result.hpp"
#include "support/test_tools.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace mcp_support {

namespace fs = std::filesystem;

struct scratch {
    fs::path path;
    scratch() {
        std::string pattern = (fs::temp_directory_path() / "agentrt-mcp-XXXXXX").string();
        path = ::mkdtemp(pattern.data());
    }
    ~scratch() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    scratch(scratch const&) = delete;
    scratch& operator=(scratch const&) = delete;
};

inline boost::json::object order_schema() {
    return boost::json::parse(R"({"type":"object","properties":{"order_id":{"type":"string","pattern":"^ord-[0-9]+$"}},
                                  "required":["order_id"],"additionalProperties":false})")
        .as_object();
}

// Typed tools beside MCP ones: the typed lookup allowed, everything else decided by side-effect class.
struct lookup_then_classes {
    static constexpr std::string_view identity = "lookup-then-classes/1";
    agentrt::verdict operator()(test_tools::lookup_args const&, agentrt::run_view const&) const {
        return agentrt::allow();
    }
    agentrt::verdict operator()(agentrt::untyped_request const& r, agentrt::run_view const& v) const {
        return agentrt::class_table{}(r, v);
    }
};

using shop_catalogue = agentrt::catalog<test_tools::lookup_order, test_tools::send_message, test_tools::wipe_account>;
inline shop_catalogue const catalogue;

inline std::shared_ptr<agentrt::mcp::client> started(agentrt::testkit::stub_script const& script,
                                                     std::string name = "shop") {
    auto server = agentrt::mcp::client::start(agentrt::testkit::stub_server(std::move(name), script));
    REQUIRE_MESSAGE(server, (server ? "" : server.error().message));
    return *server;
}

// A call's context with `time` left and the step's idempotency key.
inline agentrt::call_context within(std::chrono::milliseconds time, std::string_view key = "run-1/0") {
    agentrt::call_context c;
    c.idempotency_key = key;
    c.deadline = std::chrono::steady_clock::now() + time;
    return c;
}

// Every message the stub received, in order.
inline std::vector<boost::json::object> journal_of(scratch const& dir) {
    std::vector<boost::json::object> lines;
    std::ifstream in(dir.path / "journal");
    for (std::string line; std::getline(in, line);)
        lines.push_back(boost::json::parse(line).as_object());
    return lines;
}

// The journal once a message with `method` is in it (the stub writes it as it reads it).
inline std::vector<boost::json::object> journal_until(scratch const& dir, std::string_view method) {
    for (int i = 0; i < 500; ++i) {
        auto lines = journal_of(dir);
        auto const* last = lines.empty() ? nullptr : lines.back().if_contains("method");
        if (last && last->is_string() && last->get_string() == method)
            return lines;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL("the stub never received " << method);
    return {};
}

// How many processes have this scratch directory in their command line (the stub's script names its journal).
inline int stub_processes_running(scratch const& dir) {
    int running = 0;
    for (auto const& entry : fs::directory_iterator("/proc")) {
        std::ifstream in(entry.path() / "cmdline", std::ios::binary);
        std::string command((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (command.find(dir.path.string()) != std::string::npos &&
            command.find("agentrt-mcp-stub") != std::string::npos)
            ++running;
    }
    return running;
}

} // namespace mcp_support
