// The logical store (docs/testkit.md): runs, steps, approvals and events, lease fields aside;
// two runs of one scenario with a deterministic clock and ids must record the same one.
#pragma once

#include <agentrt/runtime/reads.hpp>
#include <agentrt/runtime/store.hpp>

#include <boost/json/serialize.hpp>

#include <string>

namespace test_support {

inline std::string logical_store(agentrt::store const& s) {
    std::string out;
    for (auto const& run : agentrt::list_runs(s, {}, 1000)) {
        auto details = agentrt::read_run(s, run.id).value();
        auto r = agentrt::to_json(details.run);
        r.erase("lease");
        out += boost::json::serialize(r) + "\n";
        for (auto const& st : details.steps)
            out += boost::json::serialize(agentrt::to_json(st)) + "\n";
        for (auto const& a : details.approvals)
            out += boost::json::serialize(agentrt::to_json(a)) + "\n";
        for (auto const& e : agentrt::read_events(s, run.id).value())
            out += boost::json::serialize(agentrt::to_json(e)) + "\n";
    }
    return out;
}

} // namespace test_support
