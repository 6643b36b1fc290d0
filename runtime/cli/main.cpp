// agentrt: the operator's command over a store (docs/operator.md).
#include "cli.hpp"

#include <agentrt/catalog/error.hpp>

#include <cstdlib>
#include <iostream>
#include <sstream>

namespace agentrt::cli {
namespace {

std::vector<command> all_commands() {
    std::vector<command> all;
    for (auto part : {read_commands(), decide_commands(), store_commands()})
        all.insert(all.end(), part.begin(), part.end());
    return all;
}

std::string tool_help(std::vector<command> const& commands) {
    std::ostringstream out;
    out << "usage: agentrt [--store PATH] [--json] COMMAND [ARGS]\n\n"
           "Shows and decides what a store of agentrt runs holds. The store is the directory given by --store,\n"
           "or by the environment variable AGENTRT_STORE; agentrt never creates or migrates one.\n\n"
           "commands:\n";
    std::vector<std::vector<std::string>> rows;
    for (auto const& c : commands)
        rows.push_back({"  " + std::string(c.name), std::string(c.summary)});
    print_table(out, rows);
    out << "\noptions:\n"
           "  --store PATH  the store directory (default: $AGENTRT_STORE)\n"
           "  --json        JSON output (one object per line) for programs\n"
           "  --help        this help; `agentrt COMMAND --help` for a command's\n\n"
           "exit status: 0 success, 1 a failed operation or check, 2 a usage error or an unconfirmed decision\n";
    return out.str();
}

std::string command_help(command const& c) {
    return "usage: agentrt [--store PATH] [--json] " + std::string(c.synopsis) + "\n\n" + std::string(c.summary) +
           ".\n" + (c.help.empty() ? "" : "\n" + std::string(c.help) + "\n");
}

bool takes_value(command const* c, std::string_view option) {
    if (option == "--store")
        return true;
    if (!c)
        return false;
    return std::find(c->options.begin(), c->options.end(), option) != c->options.end();
}

bool is_flag(command const* c, std::string_view option) {
    if (option == "--json" || option == "--help" || option == "-h")
        return true;
    return c && std::find(c->flags.begin(), c->flags.end(), option) != c->flags.end();
}

// Global options may come before or after the command; a command's own options only after it.
command_line parse(std::vector<std::string> const& args, std::vector<command> const& commands, command const*& found) {
    command_line line;
    found = nullptr;
    bool options_ended = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string arg = args[i];
        if (options_ended || arg.size() < 2 || arg[0] != '-') {
            if (line.command.empty()) {
                line.command = arg;
                for (auto const& c : commands)
                    if (c.name == arg)
                        found = &c;
                if (!found)
                    throw usage_error("unknown command '" + sanitize(arg, 40) + "'; see agentrt --help");
            } else {
                line.positional.push_back(arg);
            }
            continue;
        }
        if (arg == "--") {
            options_ended = true;
            continue;
        }
        std::optional<std::string> inline_value;
        if (auto eq = arg.find('='); eq != std::string::npos && arg.starts_with("--")) {
            inline_value = arg.substr(eq + 1);
            arg.resize(eq);
        }
        std::string where = found ? "agentrt " + line.command : std::string("agentrt");
        if (takes_value(found, arg)) {
            if (!inline_value && i + 1 >= args.size())
                throw usage_error(arg + " needs a value");
            line.values[arg] = inline_value ? *inline_value : args[++i];
        } else if (is_flag(found, arg) && !inline_value) {
            line.flags.insert(arg == "-h" ? "--help" : arg);
        } else {
            throw usage_error("unknown option " + sanitize(arg, 40) + " for " + where + "; see " + where + " --help");
        }
    }
    return line;
}

int run(std::vector<std::string> const& args) {
    auto commands = all_commands();
    command const* c = nullptr;
    command_line line;
    try {
        line = parse(args, commands, c);
        if (!c) {
            if (line.has("--help")) {
                std::cout << tool_help(commands);
                return exit_ok;
            }
            throw usage_error("no command given");
        }
        if (line.has("--help")) {
            std::cout << command_help(*c);
            return exit_ok;
        }
        if (line.positional.size() < c->min_args || line.positional.size() > c->max_args)
            throw usage_error("wrong number of arguments for agentrt " + line.command);
        context ctx{line.value("--store"), line.has("--json"), std::cout, std::cerr};
        if (ctx.store_path && ctx.store_path->empty())
            throw usage_error("--store wants a store directory, got an empty path");
        if (!ctx.store_path)
            if (char const* env = std::getenv("AGENTRT_STORE"); env && *env)
                ctx.store_path = env;
        return c->run(ctx, line);
    } catch (usage_error const& e) {
        std::cerr << "agentrt: " << e.what() << "\n";
        if (c)
            std::cerr << "usage: agentrt [--store PATH] [--json] " << c->synopsis << "\n";
        else
            std::cerr << "usage: agentrt [--store PATH] [--json] COMMAND [ARGS]; agentrt --help lists the commands\n";
        return exit_usage;
    } catch (failure const& e) {
        std::cerr << "agentrt: " << e.what() << "\n";
        return exit_failed;
    } catch (agentrt::exception const& e) {
        std::cerr << "agentrt: " << sanitize(e.error().to_string()) << "\n";
        return exit_failed;
    } catch (std::exception const& e) {
        std::cerr << "agentrt: " << sanitize(e.what()) << "\n";
        return exit_failed;
    }
}

} // namespace

agentrt::store context::open_store() const {
    if (!store_path)
        throw usage_error("no store given: pass --store PATH or set AGENTRT_STORE");
    store_options options;
    options.access = store_access::operator_only;
    auto s = agentrt::store::open(*store_path, options);
    if (!s)
        throw failure(sanitize(s.error().to_string()));
    return std::move(*s);
}

} // namespace agentrt::cli

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    return agentrt::cli::run(args);
}
