// agentrt/catalog/policy.hpp — verdicts, the view a policy sees, and the type-erased evaluator.
//
//     struct mail_policy {
//         static constexpr std::string_view identity = "mail-policy/1";
//         agentrt::verdict operator()(send_args const& a, agentrt::run_view const&) const {
//             if (a.to.ends_with("@example.com")) return agentrt::allow();
//             return agentrt::require_approval("external_mail", "mail leaves the company",
//                                              {{"to", a.to}}, {{"to", a.to}});
//         }
//         agentrt::verdict operator()(agentrt::untyped_request const& r, agentrt::run_view const&) const {
//             return agentrt::class_table{}(r, {});   // the fallback, by side-effect class
//         }
//     };
//
// A policy is a pure function of (typed request, read-only view of the run). catalog.hpp checks at
// compile time that a policy decides every tool of a catalogue and lowers it to an `evaluator`.
#pragma once

#include <agentrt/catalog/tool.hpp>
#include <agentrt/catalog/tool_table.hpp>

#include <boost/json/value.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace agentrt {

enum class outcome : std::uint8_t { allow, deny, abort, require_approval };

std::string_view to_string(outcome o) noexcept;

struct verdict {
    agentrt::outcome outcome = outcome::deny;
    std::string kind; // of the approval asked for
    std::string reason;
    boost::json::value capability;   // what the approval grants
    boost::json::value presentation; // what the operator is shown

    friend bool operator==(verdict const&, verdict const&) = default;
};

verdict allow();
// The step fails and the run goes on.
verdict deny(std::string reason);
// The run fails.
verdict abort(std::string reason);
// The run waits for an operator.
verdict require_approval(std::string kind, std::string reason, boost::json::value capability = nullptr,
                         boost::json::value presentation = nullptr);

// What a policy sees of a run: counters and the record so far. Read-only; the runtime builds it.
struct step_view {
    std::uint64_t index = 0;
    std::string_view tool;        // empty for a step that did not call a tool
    std::string_view arguments;   // canonical JSON
    std::string_view status;      // the step state: done, failed, interrupted, ...
    std::string_view observation; // JSON text of what came back
};

struct approval_view {
    std::uint64_t step_index = 0;
    std::string_view kind;
    std::string_view status; // pending, approved, rejected, expired, cancelled
};

struct run_view {
    std::string_view run_id;
    std::string_view goal;
    std::uint64_t steps_taken = 0;
    std::uint64_t failed_streak = 0;
    std::span<step_view const> steps;
    std::span<approval_view const> approvals;
};

// A request as a fallback sees it: a tool known only by name, class and JSON arguments.
struct untyped_request {
    std::string_view tool;
    side_effect effect = side_effect::destructive;
    boost::json::value const& arguments;
};

// The built-in policy by side-effect class: read_only and local_mutation are allowed,
// remote_mutation needs an approval of kind "side_effect", destructive and unknown denied.
struct class_table {
    static constexpr std::string_view identity = "agentrt.class_table/1";
    verdict operator()(untyped_request const& request, run_view const& view) const;
};

// A policy lowered against a tool table: decides any accepted call of that table.
class evaluator {
public:
    using decide_function = std::function<verdict(tool_entry const&, arguments const&, run_view const&)>;

    evaluator(std::string identity, decide_function decide)
        : identity_(std::move(identity)), decide_(std::move(decide)) {}

    // A policy object and a plain function deciding with it: how lower_policy hands a typed policy
    // over, so that a consumer's translation unit makes no std::function of its own.
    using policy_function = verdict (*)(void const* policy, tool_entry const&, arguments const&, run_view const&);
    evaluator(std::string identity, std::shared_ptr<void const> policy, policy_function decide);

    std::string_view identity() const noexcept { return identity_; }
    verdict operator()(tool_entry const& tool, arguments const& args, run_view const& view) const {
        return decide_(tool, args, view);
    }

private:
    std::string identity_;
    decide_function decide_;
};

} // namespace agentrt
