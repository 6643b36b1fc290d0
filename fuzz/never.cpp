#include <agentrt/fuzz/check.hpp>

#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/fuzz/generate.hpp>
#include <agentrt/fuzz/view.hpp>

#include "internal.hpp"

#include <boost/json/serialize.hpp>

namespace agentrt::fuzz {

check_report never(evaluator const& policy, tool_table const& table, side_effect effect, outcome forbidden,
                   never_options const& opts) {
    std::vector<tool_entry> entries(table.entries().begin(), table.entries().end());
    entries.insert(entries.end(), opts.stand_ins.begin(), opts.stand_ins.end());
    tool_table all(std::move(entries));

    std::vector<std::string> names;
    std::vector<rc::Gen<boost::json::value>> arguments;
    for (auto const& entry : all.entries())
        if (entry.effect == effect) {
            names.push_back(entry.name);
            arguments.push_back(valid_json(entry.argument_schema, opts.generation));
        }
    std::string what = "never " + std::string(to_string(forbidden)) + " for " + std::string(to_string(effect));
    check_report report;
    if (names.empty()) {
        report.message = what + ": the table has no tool of class " + std::string(to_string(effect)) +
                         ", so the property would hold of nothing; declare a stand-in tool of that class";
        return report;
    }

    std::size_t checked = 0;
    auto views = run_gen(all, opts.generation);
    auto property = rc::detail::toProperty([&] {
        std::size_t pick = *rc::gen::inRange<std::size_t>(0, names.size()).as("tool index");
        std::string const& tool = names[pick];
        boost::json::value args = *arguments[pick];
        generated_run run = *views;
        auto accepted = all.accept(tool, args);
        if (!accepted)
            RC_FAIL("the table refused generated arguments for " + tool + ": " + accepted.error().to_string());
        verdict v = policy(all.at(accepted->index), accepted->args, run.view());
        ++checked;
        if (v.outcome == forbidden)
            RC_FAIL("policy " + std::string(policy.identity()) + " answered " + std::string(to_string(forbidden)) +
                    " to " + tool + " " + boost::json::serialize(args) +
                    (v.reason.empty() ? "" : " (" + v.reason + ")"));
    });
    auto failure = detail::run_property(what, property, opts.generation);
    report.passed = !failure && checked > 0;
    report.message = failure ? *failure
                             : (checked > 0 ? what + ": held for " + std::to_string(checked) + " requests"
                                            : what + ": no request was checked");
    return report;
}

} // namespace agentrt::fuzz
