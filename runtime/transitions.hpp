// Changes of a run's and a step's status, each with the events that explain it. Internal.
#pragma once

#include <agentrt/catalog/policy.hpp>
#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/runtime/records.hpp>
#include <agentrt/runtime/store.hpp>

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace agentrt::transitions {

void finish_run(store_writer& w, run_record& run, run_status status, std::string_view reason, std::string message,
                std::int64_t now);

// Marks a step interrupted (as a takeover or a cancel does) and records step.interrupted.
void interrupt_step(store_writer& w, run_record& run, step_record& step, std::string resolution, std::int64_t now);

// Whether an interrupted step can simply be left behind (deciding, or a read-only tool).
bool harmless_interruption(step_record const& step, tool_table const& tools);

std::optional<approval_record> latest_approval(store_reader const& r, std::string_view run_id, std::uint64_t step);

// Creates the step's next approval (the latest, the only one that can grant).
approval_record request_approval(store_writer& w, run_record& run, step_record const& step,
                                 boost::json::object const& tool_spec, verdict const& v, std::int64_t now);

} // namespace agentrt::transitions
