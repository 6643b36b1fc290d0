#include <agentrt/testkit/report.hpp>
#include <agentrt/testkit/scenario.hpp>

#include "scenario_internal.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

namespace agentrt::testkit {

explore_summary explore(scenario const& s, source_location where) {
    auto started = std::chrono::steady_clock::now();
    explore_summary summary;
    auto baseline = run_scenario(s);
    if (!baseline.ok()) {
        ++summary.failures;
        current_reporter().fail(where, "explore: the scenario fails without any crash: " + describe(baseline, {}));
        return summary;
    }
    auto const points = reachable_points(baseline);
    for (auto const& c : points) {
        auto r = run_scenario(s, {c});
        ++summary.crashes_tried;
        summary.resumes += std::size_t(r.resumes);
        current_reporter().log("explore: " + std::to_string(summary.crashes_tried) + "/" +
                               std::to_string(points.size()) + " " + to_string(c) + ": " +
                               (r.ok() ? "ok" : std::to_string(r.problems.size()) + " problems") + ", " +
                               std::to_string(r.resumes) + " resumes");
        if (!r.ok()) {
            ++summary.failures;
            current_reporter().fail(where, "explore: " + describe(r, {c}));
        }
    }
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (summary.crashes_tried == 0)
        current_reporter().fail(where, "explore: the scenario reached no crash point, so nothing was explored");
    char line[160];
    std::snprintf(line, sizeof line, "explore: %zu crashes tried, %zu resumes, %zu failures, %.2f s (%s mode)",
                  summary.crashes_tried, summary.resumes, summary.failures, summary.seconds,
                  s.mode == crash_mode::simulated ? "simulated" : "process");
    current_reporter().log(line);
    return summary;
}

bool explore_random(scenario const& s, explore_random_options const& options, source_location where) {
    if (options.kill_anywhere && s.mode != crash_mode::process) {
        current_reporter().fail(where, "explore_random: kill_anywhere kills processes, so the scenario needs "
                                       "crash_mode::process");
        return false;
    }
    auto started = std::chrono::steady_clock::now();
    auto baseline = run_scenario(s);
    auto const span = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
    if (!baseline.ok()) {
        current_reporter().fail(where,
                                "explore_random: the scenario fails without any crash: " + describe(baseline, {}));
        return false;
    }
    auto const points = reachable_points(baseline);
    if (points.empty()) {
        current_reporter().fail(where, "explore_random: the scenario reached no crash point, so nothing was explored");
        return false;
    }

    std::size_t kills_landed = 0, crashes_fired = 0;
    // Kills land by the clock, so the shrunk schedule may pass when RapidCheck runs it again: the
    // report also carries the last failure seen.
    std::string last_failure;
    auto kill_anywhere = [&] {
        // Instants within the uncrashed run's duration: process N is killed kills[N] after its fork.
        auto kills = *rc::gen::container<std::vector<std::int64_t>>(
            *rc::gen::inRange<std::size_t>(0, options.max_crashes + 1),
            rc::gen::inRange<std::int64_t>(0, std::max<std::int64_t>(span.count(), 1)));
        std::vector<std::chrono::microseconds> schedule(kills.begin(), kills.end());
        auto r = run_scenario_killed(s, {}, schedule);
        kills_landed += std::size_t(r.resumes);
        if (!r.ok()) {
            std::string instants;
            for (auto k : kills)
                instants += (instants.empty() ? "" : ", ") + std::to_string(k) + " us";
            last_failure = "killed at [" + instants + "]: " + describe(r, {});
            RC_FAIL(last_failure);
        }
    };
    auto property = [&] {
        auto picked =
            *rc::gen::container<std::vector<std::size_t>>(*rc::gen::inRange<std::size_t>(0, options.max_crashes + 1),
                                                          rc::gen::inRange<std::size_t>(0, points.size()));
        // A schedule arms its crashes in the order the uncrashed run reaches them.
        std::sort(picked.begin(), picked.end());
        picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
        std::vector<crash> schedule;
        for (auto i : picked)
            schedule.push_back(points[i]);
        auto r = run_scenario(s, schedule);
        crashes_fired += r.crashes_fired.size();
        // A crash an earlier one made unreachable is no failure; the first is reached by the uncrashed run.
        std::string const first = schedule.empty() ? "" : "crash " + to_string(schedule.front()) + " ";
        std::erase_if(r.problems, [&](std::string const& p) {
            return p.ends_with("was requested but never reached") && (first.empty() || !p.starts_with(first));
        });
        if (!r.ok())
            RC_FAIL(describe(r, schedule));
    };

    rc::detail::TestParams params = rc::detail::configuration().testParams;
    params.maxSuccess = options.cases;
    if (options.seed != 0)
        params.seed = options.seed;
    rc::detail::TestMetadata metadata;
    metadata.id = "agentrt.explore_random";
    metadata.description = "explore_random";
    auto result = options.kill_anywhere
                      ? rc::detail::checkProperty(rc::detail::toProperty(kill_anywhere), metadata, params)
                      : rc::detail::checkProperty(rc::detail::toProperty(property), metadata, params);
    rc::detail::FailureResult failure;
    if (!result.match(failure)) {
        if (options.kill_anywhere && kills_landed == 0) {
            current_reporter().fail(where, "explore_random: no kill landed before its process ended, so nothing "
                                           "was explored; try more cases");
            return false;
        }
        if (!options.kill_anywhere && crashes_fired == 0) {
            current_reporter().fail(where, "explore_random: no schedule crashed anywhere, so nothing was explored; "
                                           "try more cases or a larger max_crashes");
            return false;
        }
        return true;
    }
    std::ostringstream message;
    rc::detail::printResultMessage(result, message);
    if (!last_failure.empty())
        message << "\nthe last failing schedule: " << last_failure;
    current_reporter().fail(where, "explore_random: " + message.str());
    return false;
}

} // namespace agentrt::testkit
