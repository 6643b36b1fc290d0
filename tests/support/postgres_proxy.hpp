// A proxy on a Unix socket in front of a test PostgreSQL server, passing the protocol's bytes both
// ways, that can lose one answer: the server has done what it was asked, and the client never hears.
//
//     test_support::postgres_proxy proxy(test_support::fresh_postgres_store());
//     auto s = agentrt::store::open(proxy.location()).value();
//     proxy.lose_answer_to_commit_with("agentrt_2_expect_"); // the next such COMMIT is done, then cut
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace test_support {

class postgres_proxy {
public:
    // Throws std::runtime_error when `location` names no Unix socket directory or the proxy cannot listen.
    explicit postgres_proxy(std::string const& location);
    ~postgres_proxy();
    postgres_proxy(postgres_proxy const&) = delete;
    postgres_proxy& operator=(postgres_proxy const&) = delete;

    // `location` with its host the proxy's socket directory.
    std::string const& location() const noexcept { return location_; }

    // The next simple query that ends in COMMIT and holds `marker` goes to the server; its
    // answer, once it says the COMMIT was done, is dropped and both sides of that connection closed.
    void lose_answer_to_commit_with(std::string marker);
    int answers_lost() const noexcept { return lost_; }

private:
    void accept_connections();
    void pump(int client, int server);
    bool is_the_commit(std::string_view query);

    std::string dir_, server_socket_, location_;
    int listener_ = -1;
    int stop_pipe_[2] = {-1, -1};
    std::mutex mutex_;
    std::string marker_;    // armed while not empty
    std::vector<int> live_; // the sockets of the pumps still running
    std::atomic<int> lost_{0};
    std::jthread acceptor_;
    std::vector<std::jthread> pumps_; // the acceptor's alone, until it has ended
};

} // namespace test_support
