#include "stdio.hpp"
#include "transport.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace agentrt::mcp::detail {
namespace {

using namespace std::chrono;

error failed(std::string message) {
    return error{errc::server_failed, std::move(message), {}};
}

void close_fd(int& fd) noexcept {
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

struct pipe_pair {
    int read = -1, write = -1;
    ~pipe_pair() {
        close_fd(read);
        close_fd(write);
    }
};

bool open_pipe(pipe_pair& p) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return false;
    p.read = fds[0];
    p.write = fds[1];
    return true;
}

// A write to a pipe whose reader has gone raises SIGPIPE in the writing thread: it is blocked
// around the write and a pending one is taken back, so a dead server is an EPIPE, not our death.
class sigpipe_blocked {
public:
    sigpipe_blocked() {
        sigemptyset(&pipe_);
        sigaddset(&pipe_, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
    }
    ~sigpipe_blocked() {
        timespec zero{};
        while (sigtimedwait(&pipe_, nullptr, &zero) > 0) {
        }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }

private:
    sigset_t pipe_{}, old_{};
};

int milliseconds_until(steady_clock::time_point deadline) {
    if (deadline == steady_clock::time_point::max())
        return 100;
    auto left = duration_cast<milliseconds>(deadline - steady_clock::now()).count();
    return int(std::clamp<long long>(left, 0, 100));
}

} // namespace

result<std::unique_ptr<stdio_process>> stdio_process::spawn(stdio_server const& server, std::size_t max_stderr) {
    if (server.command.empty())
        return failed("MCP server \"" + server.name + "\" has no command to start");
    pipe_pair in, out, err;
    if (!open_pipe(in) || !open_pipe(out) || !open_pipe(err))
        return failed("MCP server \"" + server.name + "\": cannot make pipes: " + std::strerror(errno));

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in.read, 0);
    posix_spawn_file_actions_adddup2(&actions, out.write, 1);
    posix_spawn_file_actions_adddup2(&actions, err.write, 2);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setpgroup(&attributes, 0);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);

    // The operator's settings replace inherited ones of the same name: getenv takes the first it finds.
    auto name_of = [](std::string_view setting) { return setting.substr(0, setting.find('=')); };
    std::vector<std::string> environment;
    for (char** e = environ; *e; ++e)
        if (std::none_of(server.environment.begin(), server.environment.end(),
                         [&](std::string const& mine) { return name_of(mine) == name_of(*e); }))
            environment.emplace_back(*e);
    environment.insert(environment.end(), server.environment.begin(), server.environment.end());
    std::vector<char*> envp, argv;
    for (auto& e : environment)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    std::vector<std::string> command = server.command;
    for (auto& a : command)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    pid_t pid = -1;
    int rc = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (rc != 0)
        return failed("MCP server \"" + server.name + "\": cannot start " + server.command.front() + ": " +
                      std::strerror(rc));

    std::unique_ptr<stdio_process> p(new stdio_process);
    p->pid_ = pid;
    std::swap(p->stdin_, in.write);
    std::swap(p->stdout_, out.read);
    std::swap(p->stderr_, err.read);
    ::fcntl(p->stdin_, F_SETFL, ::fcntl(p->stdin_, F_GETFL) | O_NONBLOCK);
    p->stderr_reader_ = std::thread([q = p.get(), max_stderr] { q->keep_stderr(max_stderr); });
    return p;
}

stdio_process::~stdio_process() {
    stop(milliseconds(2'000));
    stderr_stopping_ = true; // a helper that left the group may hold stderr open
    if (stderr_reader_.joinable())
        stderr_reader_.join();
    close_fd(stdout_);
    close_fd(stderr_);
}

result<void> stdio_process::write_line(std::string_view message, steady_clock::time_point deadline,
                                       std::stop_token stop) {
    std::lock_guard lock(write_mutex_);
    if (stdin_ < 0)
        return failed("its stdin is closed");
    std::string line(message);
    line += '\n';
    std::size_t sent = 0;
    sigpipe_blocked guard;
    while (sent < line.size()) {
        ssize_t n = ::write(stdin_, line.data() + sent, line.size() - sent);
        if (n > 0) {
            sent += std::size_t(n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN)
            return failed(errno == EPIPE ? "it closed its stdin"
                                         : std::string("writing to it failed: ") + std::strerror(errno));
        if (steady_clock::now() >= deadline || stop.stop_requested() || closing_) {
            if (sent == 0)
                return error{errc::timed_out,
                             stop.stop_requested() ? "the call was stopped before the server read it"
                                                   : "it read nothing of its stdin before the deadline",
                             {}};
            // Half a line is in the pipe: whatever is written next would be glued to it.
            close_fd(stdin_);
            return failed("it stopped reading its stdin in the middle of a message, so its stdin was closed");
        }
        pollfd p{stdin_, POLLOUT, 0};
        ::poll(&p, 1, milliseconds_until(deadline));
    }
    return {};
}

void stdio_process::read_lines(std::size_t max_line, std::function<void(std::string_view)> const& line,
                               std::function<void(std::string)> const& closed) {
    std::string buffer;
    char chunk[65536];
    while (!stopping_) {
        pollfd p{stdout_, POLLIN, 0};
        int ready = ::poll(&p, 1, 100);
        if (ready <= 0)
            continue;
        ssize_t n = ::read(stdout_, chunk, sizeof chunk);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0) {
            if (!buffer.empty())
                line(buffer); // a last message without its newline
            return closed("it closed its stdout (" + exit_description() + ")");
        }
        std::size_t scanned = buffer.size();
        buffer.append(chunk, std::size_t(n));
        std::size_t start = 0;
        for (auto nl = buffer.find('\n', scanned); nl != std::string::npos; nl = buffer.find('\n', start)) {
            std::string_view one(buffer.data() + start, nl - start);
            if (!one.empty() && one.back() == '\r')
                one.remove_suffix(1);
            if (one.size() > max_line)
                return closed("it sent a message of " + std::to_string(one.size()) + " bytes, over the cap of " +
                              std::to_string(max_line));
            if (!one.empty())
                line(one);
            start = nl + 1;
        }
        buffer.erase(0, start);
        if (buffer.size() > max_line)
            return closed("it sent a message over the cap of " + std::to_string(max_line) + " bytes");
    }
}

void stdio_process::keep_stderr(std::size_t max) {
    char chunk[4096];
    while (!stderr_stopping_) {
        pollfd p{stderr_, POLLIN, 0};
        if (::poll(&p, 1, 100) <= 0)
            continue;
        ssize_t n = ::read(stderr_, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        std::lock_guard lock(stderr_mutex_);
        stderr_tail_.append(chunk, std::size_t(n));
        if (stderr_tail_.size() > max)
            stderr_tail_.erase(0, stderr_tail_.size() - max);
    }
}

std::string stdio_process::stderr_tail() const {
    std::lock_guard lock(stderr_mutex_);
    return stderr_tail_;
}

bool stdio_process::reap(milliseconds wait) {
    std::lock_guard lock(reap_mutex_);
    auto const until = steady_clock::now() + wait;
    while (!reaped_) {
        pid_t r = ::waitpid(pid_, &status_, WNOHANG);
        if (r == pid_ || (r < 0 && errno == ECHILD)) {
            reaped_ = true;
            break;
        }
        if (steady_clock::now() >= until)
            break;
        std::this_thread::sleep_for(milliseconds(5));
    }
    return reaped_;
}

std::string stdio_process::exit_description() {
    if (!reap(milliseconds(200)))
        return "it is still running";
    if (WIFEXITED(status_))
        return "it exited with status " + std::to_string(WEXITSTATUS(status_));
    if (WIFSIGNALED(status_))
        return "it was killed by signal " + std::to_string(WTERMSIG(status_));
    return "it ended";
}

void stdio_process::stop(milliseconds grace) {
    closing_ = true; // a write waiting on a server that reads nothing gives up within its next poll
    {
        std::lock_guard lock(write_mutex_);
        close_fd(stdin_);
    }
    if (pid_ < 0)
        return;
    if (!reap(grace)) {
        ::kill(-pid_, SIGTERM);
        if (!reap(grace)) {
            ::kill(-pid_, SIGKILL);
            reap(hours(1));
        }
    }
    ::kill(-pid_, SIGKILL); // what the server started and left behind in its group
}

namespace {

// The process's pipes as a transport: a thread reads its stdout, one message per line.
class stdio_pipes final : public transport {
public:
    stdio_pipes(std::unique_ptr<stdio_process> process, std::size_t max_message)
        : process_(std::move(process)), max_message_(max_message) {}
    ~stdio_pipes() override { close(milliseconds(2'000)); }

    void receive(receiver to) override {
        reader_ =
            std::thread([this, to = std::move(to)] { process_->read_lines(max_message_, to.message, to.broken); });
    }
    result<void> send(std::string_view message, time_point deadline, std::stop_token stop) override {
        return process_->write_line(message, deadline, std::move(stop));
    }
    void stop_receiving() noexcept override { process_->stop_reading(); }
    void close(milliseconds grace) override {
        process_->stop(grace);
        process_->stop_reading();
        if (reader_.joinable())
            reader_.join();
    }
    std::string diagnostics() const override { return process_->stderr_tail(); }

private:
    std::unique_ptr<stdio_process> process_;
    std::size_t max_message_;
    std::thread reader_;
};

} // namespace

result<std::unique_ptr<transport>> stdio_transport(stdio_server const& server, client_options const& options) {
    auto process = stdio_process::spawn(server, options.max_stderr_bytes);
    if (!process)
        return process.error();
    return std::unique_ptr<transport>(new stdio_pipes(std::move(*process), options.max_message_bytes));
}

} // namespace agentrt::mcp::detail
