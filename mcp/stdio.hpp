// The stdio transport's process: a server started with its stdin, stdout and stderr on pipes.
#pragma once

#include <agentrt/catalog/error.hpp>
#include <agentrt/mcp/client.hpp>

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>

namespace agentrt::mcp::detail {

class stdio_process {
public:
    // Starts `server.command` in a process group of its own. The stderr tail keeps `max_stderr` bytes.
    static result<std::unique_ptr<stdio_process>> spawn(stdio_server const& server, std::size_t max_stderr);

    stdio_process(stdio_process const&) = delete;
    stdio_process& operator=(stdio_process const&) = delete;
    ~stdio_process();

    // The message and a newline, written before `deadline` or `stop` (a server that stops reading its
    // stdin does not block the caller past either): errc::timed_out when nothing was written, and
    // when part of it was, stdin is closed, since anything written next would be glued to it.
    result<void> write_line(std::string_view message, std::chrono::steady_clock::time_point deadline,
                            std::stop_token stop = {});

    // Reads stdout on the calling thread until end of file, a line over `max_line` bytes or
    // stop_reading(): `line` gets each line, `closed` one reason at the end.
    void read_lines(std::size_t max_line, std::function<void(std::string_view)> const& line,
                    std::function<void(std::string)> const& closed);
    void stop_reading() noexcept { stopping_ = true; }

    // Closes stdin, waits `grace`, then SIGTERM to the group, waits `grace`, then SIGKILL.
    void stop(std::chrono::milliseconds grace);

    std::string stderr_tail() const;
    // "exited with status 3", "was killed by signal 9", or "is still running".
    std::string exit_description();

private:
    stdio_process() = default;
    bool reap(std::chrono::milliseconds wait);
    void keep_stderr(std::size_t max);

    pid_t pid_ = -1;
    int stdin_ = -1, stdout_ = -1, stderr_ = -1;
    std::atomic<bool> stopping_{false}, stderr_stopping_{false}, closing_{false};
    std::mutex write_mutex_;
    mutable std::mutex stderr_mutex_;
    std::string stderr_tail_;
    std::thread stderr_reader_;
    std::mutex reap_mutex_;
    bool reaped_ = false;
    int status_ = 0;
};

} // namespace agentrt::mcp::detail
