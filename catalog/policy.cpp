#include <agentrt/catalog/policy.hpp>

#include <boost/json/object.hpp>

namespace agentrt {

std::string_view to_string(outcome o) noexcept {
    switch (o) {
    case outcome::allow:
        return "allow";
    case outcome::deny:
        return "deny";
    case outcome::abort:
        return "abort";
    case outcome::require_approval:
        return "require_approval";
    }
    return "unknown";
}

evaluator::evaluator(std::string identity, std::shared_ptr<void const> policy, policy_function decide)
    : identity_(std::move(identity)),
      decide_([policy = std::move(policy), decide](tool_entry const& tool, arguments const& a, run_view const& view) {
          return decide(policy.get(), tool, a, view);
      }) {}

verdict allow() {
    return verdict{outcome::allow, {}, {}, nullptr, nullptr};
}
verdict deny(std::string reason) {
    return verdict{outcome::deny, {}, std::move(reason), nullptr, nullptr};
}
verdict abort(std::string reason) {
    return verdict{outcome::abort, {}, std::move(reason), nullptr, nullptr};
}

verdict require_approval(std::string kind, std::string reason, boost::json::value capability,
                         boost::json::value presentation) {
    return verdict{outcome::require_approval, std::move(kind), std::move(reason), std::move(capability),
                   std::move(presentation)};
}

verdict class_table::operator()(untyped_request const& request, run_view const&) const {
    switch (request.effect) {
    case side_effect::read_only:
    case side_effect::local_mutation:
        return allow();
    case side_effect::remote_mutation: {
        boost::json::object capability{{"tool", request.tool}, {"side_effect", to_string(request.effect)}};
        boost::json::object presentation{{"tool", request.tool}, {"arguments", request.arguments}};
        return require_approval("side_effect", std::string(request.tool) + " changes a remote system",
                                std::move(capability), std::move(presentation));
    }
    case side_effect::destructive:
        return deny(std::string(request.tool) + " is destructive; the class table never allows it");
    case side_effect::unknown:
        break;
    }
    return deny(std::string(request.tool) +
                " has no side-effect class (nobody classified it); the class table never allows it");
}

} // namespace agentrt
