// mcp show, mcp pin: an operator's review of MCP servers. What each server lists today beside its
// pins, the operator's classes and the server's own hints (shown, never trusted), and pinning it
// again once reviewed.
#include "cli.hpp"

#include <agentrt/mcp/client.hpp>
#include <agentrt/mcp/tools.hpp>

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cstdlib>
#include <ostream>

namespace agentrt::cli {
namespace {

namespace json = boost::json;

mcp::operator_file load_operator_file(command_line const& l) {
    auto path = l.value("--servers");
    if (!path)
        if (char const* env = std::getenv("AGENTRT_MCP_SERVERS"); env && *env)
            path = env;
    if (!path)
        throw usage_error("no operator file: pass --servers FILE or set AGENTRT_MCP_SERVERS");
    auto file = mcp::operator_file::load(*path);
    if (!file)
        throw failure(sanitize(file.error().message, 600));
    return std::move(*file);
}

mcp::server_entry const& server_named(mcp::operator_file const& file, std::string const& name) {
    if (auto const* entry = file.find(name))
        return *entry;
    std::vector<std::string> names;
    for (auto const& s : file.servers)
        names.push_back(s.name());
    std::string message = "no server " + sanitize(name, 80) + " in " + sanitize(file.path.string(), 200);
    if (auto near = nearest_names(name, names); !near.empty())
        message += "; did you mean " + sanitize(near.front(), 80) + "?";
    else if (!names.empty()) {
        message += "; it has";
        for (std::size_t i = 0; i < names.size(); ++i)
            message += (i ? ", " : " ") + sanitize(names[i], 80);
    } else
        message += ", which names no server";
    throw usage_error(message);
}

// "readOnlyHint=true destructiveHint=false": what the server says of a tool, to be read by a person.
std::string hints_of(mcp::listed_tool const& tool) {
    std::string out;
    for (auto const& kv : tool.annotations)
        if (kv.value().is_bool())
            out += (out.empty() ? "" : " ") + std::string(kv.key()) + "=" + (kv.value().get_bool() ? "true" : "false");
    return sanitize(out, 120);
}

std::string change_of(std::vector<mcp::pin_difference> const& differences, std::string const& tool) {
    for (auto const& d : differences)
        if (d.tool == tool) {
            if (d.what == mcp::pin_difference::kind::appeared)
                return "new";
            std::string fields;
            for (auto const& f : d.fields)
                fields += (fields.empty() ? "" : ",") + f;
            return "changed " + fields;
        }
    return "pinned";
}

std::string class_of(mcp::server_entry const& entry, std::string const& tool) {
    auto c = entry.classes.find(tool);
    if (c == entry.classes.end())
        return "unknown (not classified)";
    return std::string(to_string(c->second.effect)) + " " + std::to_string(c->second.timeout.count()) + "ms";
}

struct server_review {
    std::vector<mcp::listed_tool> listed;
    std::vector<mcp::pin_difference> differences;
    std::vector<std::string> left_out;
};

// What `server` lists, compared with `pins` (and pinned in them when `pin`), and what the table
// would leave out or refuse once it is pinned.
server_review review(mcp::server_entry const& entry, mcp::pins& pins, bool pin) {
    auto started = mcp::client::start(entry.server);
    if (!started)
        throw failure(sanitize(started.error().message, 1000));
    auto listed = (*started)->list_tools();
    if (!listed)
        throw failure(sanitize(listed.error().message, 1000));
    server_review r;
    r.listed = std::move(*listed);
    auto const& name = entry.name();
    r.differences = pin ? pins.pin_all(name, r.listed) : pins.compare(name, r.listed);
    mcp::pins as_pinned = pins;
    as_pinned.pin_all(name, r.listed);
    auto tools = mcp::pinned_tools(*started, r.listed, as_pinned, entry.classes);
    if (!tools)
        throw failure(sanitize(tools.error().message, 1000));
    r.left_out = std::move(tools->left_out);
    return r;
}

void print_review(context& c, mcp::server_entry const& entry, server_review const& r, bool pinned) {
    auto const& name = entry.name();
    if (c.json) {
        json::array tools, differences, left_out;
        for (auto const& t : r.listed)
            tools.push_back(json::object{{"name", sanitize(t.name, 80)},
                                         {"change", change_of(r.differences, t.name)},
                                         {"class", class_of(entry, t.name)},
                                         {"hints", hints_of(t)}});
        for (auto const& d : r.differences)
            differences.push_back(json::string(sanitize(d.to_string(), 300)));
        for (auto const& why : r.left_out)
            left_out.push_back(json::string(sanitize(why, 400)));
        c.out << json_line({{"server", sanitize(name, 80)},
                            {"matches_pins", pinned || r.differences.empty()},
                            {"pinned", pinned && !r.differences.empty()},
                            {"tools", std::move(tools)},
                            {"differences", std::move(differences)},
                            {"left_out", std::move(left_out)}});
        return;
    }
    std::vector<std::vector<std::string>> rows{{"TOOL", "PIN", "CLASS (OPERATOR'S)", "HINTS (SERVER'S, NOT TRUSTED)"}};
    for (auto const& t : r.listed)
        rows.push_back({sanitize(t.name, 64), change_of(r.differences, t.name), class_of(entry, t.name), hints_of(t)});
    c.out << sanitize(name, 80) << ":\n";
    print_table(c.out, rows);
    for (auto const& d : r.differences)
        if (d.what == mcp::pin_difference::kind::disappeared)
            c.out << "  gone: " << sanitize(d.tool, 64) << " (pinned, no longer listed)\n";
    for (auto const& why : r.left_out)
        c.out << "  left out: " << sanitize(why, 400) << "\n";
    for (auto const& [tool, _] : entry.classes)
        if (std::none_of(r.listed.begin(), r.listed.end(), [&](auto const& t) { return t.name == tool; }))
            c.out << "  classified but not listed: " << sanitize(tool, 64) << "\n";
    if (r.differences.empty())
        c.out << sanitize(name, 80) << " matches its pins (" << r.listed.size() << " tools)\n";
    else if (pinned)
        c.out << sanitize(name, 80) << ": pinned " << r.differences.size() << " difference(s)\n";
    else
        c.out << sanitize(name, 80) << " differs from its pins in " << r.differences.size()
              << " tool(s): review them, then `agentrt mcp pin " << sanitize(name, 80) << "`\n";
}

int mcp_command(context& c, command_line const& l) {
    std::string const& action = l.positional[0];
    if (action != "show" && action != "pin") {
        std::string message = "mcp wants show or pin, got " + sanitize(action, 40);
        if (auto near = nearest_names(action, {"show", "pin"}); !near.empty())
            message += "; did you mean " + near.front() + "?";
        throw usage_error(message);
    }
    if (l.positional.size() < 2)
        throw usage_error("mcp " + action + " wants at least one SERVER of the operator file");
    bool const pin = action == "pin";
    auto file = load_operator_file(l);
    auto pins = mcp::pins::load(file.pins_path());
    if (!pins)
        throw failure(sanitize(pins.error().message, 600));
    std::vector<mcp::server_entry const*> servers;
    for (std::size_t i = 1; i < l.positional.size(); ++i)
        servers.push_back(&server_named(file, l.positional[i]));

    bool differs = false;
    std::vector<std::pair<mcp::server_entry const*, server_review>> reviews;
    for (auto const* entry : servers) {
        reviews.emplace_back(entry, review(*entry, *pins, pin));
        differs = differs || !reviews.back().second.differences.empty();
    }
    // Every server listed before anything is written: one that cannot be reached pins nothing.
    if (pin && differs)
        if (auto saved = pins->save(file.pins_path()); !saved)
            throw failure(sanitize(saved.error().message, 600));
    for (auto const& [entry, r] : reviews)
        print_review(c, *entry, r, pin);
    return pin || !differs ? exit_ok : exit_failed;
}

} // namespace

std::vector<command> mcp_commands() {
    return {
        {"mcp",
         "mcp show|pin SERVER... [--servers FILE]",
         "review MCP servers' tools against their pins, and pin them again",
         "SERVER names a server of the operator's file (--servers FILE, else AGENTRT_MCP_SERVERS), which\n"
         "gives each server's command and each tool's side-effect class and timeout. `mcp show` starts each\n"
         "server, lists its tools and prints, for each, whether it matches its pin, the operator's class and\n"
         "the server's own hints (shown, never trusted), and the tools a table would leave out; exit status 1\n"
         "when a server differs from its pins. `mcp pin` prints the same and writes the pins file beside the\n"
         "operator's (FILE.pins.json for FILE.json), once every server named was listed. Needs no --store.",
         {{"--servers", "FILE", "the operator's file of MCP servers and classes"}},
         1,
         64,
         mcp_command},
    };
}

} // namespace agentrt::cli
