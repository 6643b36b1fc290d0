// Runs the agentrt command as a subprocess, as an operator would, and builds the stores it reads:
// by real runs through the driver (the test catalogue, a policy that asks for approval) and by
// records written directly through store::write.
#pragma once

#include "runtime/fixture.hpp"

#include <functional>
#include <string>
#include <vector>

// Shows the command's exit status and output with any failing check after it.
#define SHOW(o) INFO("agentrt exit ", (o).status, "\nstdout:\n", (o).out, "\nstderr:\n", (o).err)

namespace cli_test {

using namespace runtime_test;

struct outcome {
    int status = -1; // the exit status
    std::string out;
    std::string err;
};

struct run_options {
    std::string input{};            // standard input (a file, so never a terminal)
    std::vector<std::string> env{}; // NAME=VALUE added to the environment (AGENTRT_STORE is removed)
    bool terminal = false;
    // With a terminal: called once the command has printed `wait_for`, before `input` is typed.
    std::string wait_for{};
    std::function<void()> before_typing{}; // standard input, output and error on a pseudo-terminal
};

// `agentrt ARGS...`; with a terminal, `input` is typed into it and output holds stdout and stderr both.
outcome run_command(std::vector<std::string> const& args, run_options const& options = {});

// `agentrt --store PATH ARGS...`
outcome on_store(fs::path const& store, std::vector<std::string> args, run_options const& options = {});

// The policy of these tests: every send_message call needs an approval, anything else runs.
agentrt::verdict ask_for_send(agentrt::tool_entry const& t, agentrt::arguments const&, agentrt::run_view const&);

// send_message arguments with this subject.
std::string send_with_subject(std::string const& subject);

// Runs a goal whose first step sends a message (and so waits for approval); the run's id.
std::string start_waiting(world& w, agentrt::store& s, std::string const& goal = "send hi",
                          std::string const& subject = "hi");
// Runs a goal that looks an order up and completes; the run's id.
std::string run_to_completion(world& w, agentrt::store& s, std::string const& goal = "look up ord-1");

// The lines of `text`.
std::vector<std::string> lines(std::string const& text);

} // namespace cli_test
