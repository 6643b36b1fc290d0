#include <agentrt/mcp/tools.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/catalog/json_reader.hpp>
#include <agentrt/catalog/schema_tool.hpp>

#include <boost/json/serialize.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <unistd.h>

namespace agentrt::mcp {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view pins_format = "agentrt.mcp-pins/1";

std::string in_quotes(std::string_view text) {
    return "\"" + std::string(text) + "\"";
}

error bad_file(fs::path const& path, std::string const& pointer, std::string const& what) {
    return error{errc::invalid_arguments, path.string() + ": " + (pointer.empty() ? "" : pointer + ": ") + what, {}};
}

result<json::value> read_file(fs::path const& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return error{errc::not_found, path.string() + ": cannot be read: " + std::strerror(errno), {}};
    std::ostringstream text;
    text << in.rdbuf();
    auto v = read_json(text.str());
    if (!v)
        return bad_file(path, "", "not JSON: " + v.error().message);
    return v;
}

std::string escape_pointer(std::string_view token) {
    std::string out;
    for (char c : token)
        out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
}

} // namespace

// --- the operator's file ---

result<operator_file> operator_file::load(fs::path const& path) {
    auto document = read_file(path);
    if (!document)
        return document.error();
    operator_file file;
    file.path = path;
    auto const* top = document->if_object();
    auto const* servers = top ? top->if_contains("servers") : nullptr;
    if (!servers || !servers->is_object())
        return bad_file(path, "/servers", "missing or not an object of servers by name");
    for (auto const& [name, value] : servers->get_object()) {
        std::string at = "/servers/" + escape_pointer(name);
        auto const* s = value.if_object();
        if (!s)
            return bad_file(path, at, "not an object");
        bool const over_http = s->contains("url");
        for (auto const& [key, ignored] : *s) {
            bool const known = key == "tools" || (over_http ? key == "url" || key == "bearer_token_env"
                                                            : key == "command" || key == "environment");
            if (!known)
                return bad_file(path, at + "/" + escape_pointer(key),
                                over_http ? "not a member an HTTP server has (url, bearer_token_env, tools)"
                                          : "not a member a server has (command, environment, tools; or url)");
        }
        server_entry entry;
        if (over_http) {
            http_server http;
            http.name = std::string(name);
            auto const* url = s->if_contains("url");
            if (!url->is_string() || url->get_string().empty())
                return bad_file(path, at + "/url", "not a non-empty string");
            http.url = std::string(url->get_string());
            if (auto const* env = s->if_contains("bearer_token_env")) {
                if (!env->is_string() || env->get_string().empty())
                    return bad_file(
                        path, at + "/bearer_token_env",
                        "not the name of an environment variable (the token itself never goes in this file)");
                http.bearer_token_env = std::string(env->get_string());
            }
            entry.server = std::move(http);
        } else {
            stdio_server stdio;
            stdio.name = std::string(name);
            auto const* command = s->if_contains("command");
            if (!command || !command->is_array() || command->get_array().empty())
                return bad_file(path, at + "/command", "missing or not a non-empty array of strings");
            for (std::size_t i = 0; i < command->get_array().size(); ++i) {
                auto const& word = command->get_array()[i];
                if (!word.is_string())
                    return bad_file(path, at + "/command/" + std::to_string(i), "not a string");
                stdio.command.emplace_back(word.get_string());
            }
            if (auto const* environment = s->if_contains("environment")) {
                if (!environment->is_object())
                    return bad_file(path, at + "/environment", "not an object of strings");
                for (auto const& [variable, setting] : environment->get_object()) {
                    if (!setting.is_string())
                        return bad_file(path, at + "/environment/" + escape_pointer(variable), "not a string");
                    stdio.environment.push_back(std::string(variable) + "=" + std::string(setting.get_string()));
                }
            }
            entry.server = std::move(stdio);
        }
        if (auto const* tools = s->if_contains("tools")) {
            if (!tools->is_object())
                return bad_file(path, at + "/tools", "not an object of tools by name");
            for (auto const& [tool, c] : tools->get_object()) {
                std::string tool_at = at + "/tools/" + escape_pointer(tool);
                auto const* o = c.if_object();
                if (!o)
                    return bad_file(path, tool_at, "not an object");
                tool_class classified;
                auto const* effect = o->if_contains("side_effect");
                auto parsed = effect && effect->is_string() ? parse_side_effect(effect->get_string()) : std::nullopt;
                if (!parsed)
                    return bad_file(path, tool_at + "/side_effect",
                                    "missing or not one of read_only, local_mutation, remote_mutation, destructive");
                classified.effect = *parsed;
                if (auto const* timeout = o->if_contains("timeout_ms")) {
                    if (!timeout->is_int64() || timeout->get_int64() <= 0)
                        return bad_file(path, tool_at + "/timeout_ms", "not a positive integer");
                    classified.timeout = std::chrono::milliseconds(timeout->get_int64());
                }
                for (auto const& [key, ignored] : *o)
                    if (key != "side_effect" && key != "timeout_ms")
                        return bad_file(path, tool_at + "/" + escape_pointer(key), "not a member a tool's class has");
                entry.classes.emplace(std::string(tool), classified);
            }
        }
        file.servers.push_back(std::move(entry));
    }
    return file;
}

server_entry const* operator_file::find(std::string_view server) const noexcept {
    for (auto const& s : servers)
        if (s.name() == server)
            return &s;
    return nullptr;
}

fs::path operator_file::pins_path() const {
    fs::path pins = path;
    return pins.replace_extension().concat(".pins.json");
}

// --- pins ---

std::string definition_hash(listed_tool const& tool) {
    return canonical_hash(tool.definition());
}

std::string pin_difference::to_string() const {
    switch (what) {
    case kind::appeared:
        return "tool " + in_quotes(tool) + " appeared since the server was pinned";
    case kind::disappeared:
        return "tool " + in_quotes(tool) + " disappeared since the server was pinned";
    case kind::changed:
        break;
    }
    std::string changed;
    for (auto const& f : fields)
        changed += (changed.empty() ? "" : " and ") + f;
    return "tool " + in_quotes(tool) + " changed its " + changed + " since it was pinned";
}

result<pins> pins::load(fs::path const& path) {
    pins p;
    std::error_code ec;
    if (!fs::exists(path, ec))
        return p;
    auto document = read_file(path);
    if (!document)
        return document.error();
    auto const* top = document->if_object();
    auto const* format = top ? top->if_contains("format") : nullptr;
    if (!format || !format->is_string() || format->get_string() != pins_format)
        return bad_file(path, "/format", "not \"" + std::string(pins_format) + "\"");
    auto const* servers = top->if_contains("servers");
    if (!servers || !servers->is_object())
        return bad_file(path, "/servers", "missing or not an object");
    for (auto const& [server, tools] : servers->get_object()) {
        std::string at = "/servers/" + escape_pointer(server);
        if (!tools.is_object())
            return bad_file(path, at, "not an object of pins by tool");
        auto& pinned = p.servers_[std::string(server)];
        for (auto const& [tool, value] : tools.get_object()) {
            std::string tool_at = at + "/" + escape_pointer(tool);
            auto const* o = value.if_object();
            auto const* hash = o ? o->if_contains("sha256") : nullptr;
            auto const* definition = o ? o->if_contains("definition") : nullptr;
            if (!hash || !hash->is_string() || !definition || !definition->is_object())
                return bad_file(path, tool_at, "not {\"sha256\": ..., \"definition\": {...}}");
            if (canonical_hash(*definition) != hash->get_string())
                return bad_file(path, tool_at, "its definition does not have its sha256: the file was edited by hand");
            pinned[std::string(tool)] = pin{std::string(hash->get_string()), definition->get_object()};
        }
    }
    return p;
}

result<void> pins::save(fs::path const& path) const {
    json::object servers;
    for (auto const& [server, tools] : servers_) {
        json::object pinned;
        for (auto const& [tool, p] : tools)
            pinned[tool] = {{"sha256", p.sha256}, {"definition", p.definition}};
        servers[server] = std::move(pinned);
    }
    std::string text = json::serialize(json::object{{"format", pins_format}, {"servers", std::move(servers)}}) + "\n";
    fs::path aside = path;
    aside += ".new";
    int fd = ::open(aside.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    auto failed = [&](char const* what) {
        auto e = error{errc::store_failed, path.string() + ": cannot " + what + ": " + std::strerror(errno), {}};
        if (fd >= 0)
            ::close(fd);
        ::unlink(aside.c_str());
        return e;
    };
    if (fd < 0)
        return failed("be written");
    for (std::size_t sent = 0; sent < text.size();) {
        ssize_t n = ::write(fd, text.data() + sent, text.size() - sent);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return failed("be written");
        sent += std::size_t(n);
    }
    if (::fsync(fd) != 0)
        return failed("be synced");
    ::close(fd);
    fd = -1;
    if (::rename(aside.c_str(), path.c_str()) != 0)
        return failed("be renamed into place");
    return {};
}

std::vector<pin_difference> pins::compare(std::string_view server, std::span<listed_tool const> listed) const {
    std::vector<pin_difference> out;
    static std::map<std::string, pin, std::less<>> const none;
    auto found = servers_.find(server);
    auto const& pinned = found == servers_.end() ? none : found->second;
    std::set<std::string, std::less<>> seen;
    for (auto const& tool : listed) {
        seen.insert(tool.name);
        auto p = pinned.find(tool.name);
        if (p == pinned.end()) {
            out.push_back({pin_difference::kind::appeared, tool.name, {}});
            continue;
        }
        if (p->second.sha256 == definition_hash(tool))
            continue;
        pin_difference changed{pin_difference::kind::changed, tool.name, {}};
        auto const& before = p->second.definition;
        auto const* description = before.if_contains("description");
        if (!description || !description->is_string() || description->get_string() != tool.description)
            changed.fields.push_back("description");
        if (before.if_contains("inputSchema") == nullptr ||
            canonical_json(before.at("inputSchema")) != canonical_json(tool.input_schema))
            changed.fields.push_back("inputSchema");
        out.push_back(std::move(changed));
    }
    for (auto const& [name, p] : pinned)
        if (!seen.contains(name))
            out.push_back({pin_difference::kind::disappeared, name, {}});
    return out;
}

std::vector<pin_difference> pins::pin_all(std::string_view server, std::span<listed_tool const> listed) {
    auto changes = compare(server, listed);
    auto& pinned = servers_[std::string(server)];
    pinned.clear();
    for (auto const& tool : listed)
        pinned[tool.name] = pin{definition_hash(tool), tool.definition()};
    return changes;
}

pins::pin const* pins::find(std::string_view server, std::string_view tool) const noexcept {
    auto s = servers_.find(server);
    if (s == servers_.end())
        return nullptr;
    auto t = s->second.find(tool);
    return t == s->second.end() ? nullptr : &t->second;
}

// --- tool entries ---

namespace {

std::string first_text(json::array const& content) {
    for (auto const& part : content)
        if (auto const* o = part.if_object())
            if (auto const* text = o->if_contains("text"); text && text->is_string())
                return std::string(
                    text->get_string().subview(0, std::min<std::size_t>(text->get_string().size(), 200)));
    return {};
}

tool_result reply_to_result(result<tool_reply> reply, std::string const& tool) {
    if (!reply)
        return reply.error();
    if (reply->is_error)
        return tool_error(tool + " reported an error: " + first_text(reply->content));
    json::object content{{"content", std::move(reply->content)}};
    if (reply->structured_content)
        content["structuredContent"] = std::move(*reply->structured_content);
    std::string summary = first_text(content.at("content").get_array());
    return tool_output{std::move(content), std::move(summary)};
}

} // namespace

result<server_tools> pinned_tools(std::shared_ptr<client> const& server, std::span<listed_tool const> listed,
                                  pins const& pinned, std::map<std::string, tool_class, std::less<>> const& classes) {
    auto differences = pinned.compare(server->name(), listed);
    if (!differences.empty()) {
        std::string message = "MCP server " + in_quotes(server->name()) + " differs from its pins: ";
        for (std::size_t i = 0; i < differences.size(); ++i)
            message += (i ? "; " : "") + differences[i].to_string();
        message += ". Review the server, then pin it again (agentrt mcp pin " + server->name() + ")";
        return error{errc::pin_mismatch, std::move(message), {}};
    }
    server_tools out;
    for (auto const& tool : listed) {
        auto const* p = pinned.find(server->name(), tool.name);
        auto const& definition = p->definition;
        auto c = classes.find(tool.name);
        bool const classified = c != classes.end();
        tool_class const how = classified ? c->second : tool_class{};
        // What the operator classified must be usable; what nobody classified may be left out.
        auto cannot_take = [&](error e) -> std::optional<error> {
            if (!classified) {
                out.left_out.push_back(tool.name + ": " + e.message);
                return std::nullopt;
            }
            e.message = "MCP server " + in_quotes(server->name()) + ", tool " + in_quotes(tool.name) + ": " + e.message;
            return e;
        };
        if (!valid_tool_name(tool.name)) {
            if (auto e = cannot_take(error{errc::invalid_schema,
                                           "its name is not 1 to 64 characters of [A-Za-z0-9_-], as model "
                                           "providers require",
                                           {}}))
                return *e;
            continue;
        }
        auto call = [server, name = tool.name](json::value const& arguments, call_context const& context) {
            if (!arguments.is_object()) // a pinned schema that lets a non-object through
                return tool_result(tool_error(name + " takes an object of arguments, as MCP sends them"));
            return reply_to_result(server->call_tool(name, arguments.get_object(), context), name);
        };
        auto entry = schema_tool(tool.name, std::string(definition.at("description").as_string()),
                                 definition.at("inputSchema").as_object(), how.effect, how.timeout, std::move(call));
        if (!entry) {
            if (auto e = cannot_take(entry.error()))
                return *e;
            continue;
        }
        out.entries.push_back(std::move(*entry));
    }
    return out;
}

result<server_tools> pinned_tools(std::shared_ptr<client> const& server, pins const& pinned,
                                  std::map<std::string, tool_class, std::less<>> const& classes) {
    auto listed = server->list_tools();
    if (!listed)
        return listed.error();
    return pinned_tools(server, *listed, pinned, classes);
}

} // namespace agentrt::mcp
