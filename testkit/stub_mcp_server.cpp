#include <agentrt/testkit/stub_mcp_server.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value_to.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <unistd.h>

#ifndef AGENTRT_MCP_STUB_PROGRAM
#define AGENTRT_MCP_STUB_PROGRAM "agentrt-mcp-stub"
#endif

namespace agentrt::testkit {
namespace json = boost::json;
namespace {

constexpr std::pair<stub_behaviour, char const*> behaviour_names[] = {
    {stub_behaviour::echo, "echo"},           {stub_behaviour::fail, "fail"},
    {stub_behaviour::stall, "stall"},         {stub_behaviour::crash, "crash"},
    {stub_behaviour::malformed, "malformed"}, {stub_behaviour::oversized, "oversized"}};

char const* name_of(stub_behaviour b) {
    for (auto const& [value, name] : behaviour_names)
        if (value == b)
            return name;
    return "echo";
}

stub_behaviour behaviour_named(std::string_view text) {
    for (auto const& [value, name] : behaviour_names)
        if (text == name)
            return value;
    throw std::invalid_argument("stub script: unknown behaviour \"" + std::string(text) + "\"");
}

class stub {
public:
    explicit stub(stub_script script) : script_(std::move(script)) {
        if (!script_.journal.empty())
            journal_.open(script_.journal, std::ios::app);
    }

    int serve() {
        for (std::string line; std::getline(std::cin, line);) {
            if (journal_.is_open())
                journal_ << line << std::endl;
            boost::system::error_code ec;
            json::value v = json::parse(line, ec);
            if (ec || !v.is_object())
                continue;
            auto const& message = v.get_object();
            auto const* id = message.if_contains("id");
            auto const* method = message.if_contains("method");
            if (!id || !method || !method->is_string())
                continue; // a notification or an answer: nothing to say
            auto const* params = message.if_contains("params");
            json::object none;
            answer(*id, method->get_string(), params && params->is_object() ? params->get_object() : none);
        }
        return 0;
    }

private:
    void send(json::object const& message) { std::cout << json::serialize(message) << std::endl; }
    void result(json::value const& id, json::object r) {
        send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(r)}});
    }
    void refuse(json::value const& id, int code, std::string message) {
        send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", std::move(message)}}}});
    }

    void answer(json::value const& id, std::string_view method, json::object const& params) {
        if (method == "initialize")
            return result(id, {{"protocolVersion", script_.protocol_version},
                               {"capabilities", {{"tools", {{"listChanged", true}}}}},
                               {"serverInfo", {{"name", "agentrt-mcp-stub"}, {"version", "1"}}}});
        if (method == "ping")
            return result(id, {});
        if (method == "tools/list")
            return list(id, params);
        if (method == "tools/call")
            return call(id, params);
        refuse(id, -32601, "Method not found: " + std::string(method));
    }

    void list(json::value const& id, json::object const& params) {
        std::size_t first = 0;
        if (auto const* cursor = params.if_contains("cursor"); cursor && cursor->is_string())
            first = std::stoul(std::string(cursor->get_string()));
        std::size_t size = script_.page_size ? script_.page_size : script_.tools.size();
        json::array tools;
        for (std::size_t i = first; i < std::min(first + size, script_.tools.size()); ++i) {
            auto const& t = script_.tools[i];
            json::object tool{{"name", t.name}, {"description", t.description}, {"inputSchema", t.input_schema}};
            if (!t.annotations.empty())
                tool["annotations"] = t.annotations;
            tools.push_back(std::move(tool));
        }
        json::object page{{"tools", std::move(tools)}};
        if (first + size < script_.tools.size())
            page["nextCursor"] = std::to_string(first + size);
        result(id, std::move(page));
        if (first + size >= script_.tools.size() && script_.change_after_first_list && !changed_ &&
            !script_.tools.empty()) {
            changed_ = true;
            script_.tools.front().description += " (changed)";
            send({{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}});
        }
    }

    void call(json::value const& id, json::object const& params) {
        auto const* name = params.if_contains("name");
        stub_tool const* tool = nullptr;
        for (auto const& t : script_.tools)
            if (name && name->is_string() && name->get_string() == t.name)
                tool = &t;
        if (!tool)
            return refuse(id, -32602, "Unknown tool: " + (name ? json::serialize(*name) : std::string("(none)")));
        json::value arguments = json::object{};
        if (auto const* a = params.if_contains("arguments"))
            arguments = *a;
        auto text = [](std::string t) { return json::array{json::object{{"type", "text"}, {"text", std::move(t)}}}; };
        switch (tool->on_call) {
        case stub_behaviour::echo:
            return result(id, {{"content", text(json::serialize(arguments))}, {"structuredContent", arguments}});
        case stub_behaviour::fail:
            return result(id, {{"content", text(tool->name + " failed, as scripted")}, {"isError", true}});
        case stub_behaviour::stall:
            return;
        case stub_behaviour::crash:
            std::cout.flush();
            std::_Exit(3);
        case stub_behaviour::malformed:
            std::cout << "{\"jsonrpc\": \"2.0\", \"id\": " << json::serialize(id) << ", \"result\": " << std::endl;
            return;
        case stub_behaviour::oversized:
            return result(id, {{"content", text(std::string(script_.oversized_bytes, 'x'))}});
        }
    }

    stub_script script_;
    std::ofstream journal_;
    bool changed_ = false;
};

} // namespace

json::object stub_script::to_json() const {
    json::array list;
    for (auto const& t : tools)
        list.push_back({{"name", t.name},
                        {"description", t.description},
                        {"input_schema", t.input_schema},
                        {"annotations", t.annotations},
                        {"on_call", name_of(t.on_call)}});
    return {{"tools", std::move(list)},
            {"page_size", page_size},
            {"protocol_version", protocol_version},
            {"change_after_first_list", change_after_first_list},
            {"oversized_bytes", oversized_bytes},
            {"journal", journal.string()}};
}

stub_script stub_script::from_json(json::object const& o) {
    try {
        stub_script s;
        for (auto const& v : o.at("tools").as_array()) {
            auto const& t = v.as_object();
            s.tools.push_back({std::string(t.at("name").as_string()), std::string(t.at("description").as_string()),
                               t.at("input_schema").as_object(), t.at("annotations").as_object(),
                               behaviour_named(t.at("on_call").as_string())});
        }
        s.page_size = json::value_to<std::size_t>(o.at("page_size"));
        s.protocol_version = std::string(o.at("protocol_version").as_string());
        s.change_after_first_list = o.at("change_after_first_list").as_bool();
        s.oversized_bytes = json::value_to<std::size_t>(o.at("oversized_bytes"));
        s.journal = std::string(o.at("journal").as_string());
        return s;
    } catch (std::invalid_argument const&) {
        throw;
    } catch (std::exception const& e) {
        throw std::invalid_argument(std::string("stub script: ") + e.what());
    }
}

mcp::stdio_server stub_server(std::string name, stub_script const& script) {
    std::string program = "agentrt-mcp-stub";
    if (char const* named = std::getenv("AGENTRT_MCP_STUB"); named && *named)
        program = named;
    else if (std::error_code ec; std::filesystem::exists(AGENTRT_MCP_STUB_PROGRAM, ec))
        program = AGENTRT_MCP_STUB_PROGRAM;
    return {std::move(name), {std::move(program), json::serialize(script.to_json())}, {}};
}

int run_stub_mcp_server(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: " << (argc ? argv[0] : "agentrt-mcp-stub") << " SCRIPT-JSON\n";
        return 2;
    }
    try {
        boost::system::error_code ec;
        json::value script = json::parse(argv[1], ec);
        if (ec || !script.is_object())
            throw std::invalid_argument("stub script: not a JSON object");
        std::cerr << "agentrt-mcp-stub: serving " << script.at("tools").as_array().size() << " tools\n";
        return stub(stub_script::from_json(script.get_object())).serve();
    } catch (std::exception const& e) {
        std::cerr << e.what() << '\n';
        return 2;
    }
}

} // namespace agentrt::testkit
