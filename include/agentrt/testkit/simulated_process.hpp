// agentrt/testkit/simulated_process.hpp — processes of one machine simulated inside a test, and
// their crashes.
//
//     agentrt::testkit::simulated_machine machine(store);
//     auto dying = machine.process();            // a store, as another process of this host has it
//     agentrt::gate g(dying, tools, policy);
//     ...
//     dying.crash();                             // from here on it writes nothing, from any thread
//
// A decorator of the store's engine (engine.hpp), as SQLite's crash-test VFS sits below its pager:
// the runtime cannot tell a simulated process from a real one. Each process has its own id in
// leases and its own observers; LMDB allows one environment per process, so the processes of a
// test share the engine of the store the machine was made from. Only the machine's processes know
// which simulated processes live: the store the machine was made from sees every one as dead, so a
// test that asks about a live one asks through a process of the machine (or `alive`).
#pragma once

#include <agentrt/runtime/store.hpp>

#include <cstdint>
#include <memory>

namespace agentrt::testkit {

// Thrown by every write through a simulated process that has crashed, so that the stack of the dead
// process unwinds without writing anything more. Deliberately not a std::exception: no error
// handling of the runtime, or of a consumer that catches std::exception, can swallow it.
struct simulated_process_crashed {};

class simulated_process;

class simulated_machine {
public:
    // The machine of the process that opened `real`; processes made from it share its engine.
    explicit simulated_machine(store const& real);

    // A new process of this machine, alive until it crashes or its last store is gone.
    simulated_process process();

    // Whether the simulated process `pid` is alive: until it crashes or its last store is gone
    // (false for a pid this machine did not make).
    bool alive(std::int64_t pid) const;

    struct state;

private:
    std::shared_ptr<state> state_;
};

// A store as one simulated process has it.
class simulated_process : public store {
public:
    // Kills the process as far as the store can tell: no commit through it reaches the store any
    // more, from any thread (each write throws simulated_process_crashed), the leases its sessions
    // hold stay held, and their holder counts as dead at once, as the kernel's lock release would
    // tell of a real process.
    void crash() noexcept;
    bool crashed() const noexcept;

private:
    friend class simulated_machine;
    struct engine;
    explicit simulated_process(std::shared_ptr<engine> e);
    std::shared_ptr<engine> engine_;
};

} // namespace agentrt::testkit
