// A small shop's agent tools and policy, declared the way a consumer of agentrt declares them.
#pragma once

#include <agentrt/catalog.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace shop {

// --- arguments --------------------------------------------------------------------------------

struct lookup_args {
    BOOST_HANA_DEFINE_STRUCT(lookup_args, (agentrt::field<std::string, agentrt::pattern<"^ord-[0-9]{1,8}$">,
                                                          agentrt::description<"The order id, like ord-1042">>,
                                           order_id));
};

struct email_args {
    BOOST_HANA_DEFINE_STRUCT(
        email_args, (agentrt::field<std::string, agentrt::max_length<254>, agentrt::pattern<"^[^@ ]+@[^@ ]+$">>, to),
        (agentrt::field<std::string, agentrt::min_length<1>, agentrt::max_length<120>>, subject),
        (agentrt::field<std::string, agentrt::max_length<4000>>, body));
};

struct wipe_args {
    BOOST_HANA_DEFINE_STRUCT(wipe_args, (agentrt::field<std::string, agentrt::min_length<1>>, customer));
};

// --- tools ------------------------------------------------------------------------------------

struct lookup_order {
    static constexpr std::string_view name = "lookup_order";
    static constexpr std::string_view description = "Look up an order's status and customer.";
    static constexpr agentrt::side_effect effect = agentrt::side_effect::read_only;
    static constexpr std::chrono::milliseconds timeout{2000};
    using arguments = lookup_args;
    agentrt::tool_result operator()(lookup_args const& a, agentrt::call_context const&) const {
        return agentrt::tool_output{{{"order", a.order_id}, {"status", "refund due"}, {"customer", "ana"}},
                                    a.order_id + ": refund due"};
    }
};

// Sends by appending to an outbox file: the side effect the demonstration counts.
struct send_email {
    static constexpr std::string_view name = "send_email";
    static constexpr std::string_view description = "Send an email to a customer.";
    static constexpr agentrt::side_effect effect = agentrt::side_effect::remote_mutation;
    static constexpr std::chrono::milliseconds timeout{5000};
    using arguments = email_args;
    std::filesystem::path outbox;
    agentrt::tool_result operator()(email_args const& a, agentrt::call_context const& c) const {
        if (!outbox.empty())
            std::ofstream(outbox, std::ios::app)
                << c.idempotency_key << " to " << a.to << ": " << a.subject << '\n';
        return agentrt::tool_output{{{"sent_to", a.to}}, "sent to " + a.to};
    }
};

struct wipe_account {
    static constexpr std::string_view name = "wipe_account";
    static constexpr std::string_view description = "Delete a customer's account and data.";
    static constexpr agentrt::side_effect effect = agentrt::side_effect::destructive;
    static constexpr std::chrono::milliseconds timeout{10000};
    using arguments = wipe_args;
    agentrt::tool_result operator()(wipe_args const& a, agentrt::call_context const&) const {
        return agentrt::tool_output{{{"wiped", a.customer}}, "wiped " + a.customer};
    }
};

using tools = agentrt::catalog<lookup_order, send_email, wipe_account>;

// --- policy -----------------------------------------------------------------------------------

// Lookups are free; mail to customers goes out on its own, anything else asks an operator first;
// accounts are never wiped by an agent.
struct policy {
    static constexpr std::string_view identity = "shop-policy/1";

    agentrt::verdict operator()(lookup_args const&, agentrt::run_view const&) const { return agentrt::allow(); }

    agentrt::verdict operator()(email_args const& a, agentrt::run_view const& run) const {
        if (run.steps_taken >= 20)
            return agentrt::abort("a run that mails after 20 steps is looping");
        if (a.to.ends_with("@customers.example"))
            return agentrt::allow();
        return agentrt::require_approval("external_mail", "mail to someone who is not a customer", {{"to", a.to}},
                                         {{"to", a.to}, {"subject", a.subject}});
    }

    agentrt::verdict operator()(wipe_args const&, agentrt::run_view const&) const {
        return agentrt::deny("wiping an account is for people, not agents");
    }
};

} // namespace shop
