// What the crash harness's parts share (private to testkit/).
#pragma once

#include <agentrt/testkit/faults.hpp>
#include <agentrt/testkit/scenario.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace agentrt::testkit {

// run_scenario, killing process N with SIGKILL kills[N] after its start (process mode).
scenario_result run_scenario_killed(scenario const& s, std::vector<crash> const& crashes,
                                    std::vector<std::chrono::microseconds> const& kills);

// run_scenario in simulated processes, the first one's store failing with `f`; `fired`: whether it did.
scenario_result run_scenario_faulted(scenario const& s, fault const& f, bool& fired);

// The crash points an uncrashed run of a scenario reached, in the order it reached them.
std::vector<crash> reachable_points(scenario_result const& baseline);

// The scenario's crashes, resumes, store and problems, for a failure report.
std::string describe(scenario_result const& r, std::vector<crash> const& crashes);

} // namespace agentrt::testkit
