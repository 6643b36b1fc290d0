#include <agentrt/testkit/simulated_process.hpp>

#include <agentrt/testkit/engine_decorator.hpp>

#include <atomic>
#include <map>
#include <mutex>

namespace agentrt::testkit {
namespace {
// Above any real process id, and never handed out twice in a process, by any machine.
std::atomic<std::int64_t> next_pid{std::int64_t{1} << 32};
} // namespace

struct simulated_machine::state {
    std::shared_ptr<agentrt::engine> real;
    std::mutex mutex;
    std::map<std::int64_t, std::weak_ptr<std::atomic<bool>>> crashed_by_pid;

    bool alive(lease_record const& lease) {
        {
            std::lock_guard lock(mutex);
            if (auto it = crashed_by_pid.find(lease.pid); it != crashed_by_pid.end()) {
                auto crashed = it->second.lock();
                return !lease.owner.empty() && crashed && !*crashed;
            }
        }
        return real->holder_alive(lease);
    }
};

struct simulated_process::engine final : engine_decorator {
    engine(std::shared_ptr<simulated_machine::state> m, std::int64_t id)
        : engine_decorator(m->real), machine(std::move(m)), pid(id) {}

    std::shared_ptr<simulated_machine::state> machine;
    std::int64_t pid = 0;
    std::shared_ptr<std::atomic<bool>> crashed = std::make_shared<std::atomic<bool>>(false);

    void check_alive() const {
        if (*crashed)
            throw simulated_process_crashed{};
    }

    void write(std::function<void(engine_writer&)> const& work, bool flush) override {
        check_alive();
        engine_decorator::write(
            [&](engine_writer& w) {
                work(w);
                check_alive(); // the transaction aborts with the unwinding
            },
            flush);
    }
    std::int64_t process_id() const noexcept override { return pid; }
    bool holder_alive(lease_record const& lease) const override { return machine->alive(lease); }
};

simulated_machine::simulated_machine(store const& real) : state_(std::make_shared<state>()) {
    state_->real = real.engine();
}

simulated_process simulated_machine::process() {
    std::lock_guard lock(state_->mutex);
    auto e = std::make_shared<simulated_process::engine>(state_, next_pid++);
    state_->crashed_by_pid.emplace(e->pid, e->crashed);
    return simulated_process(std::move(e));
}

bool simulated_machine::alive(std::int64_t pid) const {
    std::lock_guard lock(state_->mutex);
    auto it = state_->crashed_by_pid.find(pid);
    if (it == state_->crashed_by_pid.end())
        return false;
    auto crashed = it->second.lock();
    return crashed && !*crashed;
}

simulated_process::simulated_process(std::shared_ptr<engine> e) : store(e), engine_(std::move(e)) {}

void simulated_process::crash() noexcept {
    *engine_->crashed = true;
}

bool simulated_process::crashed() const noexcept {
    return *engine_->crashed;
}

} // namespace agentrt::testkit
