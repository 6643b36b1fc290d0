#include <agentrt/fuzz/view.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/fuzz/generate.hpp>

#include "internal.hpp"

#include <ostream>

namespace agentrt::fuzz {

run_view generated_run::view() const {
    step_views_.clear();
    approval_views_.clear();
    for (std::size_t i = 0; i < steps.size(); ++i)
        step_views_.push_back(step_view{i, steps[i].tool, steps[i].arguments, steps[i].status, steps[i].observation});
    for (auto const& a : approvals)
        approval_views_.push_back(approval_view{a.step_index, a.kind, a.status});
    run_view v;
    v.run_id = run_id;
    v.goal = goal;
    v.steps_taken = steps.size();
    v.failed_streak = failed_streak;
    v.steps = step_views_;
    v.approvals = approval_views_;
    return v;
}

std::ostream& operator<<(std::ostream& out, generated_run const& run) {
    out << "run " << run.run_id << " goal " << json_string_literal(run.goal) << ", " << run.steps.size()
        << " steps, failed streak " << run.failed_streak;
    for (std::size_t i = 0; i < run.steps.size(); ++i) {
        auto const& s = run.steps[i];
        out << "\n  step " << i << " " << s.status << ": "
            << (s.tool.empty() ? "(no tool)" : s.tool + " " + s.arguments) << " -> " << s.observation;
    }
    for (auto const& a : run.approvals)
        out << "\n  approval of step " << a.step_index << ": " << a.kind << " " << a.status;
    return out;
}

namespace {

namespace json = boost::json;

rc::Gen<generated_step> step_gen(tool_table const& table, options const& opts) {
    std::vector<rc::Gen<generated_step>> by_tool;
    // A step that called no tool first: views shrink toward it.
    by_tool.push_back(rc::gen::just(generated_step{"", "", "failed", R"({"error":"invalid_decision"})"}));
    for (auto const& entry : table.entries()) {
        auto arguments = valid_json(entry.argument_schema, opts);
        auto status = detail::pick<std::string>({"done", "failed", "interrupted"});
        auto observation = detail::pick<std::string>(
            {R"({"ok":true})", "{}", R"({"error":"timeout"})", R"({"error":"tool failed","late":true})"});
        by_tool.push_back(rc::gen::map(
            rc::gen::tuple(arguments, status, observation),
            [name = entry.name](std::tuple<json::value, std::string, std::string> const& t) {
                return generated_step{name, canonical_json(std::get<0>(t)), std::get<1>(t), std::get<2>(t)};
            }));
    }
    return rc::gen::mapcat(rc::gen::inRange<std::size_t>(0, by_tool.size()),
                           [by_tool](std::size_t i) { return by_tool[i]; });
}

} // namespace

rc::Gen<generated_run> run_gen(tool_table const& table, options const& opts) {
    schema_node goal_node;
    goal_node.types = json_type::string;
    auto steps = detail::list_of(step_gen(table, opts), 0, opts.max_items);
    auto approval =
        rc::gen::map(rc::gen::tuple(rc::gen::inRange<std::uint64_t>(0, 64),
                                    detail::pick<std::string>({"side_effect", "interrupted_side_effect", "external"}),
                                    detail::pick<std::string>({"pending", "approved", "rejected", "expired"})),
                     [](std::tuple<std::uint64_t, std::string, std::string> const& t) {
                         return generated_approval{std::get<0>(t), std::get<1>(t), std::get<2>(t)};
                     });
    auto approvals = detail::list_of(approval, 0, 3);
    return rc::gen::map(
        rc::gen::tuple(detail::string_gen(goal_node, opts), steps, approvals),
        [](std::tuple<std::string, std::vector<generated_step>, std::vector<generated_approval>> const& t) {
            generated_run run;
            run.goal = std::get<0>(t);
            run.steps = std::get<1>(t);
            for (auto a : std::get<2>(t))
                if (!run.steps.empty()) {
                    a.step_index %= run.steps.size();
                    run.approvals.push_back(a);
                }
            for (auto it = run.steps.rbegin(); it != run.steps.rend() && it->status == "failed"; ++it)
                ++run.failed_streak;
            return run;
        });
}

} // namespace agentrt::fuzz
