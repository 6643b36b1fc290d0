// agentrt: the operator's command over a store (docs/operator.md).
#include "cli.hpp"

#include <agentrt/catalog/error.hpp>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace agentrt::cli {
namespace {

// LMDB 0.9 keeps no page checksums, so a damaged page can send a read through a wild pointer or
// fail one of LMDB's assertions: a signal, not an error. The command runs in a child process, and a
// child stopped by SIGSEGV, SIGBUS or SIGABRT is reported as a damaged store, with its own exit
// status, instead of killing the operator's command. What the child printed before it stopped is
// incomplete.
int run_in_child(command const& c, context& ctx, command_line const& line) {
    std::function<void()> undo = c.before_damage ? c.before_damage(line) : nullptr;
    std::cout.flush();
    std::cerr.flush();
    pid_t child = ::fork();
    if (child < 0)
        throw failure(std::string("cannot start the command: fork failed: ") + std::strerror(errno));
    if (child == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        for (int sig : {SIGSEGV, SIGBUS, SIGABRT})
            std::signal(sig, SIG_DFL); // a sanitizer's handler would turn the signal into an exit status
        int status = exit_failed;
        try {
            status = c.run(ctx, line);
        } catch (...) {
            std::cout.flush();
            throw; // reported by run(), in this process
        }
        std::cout.flush();
        std::cerr.flush();
        std::_Exit(status);
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0)
        if (errno != EINTR)
            throw failure(std::string("cannot wait for the command: ") + std::strerror(errno));
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    int sig = WTERMSIG(status);
    if (sig != SIGSEGV && sig != SIGBUS && sig != SIGABRT) {
        std::signal(sig, SIG_DFL);
        ::raise(sig); // stopped from outside (SIGTERM, SIGKILL): stop the same way
        return exit_failed;
    }
    if (undo)
        undo();
    std::string store = ctx.store_path ? "store " + sanitize(*ctx.store_path, 200)
                                       : (line.positional.empty() ? std::string("the store")
                                                                  : "store " + sanitize(line.positional[0], 200));
    std::cerr << "agentrt: " << store << " is damaged: reading it stopped the reader with "
              << (sig == SIGSEGV  ? "SIGSEGV"
                  : sig == SIGBUS ? "SIGBUS"
                                  : "SIGABRT")
              << " (a page LMDB cannot read safely); any output above is incomplete. Restore the store from a backup "
                 "(a copy `agentrt backup` made), then resume its runs\n";
    return exit_damaged;
}

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
        return run_in_child(*c, ctx, line);
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
        return e.status;
    } catch (agentrt::exception const& e) {
        std::cerr << "agentrt: " << sanitize(e.error().to_string()) << "\n";
        return e.error().code == errc::store_damaged ? exit_damaged : exit_failed;
    } catch (std::exception const& e) {
        std::cerr << "agentrt: " << sanitize(e.what()) << "\n";
        return exit_failed;
    }
}

} // namespace

std::vector<command> all_commands() {
    std::vector<command> all;
    for (auto part : {read_commands(), decide_commands(), store_commands(), mcp_commands()})
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
        throw failure(s.error(), sanitize(s.error().to_string()));
    return std::move(*s);
}

} // namespace agentrt::cli

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    return agentrt::cli::run(args);
}
