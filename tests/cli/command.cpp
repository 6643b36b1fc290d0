#include "command.hpp"
#include <agentrt/testkit/scripted_agent.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <fcntl.h>
#include <pty.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

extern char** environ;

namespace cli_test {
namespace {

std::string slurp(fs::path const& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> environment(run_options const& options) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
        if (!std::string_view(*e).starts_with("AGENTRT_STORE="))
            env.emplace_back(*e);
    env.insert(env.end(), options.env.begin(), options.env.end());
    return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (auto& s : strings)
        out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

int wait_for(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

outcome with_files(std::vector<std::string>& argv, std::vector<std::string>& env, run_options const& options) {
    temp_dir io;
    fs::path in = io.path / "in", out = io.path / "out", err = io.path / "err";
    std::ofstream(in, std::ios::binary) << options.input;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, in.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid = 0;
    auto args = pointers(argv), envp = pointers(env);
    int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    REQUIRE(rc == 0);
    outcome o;
    o.status = wait_for(pid);
    o.out = slurp(out);
    o.err = slurp(err);
    return o;
}

outcome with_terminal(std::vector<std::string>& argv, std::vector<std::string>& env, run_options const& options) {
    int master = -1, slave = -1;
    REQUIRE(::openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
    ::fcntl(master, F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    for (int fd : {0, 1, 2})
        posix_spawn_file_actions_adddup2(&actions, slave, fd);
    posix_spawn_file_actions_addclose(&actions, slave);
    pid_t pid = 0;
    auto args = pointers(argv), envp = pointers(env);
    int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(slave);
    REQUIRE(rc == 0);
    outcome o;
    char buffer[4096];
    while (!options.wait_for.empty() && o.out.find(options.wait_for) == std::string::npos) {
        ssize_t n = ::read(master, buffer, sizeof buffer);
        if (n <= 0 && errno != EINTR)
            break;
        if (n > 0)
            o.out.append(buffer, static_cast<std::size_t>(n));
    }
    if (options.before_typing)
        options.before_typing();
    // The line discipline keeps what is typed until the command reads it.
    REQUIRE(::write(master, options.input.data(), options.input.size()) == static_cast<ssize_t>(options.input.size()));
    for (;;) {
        ssize_t n = ::read(master, buffer, sizeof buffer);
        if (n > 0)
            o.out.append(buffer, static_cast<std::size_t>(n));
        else if (n < 0 && errno == EINTR)
            continue;
        else
            break; // EIO once the command has exited and closed the terminal
    }
    ::close(master);
    o.status = wait_for(pid);
    return o;
}

} // namespace

outcome run_command(std::vector<std::string> const& args, run_options const& options) {
    std::vector<std::string> argv{AGENTRT_CLI_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    auto env = environment(options);
    outcome o = options.terminal ? with_terminal(argv, env, options) : with_files(argv, env, options);
    return o;
}

outcome on_store(fs::path const& store, std::vector<std::string> args, run_options const& options) {
    args.insert(args.begin(), {"--store", store.string()});
    return run_command(args, options);
}

agentrt::verdict ask_for_send(agentrt::tool_entry const& t, agentrt::arguments const&, agentrt::run_view const&) {
    if (t.name == "send_message")
        return agentrt::require_approval("external_message", "a message leaves the company", {{"may", "send"}},
                                         {{"text", "send a message to a@b.c"}});
    return agentrt::allow();
}

std::string send_with_subject(std::string const& subject) {
    boost::json::object args = boost::json::parse(send_args).as_object();
    args["subject"] = subject;
    return boost::json::serialize(args);
}

std::string start_waiting(world& w, agentrt::store& s, std::string const& goal, std::string const& subject) {
    w.decide = ask_for_send;
    agentrt::testkit::scripted_agent agent(
        {agentrt::decision::call("send_message", send_with_subject(subject)), agentrt::decision::complete("sent")});
    agentrt::driver d(s, w.table, w.policy, agent, w.options());
    auto run = d.start(goal).value();
    REQUIRE(run.status == agentrt::run_status::waiting_for_approval);
    return run.id;
}

std::string run_to_completion(world& w, agentrt::store& s, std::string const& goal) {
    agentrt::testkit::scripted_agent agent(
        {agentrt::decision::call("lookup_order", lookup_args), agentrt::decision::complete("shipped")});
    agentrt::driver d(s, w.table, w.policy, agent, w.options());
    auto run = d.start(goal).value();
    REQUIRE(run.status == agentrt::run_status::completed);
    return run.id;
}

std::vector<std::string> lines(std::string const& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

} // namespace cli_test
