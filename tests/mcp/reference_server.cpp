// The client against the protocol's own reference server, @modelcontextprotocol/server-everything
// at the version tools/mcp-reference-server pins, run by Node.js as tools/install-deps installs it.
// A tee in front of it journals every message that reaches it.
#include <agentrt/mcp/client.hpp>
#include <agentrt/mcp/tools.hpp>

#include <agentrt/catalog/compiled_schema.hpp>
#include <agentrt/fuzz/generate.hpp>
#include <agentrt/fuzz/near_miss.hpp>
#include <agentrt/runtime/gate.hpp>
#include <agentrt/runtime/store.hpp>

#include "support/mcp.hpp"

#include <boost/json/serialize.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

namespace fs = std::filesystem;
namespace json = boost::json;
namespace mcp = agentrt::mcp;
using namespace std::chrono_literals;

namespace {

fs::path reference_server_script() {
    char const* prefix = std::getenv("AGENTRT_MCP_REFERENCE");
    fs::path script = fs::path(prefix ? prefix : AGENTRT_MCP_REFERENCE_DEFAULT) /
                      "node_modules/@modelcontextprotocol/server-everything/dist/index.js";
    REQUIRE_MESSAGE(fs::exists(script), "the MCP reference server is not at " << script << ": run tools/install-deps");
    return script;
}

mcp::stdio_server journaled_reference_server(mcp_support::scratch const& dir) {
    return {"everything",
            {"sh", "-c", "tee \"$0\" | exec node \"$1\" stdio", (dir.path / "journal").string(),
             reference_server_script().string()},
            {}};
}

// The tools that answer from what they are given: the others fetch from the network, sleep, start
// timers or ask the client for more, and stay unclassified.
std::map<std::string, mcp::tool_class, std::less<>> const callable = {
    {"echo", {agentrt::side_effect::read_only, 10s}},
    {"get-sum", {agentrt::side_effect::read_only, 10s}},
    {"get-annotated-message", {agentrt::side_effect::read_only, 10s}},
    {"get-structured-content", {agentrt::side_effect::read_only, 10s}},
    {"get-tiny-image", {agentrt::side_effect::read_only, 10s}},
    {"get-resource-links", {agentrt::side_effect::read_only, 10s}},
    {"get-resource-reference", {agentrt::side_effect::read_only, 10s}},
};

std::uint64_t seed() {
    if (char const* given = std::getenv("AGENTRT_MCP_SEED"))
        return std::strtoull(given, nullptr, 10);
    return std::random_device{}();
}

std::size_t calls_received(mcp_support::scratch const& dir) {
    auto journal = mcp_support::journal_of(dir);
    return std::size_t(std::count_if(journal.begin(), journal.end(), [](json::object const& m) {
        auto const* method = m.if_contains("method");
        return method && *method == "tools/call";
    }));
}

// The reference server's tools pinned and classified, in one table with a gate over a fresh store.
struct reference_world {
    mcp_support::scratch dir;
    std::shared_ptr<mcp::client> server;
    std::vector<mcp::listed_tool> listed;
    std::vector<std::string> left_out;
    agentrt::tool_table table;
    agentrt::evaluator policy = agentrt::lower_policy(mcp_support::lookup_then_classes{}, mcp_support::catalogue);
    std::optional<agentrt::store> store;

    reference_world() {
        auto started = mcp::client::start(journaled_reference_server(dir));
        REQUIRE_MESSAGE(started, (started ? "" : started.error().message));
        server = *started;
        auto tools = server->list_tools();
        REQUIRE_MESSAGE(tools, (tools ? "" : tools.error().message));
        listed = *tools;
        mcp::pins pins;
        pins.pin_all(server->name(), listed);
        auto entries = mcp::pinned_tools(server, listed, pins, callable);
        REQUIRE_MESSAGE(entries, (entries ? "" : entries.error().message));
        left_out = entries->left_out;
        table = mcp_support::catalogue.table().with(std::move(entries->entries));
        auto opened = agentrt::store::open(dir.path / "store");
        REQUIRE(opened);
        store.emplace(std::move(*opened));
    }

    agentrt::gate gate() {
        agentrt::gate_options options;
        options.limits.max_steps = 100'000;
        options.limits.max_failed_streak = 100'000;
        options.limits.loop_threshold = 100'000;
        return agentrt::gate(*store, table, policy, options);
    }
};

agentrt::step_record proposed(agentrt::session& s, std::string const& tool, std::string const& arguments) {
    auto step = s.open_step();
    REQUIRE(step);
    REQUIRE(step->has_value());
    auto decided = s.propose(agentrt::decision::call(tool, arguments));
    REQUIRE_MESSAGE(decided, (decided ? "" : decided.error().message));
    return *decided;
}

} // namespace

TEST_SUITE("mcp reference server") {

    TEST_CASE("the reference server negotiates a version agentrt speaks and its every tool is listed and checked") {
        reference_world w;
        CHECK(std::find(std::begin(mcp::protocol_versions), std::end(mcp::protocol_versions),
                        w.server->protocol_version()) != std::end(mcp::protocol_versions));
        CHECK(w.server->server_info().at("name") == "mcp-servers/everything");
        for (auto const& [name, _] : callable)
            CHECK_MESSAGE(std::any_of(w.listed.begin(), w.listed.end(), [&](auto const& t) { return t.name == name; }),
                          name << " is not listed");
        // Every listed tool in the table with the operator's class or unknown, or left out saying why.
        REQUIRE(w.table.size() + w.left_out.size() == mcp_support::catalogue.table().size() + w.listed.size());
        for (auto const& tool : w.listed) {
            CAPTURE(tool.name);
            auto const* entry = w.table.find(tool.name);
            if (!entry) {
                CHECK_FALSE(callable.contains(tool.name));
                CHECK(std::any_of(w.left_out.begin(), w.left_out.end(),
                                  [&](auto const& why) { return why.find(tool.name + ": ") == 0; }));
                continue;
            }
            CHECK(entry->effect ==
                  (callable.contains(tool.name) ? agentrt::side_effect::read_only : agentrt::side_effect::unknown));
        }
        // The one that fetches a URL declares "format", which agentrt does not check.
        REQUIRE(w.left_out.size() == 1);
        CHECK(w.left_out[0].find("gzip-file-as-resource: ") == 0);
        CHECK(w.left_out[0].find("format at \"/properties/data\"") != std::string::npos);
    }

    TEST_CASE("calls generated from the listed schemas pass the gate, reach the reference server and are answered") {
        reference_world w;
        auto g = w.gate();
        auto s = g.begin("call every callable tool");
        REQUIRE(s);
        std::uint64_t const first = seed();
        MESSAGE("seed " << first << " (AGENTRT_MCP_SEED=" << first << " repeats it)");
        std::size_t sent = 0;
        for (auto const& [name, _] : callable) {
            auto const* entry = w.table.find(name);
            REQUIRE(entry);
            for (auto const& arguments :
                 agentrt::fuzz::sample(agentrt::fuzz::valid_json(entry->argument_schema), 5, first + sent, 20)) {
                std::string text = json::serialize(arguments);
                CAPTURE(name);
                CAPTURE(text);
                auto step = proposed(*s, name, text);
                REQUIRE(step.status == agentrt::step_status::executing);
                auto done = s->execute();
                REQUIRE(done);
                ++sent;
                // A tool may answer isError (a resource id it lacks): an answer either way, never a broken call.
                CHECK_MESSAGE(
                    (done->status == agentrt::step_status::done || done->status == agentrt::step_status::failed),
                    done->error);
                CHECK(done->error.find("server") == std::string::npos);
                if (name == "echo" && done->status == agentrt::step_status::done) {
                    auto observation = json::parse(done->observation);
                    std::string expected = "Echo: " + std::string(arguments.at("message").as_string());
                    CHECK(observation.at("content").at(0).at("text").as_string() == expected);
                }
            }
        }
        CHECK(calls_received(w.dir) == sent);
    }

    TEST_CASE("near misses of the listed schemas and unclassified tools never reach the reference server") {
        reference_world w;
        auto g = w.gate();
        auto s = g.begin("send near misses");
        REQUIRE(s);
        std::uint64_t const first = seed();
        MESSAGE("seed " << first << " (AGENTRT_MCP_SEED=" << first << " repeats it)");
        std::size_t refused = 0;
        for (auto const& [name, _] : callable) {
            auto const* entry = w.table.find(name);
            REQUIRE(entry);
            auto judge = agentrt::fuzz::judge_of(entry->argument_schema);
            for (auto const& valid :
                 agentrt::fuzz::sample(agentrt::fuzz::valid_json(entry->argument_schema), 3, first + refused, 20))
                for (auto const& miss : agentrt::fuzz::near_misses(entry->argument_schema, valid, judge)) {
                    CAPTURE(name);
                    CAPTURE(miss);
                    auto step = proposed(*s, name, miss.text);
                    CHECK(step.status == agentrt::step_status::failed);
                    CHECK(step.error.find(miss.rule) != std::string::npos);
                    ++refused;
                }
        }
        CHECK(refused > 0);
        auto toggle = proposed(*s, "toggle-simulated-logging", "{}");
        CHECK(toggle.status == agentrt::step_status::failed);
        REQUIRE(toggle.policy);
        CHECK(toggle.policy->outcome == "deny");
        CHECK(toggle.policy->reason.find("no side-effect class") != std::string::npos);
        auto fetch = proposed(*s, "gzip-file-as-resource", R"({"name":"x.gz","data":"https://example.com/"})");
        CHECK(fetch.status == agentrt::step_status::failed);
        CHECK(fetch.error.find("gzip-file-as-resource") != std::string::npos);
        CHECK(calls_received(w.dir) == 0);
    }
}
