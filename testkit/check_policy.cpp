#include <agentrt/testkit/check_policy.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/testkit/report.hpp>

#include "text_table.hpp"

namespace agentrt::testkit {

wanted allowed() {
    return {outcome::allow, {}, {}, {}, {}};
}
wanted denied(std::string reason_has) {
    return {outcome::deny, {}, std::move(reason_has), {}, {}};
}
wanted aborted(std::string reason_has) {
    return {outcome::abort, {}, std::move(reason_has), {}, {}};
}
wanted approval(std::string kind, std::string reason_has, std::string capability_has, std::string presentation_has) {
    return {outcome::require_approval, std::move(kind), std::move(reason_has), std::move(capability_has),
            std::move(presentation_has)};
}
wanted refused() {
    return {};
}

namespace {

std::string describe(wanted const& w) {
    if (!w.outcome)
        return "refused";
    std::string out(to_string(*w.outcome));
    if (!w.kind.empty())
        out += " " + w.kind;
    if (!w.reason_has.empty())
        out += " reason~\"" + w.reason_has + "\"";
    if (!w.capability_has.empty())
        out += " capability~" + w.capability_has;
    if (!w.presentation_has.empty())
        out += " presentation~" + w.presentation_has;
    return out;
}

std::string describe(verdict const& v) {
    std::string out(to_string(v.outcome));
    if (!v.kind.empty())
        out += " " + v.kind;
    return out;
}

// Why `got` does not give what `want` asks for; empty when it does.
std::string mismatch(wanted const& want, verdict const& got) {
    if (*want.outcome != got.outcome)
        return got.reason.empty() ? "" : "reason: " + got.reason;
    if (!want.kind.empty() && want.kind != got.kind)
        return "kind is \"" + got.kind + "\"";
    if (got.reason.find(want.reason_has) == std::string::npos)
        return "reason is \"" + got.reason + "\"";
    std::string capability = canonical_json(got.capability), presentation = canonical_json(got.presentation);
    if (capability.find(want.capability_has) == std::string::npos)
        return "capability is " + capability;
    if (presentation.find(want.presentation_has) == std::string::npos)
        return "presentation is " + presentation;
    return {};
}

} // namespace

bool check_policy(evaluator const& policy, tool_table const& table, std::vector<policy_case> const& cases,
                  source_location where) {
    if (cases.empty()) {
        current_reporter().fail(where, "check_policy: no cases, so nothing was checked");
        return false;
    }
    std::vector<std::vector<std::string>> disagreements;
    for (auto const& c : cases) {
        std::string request = internal::cut(c.tool + " " + c.arguments);
        auto disagree = [&](std::string got, std::string detail) {
            disagreements.push_back(
                {internal::cut(c.name, 40), request, describe(c.want), std::move(got), internal::cut(detail, 100)});
        };
        auto accepted = table.accept(c.tool, c.arguments);
        if (!accepted) {
            if (c.want.outcome) {
                std::string detail = accepted.error().message;
                if (!accepted.error().violations.empty())
                    detail = accepted.error().violations.front().to_string();
                disagree("refused", detail);
            }
            continue;
        }
        if (!c.want.outcome) {
            disagree("accepted", "the arguments passed validation");
            continue;
        }
        verdict got;
        try {
            run_state const empty;
            got = policy(table.at(accepted->index), accepted->args, c.view ? c.view->view() : empty.view());
        } catch (std::exception const& e) {
            disagree("threw", e.what());
            continue;
        }
        if (*c.want.outcome != got.outcome || !mismatch(c.want, got).empty())
            disagree(describe(got), mismatch(c.want, got));
    }
    if (disagreements.empty())
        return true;
    current_reporter().fail(
        where, "check_policy: " + std::to_string(disagreements.size()) + " of " + std::to_string(cases.size()) +
                   " cases disagree with policy " + std::string(policy.identity()) + "\n" +
                   internal::text_table({"case", "request", "want", "got", "detail"}, disagreements));
    return false;
}

} // namespace agentrt::testkit
