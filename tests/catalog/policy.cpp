// Typed policies: coverage checked at compile time, lowered to an evaluator over the table.
#include <agentrt/catalog/policy.hpp>

#include <agentrt/catalog/catalog.hpp>

#include "support/test_tools.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

using namespace test_tools;

using shop = agentrt::catalog<lookup_order, send_message, wipe_account>;

namespace {

struct shop_policy {
    static constexpr std::string_view identity = "shop-policy/1";
    agentrt::verdict operator()(lookup_args const&, agentrt::run_view const&) const { return agentrt::allow(); }
    agentrt::verdict operator()(send_args const& a, agentrt::run_view const& view) const {
        if (view.steps_taken > 10)
            return agentrt::abort("too many steps");
        if (std::holds_alternative<phone_recipient>(a.to))
            return agentrt::deny("no text messages");
        return agentrt::require_approval("outbound_mail", "mail leaves the shop", {{"subject", a.subject.get()}},
                                         {{"to", std::get<email_recipient>(a.to).address.get()}});
    }
    agentrt::verdict operator()(wipe_args const&, agentrt::run_view const&) const {
        return agentrt::deny("never wipe");
    }
};

struct lookup_only {
    static constexpr std::string_view identity = "lookup-only/1";
    agentrt::verdict operator()(lookup_args const&, agentrt::run_view const&) const { return agentrt::allow(); }
};

struct lookup_then_classes {
    static constexpr std::string_view identity = "lookup-then-classes/1";
    agentrt::verdict operator()(lookup_args const&, agentrt::run_view const&) const {
        return agentrt::deny("typed rule");
    }
    agentrt::verdict operator()(agentrt::untyped_request const& r, agentrt::run_view const& v) const {
        return agentrt::class_table{}(r, v);
    }
};

agentrt::verdict decide(agentrt::evaluator const& policy, std::string_view tool, std::string_view args,
                        agentrt::run_view const& view = {}) {
    static auto const table = shop{}.table();
    auto accepted = table.accept(tool, args);
    REQUIRE_MESSAGE(accepted, args);
    return policy(table.at(accepted->index), accepted->args, view);
}

constexpr std::string_view mail = R"({"to":{"kind":"email","address":"a@b.c"},"cc":[],"subject":"s","counters":{}})";
constexpr std::string_view text = R"({"to":{"kind":"phone","number":"+12345678"},"cc":[],"subject":"s","counters":{}})";

} // namespace

TEST_SUITE("policy") {

    TEST_CASE("a policy covers a catalogue when it decides every tool, typed or by fallback") {
        static_assert(agentrt::covers<shop_policy, shop>);
        static_assert(!agentrt::covers<lookup_only, shop>);
        static_assert(agentrt::covers<lookup_then_classes, shop>);
        static_assert(agentrt::covers<agentrt::class_table, shop>);
        CHECK(agentrt::covers<lookup_only, agentrt::catalog<lookup_order>>);
    }

    TEST_CASE("the lowered policy decides with the typed arguments and the run view") {
        auto policy = agentrt::lower_policy(shop_policy{}, shop{});
        CHECK(policy.identity() == "shop-policy/1");
        CHECK(decide(policy, "lookup_order", R"({"order_id":"ord-1"})").outcome == agentrt::outcome::allow);
        CHECK(decide(policy, "send_message", text) == agentrt::deny("no text messages"));
        auto approval = decide(policy, "send_message", mail);
        CHECK(approval.outcome == agentrt::outcome::require_approval);
        CHECK(approval.kind == "outbound_mail");
        CHECK(approval.capability.at("subject") == "s");
        CHECK(approval.presentation.at("to") == "a@b.c");
        agentrt::run_view long_run;
        long_run.steps_taken = 11;
        CHECK(decide(policy, "send_message", mail, long_run).outcome == agentrt::outcome::abort);
        CHECK(decide(policy, "wipe_account", R"({"account":"a","confirm":true})").reason == "never wipe");
    }

    TEST_CASE("a typed rule wins over the fallback, the fallback decides the rest") {
        auto policy = agentrt::lower_policy(lookup_then_classes{}, shop{});
        CHECK(decide(policy, "lookup_order", R"({"order_id":"ord-1"})").reason == "typed rule");
        CHECK(decide(policy, "send_message", mail).kind == "side_effect");
        CHECK(decide(policy, "wipe_account", R"({"account":"a","confirm":true})").outcome == agentrt::outcome::deny);
    }

    TEST_CASE("the class table: read and local allowed, remote needs approval, destructive denied") {
        auto policy = agentrt::lower_policy(agentrt::class_table{}, shop{});
        CHECK(policy.identity() == "agentrt.class_table/1");
        CHECK(decide(policy, "lookup_order", R"({"order_id":"ord-1"})").outcome == agentrt::outcome::allow);
        auto remote = decide(policy, "send_message", mail);
        CHECK(remote.outcome == agentrt::outcome::require_approval);
        CHECK(remote.capability.at("tool") == "send_message");
        CHECK(remote.presentation.at("arguments").at("subject") == "s");
        CHECK(decide(policy, "wipe_account", R"({"account":"a","confirm":true})").outcome == agentrt::outcome::deny);
        boost::json::value none;
        CHECK(agentrt::class_table{}({"t", agentrt::side_effect::local_mutation, none}, {}).outcome ==
              agentrt::outcome::allow);
    }

    TEST_CASE("the class table denies a tool nobody classified") {
        boost::json::value none;
        auto v = agentrt::class_table{}({"mcp_tool", agentrt::side_effect::unknown, none}, {});
        CHECK(v.outcome == agentrt::outcome::deny);
        CHECK(v.reason == "mcp_tool has no side-effect class (nobody classified it); the class table never allows it");
        CHECK(agentrt::to_string(agentrt::side_effect::unknown) == "unknown");
        CHECK(agentrt::parse_side_effect("unknown") == agentrt::side_effect::unknown);
    }

    TEST_CASE("a tool outside the typed catalogue is denied by a policy without a fallback") {
        agentrt::tool_entry runtime_tool;
        runtime_tool.name = "from_runtime";
        auto policy = agentrt::lower_policy(shop_policy{}, shop{});
        auto v = policy(runtime_tool, agentrt::arguments(boost::json::object{}, nullptr, nullptr), {});
        CHECK(v.outcome == agentrt::outcome::deny);
        CHECK(v.reason == "policy shop-policy/1 has no rule for tool from_runtime");
    }

    TEST_CASE("a tool's rule is found by its place in the catalogue, and an entry from elsewhere by its arguments") {
        auto policy = agentrt::lower_policy(shop_policy{}, shop{});
        // Another catalogue puts the tools in another order: its places name other tools here.
        auto other = agentrt::catalog<wipe_account, send_message, lookup_order>{}.table();
        auto decide_in = [&](agentrt::tool_table const& table, std::string_view tool, std::string_view text) {
            auto accepted = table.accept(tool, text);
            REQUIRE(accepted);
            return policy(table.at(accepted->index), accepted->args, {});
        };
        CHECK(decide_in(other, "wipe_account", R"({"account":"a","confirm":true})").reason == "never wipe");
        CHECK(decide_in(other, "send_message", text).reason == "no text messages");
        CHECK(decide_in(other, "lookup_order", R"({"order_id":"ord-1"})").outcome == agentrt::outcome::allow);
        // A hand-built table of a catalogue's entries, in any order and with no place, decides the same.
        auto const base = shop{}.table();
        auto entries = std::vector<agentrt::tool_entry>(base.entries().begin(), base.entries().end());
        std::reverse(entries.begin(), entries.end());
        for (auto& e : entries)
            e.catalogue_index = agentrt::tool_entry::not_in_a_catalogue;
        agentrt::tool_table hand_built(std::move(entries));
        CHECK(decide_in(hand_built, "send_message", text).reason == "no text messages");
        CHECK(decide_in(hand_built, "wipe_account", R"({"account":"a","confirm":true})").reason == "never wipe");
    }

    TEST_CASE("outcomes have names") {
        CHECK(agentrt::to_string(agentrt::outcome::require_approval) == "require_approval");
        CHECK(agentrt::to_string(agentrt::outcome::abort) == "abort");
    }
}
