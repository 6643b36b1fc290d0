// agentrt: the operator's command over a store (docs/operator.md).
#include "cli.hpp"

#include <agentrt/catalog/error.hpp>

#include <cstdlib>
#include <iostream>

namespace agentrt::cli {
namespace {

int run(std::vector<std::string> const& args) {
    auto commands = all_commands();
    command const* c = nullptr;
    try {
        auto parsed = parse_command_line(args, commands);
        c = parsed.found;
        if (parsed.help) {
            std::cout << *parsed.help;
            return exit_ok;
        }
        auto const& line = parsed.line;
        context ctx{line.value("--store"), line.has("--json"), std::cout, std::cerr};
        if (ctx.store_path && ctx.store_path->empty())
            throw usage_error("--store wants a store directory, got an empty path");
        if (!ctx.store_path)
            if (char const* env = std::getenv("AGENTRT_STORE"); env && *env)
                ctx.store_path = env;
        return c->run(ctx, line);
    } catch (usage_error const& e) {
        if (auto const* refusal = dynamic_cast<parse_refusal const*>(&e))
            c = refusal->in;
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

std::vector<command> all_commands() {
    std::vector<command> all;
    for (auto part : {read_commands(), decide_commands(), store_commands()})
        all.insert(all.end(), part.begin(), part.end());
    return all;
}

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
