#include "support/postgres_proxy.hpp"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace test_support {
namespace {

sockaddr_un address_of(std::string const& path) {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    if (path.size() >= sizeof a.sun_path)
        throw std::runtime_error("socket path too long: " + path);
    std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
    return a;
}

bool send_all(int fd, char const* data, std::size_t size) {
    while (size > 0) {
        auto n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

std::uint32_t big_endian(char const* p) {
    auto b = [&](int i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(p[i])); };
    return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}

// What the server's messages so far say: a COMMIT done (CommandComplete "COMMIT"), the answer ended
// (ReadyForQuery).
struct answer_seen {
    bool committed = false, ended = false;
};
answer_seen answer_so_far(std::string const& bytes) {
    answer_seen seen;
    for (std::size_t at = 0; bytes.size() - at >= 5;) {
        std::size_t const size = 1 + big_endian(bytes.data() + at + 1);
        if (size < 5 || bytes.size() - at < size)
            break;
        seen.committed |= bytes[at] == 'C' && std::string_view(bytes).substr(at + 5, size - 5).starts_with("COMMIT");
        seen.ended |= bytes[at] == 'Z';
        at += size;
    }
    return seen;
}

} // namespace

postgres_proxy::postgres_proxy(std::string const& location) {
    auto at = location.find("host=");
    if (at == std::string::npos)
        throw std::runtime_error("postgres_proxy: no host= in " + location);
    at += 5;
    auto const end = location.find('&', at);
    std::string const host = location.substr(at, end - at);
    std::string socket_name;
    for (auto const& entry : std::filesystem::directory_iterator(host)) {
        auto name = entry.path().filename().string();
        if (name.starts_with(".s.PGSQL.") && !name.ends_with(".lock"))
            socket_name = name;
    }
    if (socket_name.empty())
        throw std::runtime_error("postgres_proxy: no server socket in " + host);
    server_socket_ = host + "/" + socket_name;
    static std::atomic<int> counter{0};
    dir_ = "/tmp/agentrt-px-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
    std::filesystem::create_directories(dir_);
    location_ = location.substr(0, at) + dir_ + (end == std::string::npos ? "" : location.substr(end));

    if (::pipe(stop_pipe_) != 0)
        throw std::runtime_error("postgres_proxy: pipe failed");
    listener_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    auto a = address_of(dir_ + "/" + socket_name);
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::listen(listener_, 16) != 0)
        throw std::runtime_error("postgres_proxy: cannot listen in " + dir_ + ": " + std::strerror(errno));
    acceptor_ = std::jthread([this] { accept_connections(); });
}

postgres_proxy::~postgres_proxy() {
    char const stop = 0;
    (void)::write(stop_pipe_[1], &stop, 1); // read by no one: every poll sees it, until the end
    acceptor_.join();
    {
        std::lock_guard lock(mutex_); // a pump blocked sending to a peer that does not read wakes too
        for (int fd : live_)
            ::shutdown(fd, SHUT_RDWR);
    }
    pumps_.clear(); // joins them
    ::close(listener_);
    ::close(stop_pipe_[0]);
    ::close(stop_pipe_[1]);
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
}

void postgres_proxy::lose_answer_to_commit_with(std::string marker) {
    std::lock_guard lock(mutex_);
    marker_ = std::move(marker);
}

bool postgres_proxy::is_the_commit(std::string_view query) {
    while (!query.empty() && (query.back() == '\0' || query.back() == ';' || query.back() == '\n'))
        query.remove_suffix(1);
    std::lock_guard lock(mutex_);
    if (marker_.empty() || !query.ends_with("COMMIT") || query.find(marker_) == std::string_view::npos)
        return false;
    marker_.clear();
    return true;
}

void postgres_proxy::accept_connections() {
    for (;;) {
        pollfd fds[2] = {{listener_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0 && errno != EINTR)
            return;
        if (fds[1].revents != 0)
            return;
        if ((fds[0].revents & POLLIN) == 0)
            continue;
        int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0)
            continue;
        int server = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        auto a = address_of(server_socket_);
        if (server < 0 || ::connect(server, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
            ::close(client);
            if (server >= 0)
                ::close(server);
            continue;
        }
        {
            std::lock_guard lock(mutex_);
            live_.insert(live_.end(), {client, server});
        }
        pumps_.emplace_back([this, client, server] { pump(client, server); });
    }
}

// The client's bytes go on whole message by whole message, so that the COMMIT to cut is known
// before the server can answer it; the server's go on as they come.
void postgres_proxy::pump(int client, int server) {
    std::string from_client, from_server;
    bool startup = true; // the first messages have no type byte: startup, or a request for TLS first
    bool cut = false;
    char buffer[1 << 16];
    for (;;) {
        pollfd fds[3] = {{client, POLLIN, 0}, {server, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
        if (::poll(fds, 3, -1) < 0 && errno != EINTR)
            break;
        if (fds[2].revents != 0)
            break;
        if (fds[1].revents != 0) {
            auto n = ::recv(server, buffer, sizeof buffer, 0);
            if (n <= 0)
                break;
            if (cut) { // held until it says COMMIT: then the server has written it, and it is lost
                from_server.append(buffer, static_cast<std::size_t>(n));
                auto answer = answer_so_far(from_server);
                if (answer.committed) {
                    ++lost_;
                    break;
                }
                if (!answer.ended)
                    continue;
                cut = false; // it answered without committing: nothing to lose
                if (!send_all(client, from_server.data(), from_server.size()))
                    break;
                from_server.clear();
            } else if (!send_all(client, buffer, static_cast<std::size_t>(n))) {
                break;
            }
        }
        if (fds[0].revents != 0) {
            auto n = ::recv(client, buffer, sizeof buffer, 0);
            if (n <= 0)
                break;
            from_client.append(buffer, static_cast<std::size_t>(n));
            bool sent = true;
            for (;;) {
                std::size_t const head = startup ? 4 : 5;
                if (from_client.size() < head)
                    break;
                std::size_t const size = (startup ? 0 : 1) + big_endian(from_client.data() + head - 4);
                if (size < head) { // not the protocol: nothing sensible to pass on
                    sent = false;
                    break;
                }
                if (from_client.size() < size)
                    break;
                if (startup) { // 80877103 asks for TLS, 80877104 for GSSAPI: the startup follows
                    auto code = size >= 8 ? big_endian(from_client.data() + 4) : 0;
                    startup = code == 80877103 || code == 80877104;
                } else if (from_client[0] == 'Q' && is_the_commit(std::string_view(from_client).substr(5, size - 5))) {
                    cut = true;
                }
                sent = send_all(server, from_client.data(), size);
                from_client.erase(0, size);
                if (!sent)
                    break;
            }
            if (!sent)
                break;
        }
    }
    {
        std::lock_guard lock(mutex_);
        std::erase_if(live_, [&](int fd) { return fd == client || fd == server; });
    }
    ::close(client);
    ::close(server);
}

} // namespace test_support
