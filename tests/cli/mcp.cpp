// mcp show and mcp pin: an operator reviews what MCP servers list against their pins, and pins them
// again. The servers are the test kit's stub, a real process the command starts.
#include "command.hpp"

#include <agentrt/mcp/tools.hpp>
#include <agentrt/testkit/stub_mcp_server.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <fstream>

using namespace cli_test;
namespace json = boost::json;
using agentrt::testkit::stub_script;

namespace {

stub_script shop(std::string const& lookup_description = "Look an order up.") {
    stub_script script;
    auto schema =
        json::parse(R"({"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]})")
            .as_object();
    script.tools.push_back(
        {"lookup", lookup_description, schema, json::parse(R"({"readOnlyHint":true})").as_object(), {}});
    script.tools.push_back(
        {"cancel", "Cancel an order.", schema, json::parse(R"({"readOnlyHint":true})").as_object(), {}});
    script.tools.push_back(
        {"odd", "Odd.", json::parse(R"({"type":"object","patternProperties":{"^x":{}}})").as_object(), {}, {}});
    return script;
}

// The operator's file: `servers` by name, lookup classified read_only, cancel left unclassified.
fs::path write_operator_file(fs::path const& dir, std::vector<std::pair<std::string, stub_script>> const& servers) {
    json::object all;
    for (auto const& [name, script] : servers) {
        json::array command;
        for (auto const& word : agentrt::testkit::stub_server(name, script).command)
            command.emplace_back(word);
        all[name] = {{"command", std::move(command)},
                     {"tools", {{"lookup", {{"side_effect", "read_only"}, {"timeout_ms", 5000}}}}}};
    }
    fs::path file = dir / "servers.json";
    std::ofstream(file) << json::serialize(json::object{{"servers", std::move(all)}});
    return file;
}

outcome mcp(std::vector<std::string> args, fs::path const& file) {
    args.insert(args.begin(), "mcp");
    args.push_back("--servers");
    args.push_back(file.string());
    return run_command(args);
}

} // namespace

TEST_SUITE("agentrt mcp") {

    TEST_CASE("mcp show lists each tool with its pin, the operator's class and the server's untrusted hints") {
        temp_dir dir;
        auto file = write_operator_file(dir.path, {{"shop", shop()}});
        auto o = mcp({"show", "shop"}, file);
        SHOW(o);
        CHECK(o.status == 1); // nothing pinned yet
        auto out = lines(o.out);
        REQUIRE(out.size() >= 5);
        CHECK(out[0] == "shop:");
        CHECK(out[1].find("TOOL") == 0);
        CHECK(out[2].find("lookup") == 0);
        CHECK(out[2].find("new") != std::string::npos);
        CHECK(out[2].find("read_only 5000ms") != std::string::npos);
        CHECK(out[2].find("readOnlyHint=true") != std::string::npos);
        CHECK(out[3].find("unknown (not classified)") != std::string::npos); // its readOnlyHint changes nothing
        CHECK(o.out.find("left out: odd: ") != std::string::npos);
        CHECK(o.out.find("shop differs from its pins in 3 tool(s): review them, then `agentrt mcp pin shop`") !=
              std::string::npos);
        CHECK_FALSE(fs::exists(dir.path / "servers.pins.json")); // show writes nothing
    }

    TEST_CASE("mcp pin writes the pins beside the operator's file, and a changed server differs again") {
        temp_dir dir;
        auto file = write_operator_file(dir.path, {{"shop", shop()}});
        auto pinned = mcp({"pin", "shop"}, file);
        SHOW(pinned);
        CHECK(pinned.status == 0);
        CHECK(pinned.out.find("shop: pinned 3 difference(s)") != std::string::npos);
        auto pins = agentrt::mcp::pins::load(dir.path / "servers.pins.json");
        REQUIRE(pins);
        CHECK(pins->find("shop", "lookup"));
        CHECK(mcp({"show", "shop"}, file).status == 0);

        write_operator_file(dir.path, {{"shop", shop("Look an order up, and cancel it.")}});
        auto changed = mcp({"show", "shop"}, file);
        SHOW(changed);
        CHECK(changed.status == 1);
        CHECK(changed.out.find("changed description") != std::string::npos);
        auto again = mcp({"--json", "pin", "shop"}, file);
        SHOW(again);
        REQUIRE(again.status == 0);
        auto report = json::parse(again.out).as_object();
        CHECK(report.at("pinned") == true);
        CHECK(report.at("differences") == json::array{"tool \"lookup\" changed its description since it was pinned"});
        CHECK(mcp({"show", "shop"}, file).status == 0);
    }

    TEST_CASE("mcp pin writes nothing when a server named cannot be listed") {
        temp_dir dir;
        auto file = write_operator_file(dir.path, {{"shop", shop()}, {"broken", shop()}});
        std::ifstream in(file);
        auto text = json::parse(std::string(std::istreambuf_iterator<char>(in), {})).as_object();
        text["servers"].as_object()["broken"].as_object()["command"] = json::array{"/nonexistent/mcp-server"};
        std::ofstream(file) << json::serialize(text);
        auto o = mcp({"pin", "shop", "broken"}, file);
        SHOW(o);
        CHECK(o.status == 1);
        CHECK(o.err.find("broken") != std::string::npos);
        CHECK_FALSE(fs::exists(dir.path / "servers.pins.json"));
    }

    TEST_CASE("mcp refuses an unknown action, an unknown server and a missing operator file") {
        temp_dir dir;
        auto file = write_operator_file(dir.path, {{"shop", shop()}});
        auto typo = mcp({"pni", "shop"}, file);
        CHECK(typo.status == 2);
        CHECK(typo.err.find("mcp wants show or pin, got pni; did you mean pin?") != std::string::npos);
        auto unknown = mcp({"show", "shpo"}, file);
        CHECK(unknown.status == 2);
        CHECK(unknown.err.find("no server shpo in " + file.string() + "; did you mean shop?") != std::string::npos);
        auto missing = run_command({"mcp", "show", "shop"});
        CHECK(missing.status == 2);
        CHECK(missing.err.find("no operator file: pass --servers FILE or set AGENTRT_MCP_SERVERS") !=
              std::string::npos);
        auto bad = mcp({"show", "shop"}, dir.path / "absent.json");
        CHECK(bad.status == 1);
        CHECK(bad.err.find((dir.path / "absent.json").string()) != std::string::npos);
    }
}
