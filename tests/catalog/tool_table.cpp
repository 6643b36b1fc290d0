// The acceptance path of a model-sent call, and the tool table's own rules.
#include <agentrt/catalog/tool_table.hpp>

#include <agentrt/catalog/catalog.hpp>

#include "support/test_tools.hpp"

#include <doctest/doctest.h>

using namespace test_tools;

namespace {
agentrt::tool_table shop_table() {
    return agentrt::catalog<lookup_order, send_message, wipe_account>{}.table();
}

agentrt::tool_entry untyped(std::string name) {
    agentrt::tool_entry e;
    e.name = std::move(name);
    e.decode = [](boost::json::value const& v) -> agentrt::result<agentrt::arguments> {
        return agentrt::arguments(v, nullptr, nullptr);
    };
    e.call = [](agentrt::arguments const&, agentrt::call_context const&) -> agentrt::tool_result {
        return agentrt::tool_output{};
    };
    return e;
}
} // namespace

TEST_SUITE("tool_table") {

    TEST_CASE("an unknown tool is refused, naming the tools the catalogue has") {
        auto r = shop_table().accept("delete_everything", "{}");
        REQUIRE(!r);
        CHECK(r.error().code == agentrt::errc::unknown_tool);
        CHECK(r.error().message ==
              R"(unknown tool "delete_everything"; the catalogue has: lookup_order, send_message, wipe_account)");
    }

    TEST_CASE("arguments pass the strict boundary before the schema") {
        auto r = shop_table().accept("lookup_order", R"({"order_id":"ord-1","order_id":"ord-2"})");
        REQUIRE(!r);
        CHECK(r.error().code == agentrt::errc::invalid_json);
        auto truncated = shop_table().accept("lookup_order", R"({"order_id":"ord-1")");
        REQUIRE(!truncated);
        CHECK(truncated.error().violations.at(0).keyword == "truncated");
    }

    TEST_CASE("arguments that break the schema are refused with every violation") {
        auto r = shop_table().accept("lookup_order", R"({"order_id":"42","extra":true})");
        REQUIRE(!r);
        CHECK(r.error().code == agentrt::errc::invalid_arguments);
        CHECK(r.error().violations.size() == 2);
    }

    TEST_CASE("accepted arguments keep the document as read") {
        auto r = shop_table().accept("lookup_order", R"({"order_id":"ord-7"})");
        REQUIRE(r);
        CHECK(r->index == 0);
        CHECK(r->args.json().at("order_id") == "ord-7");
    }

    TEST_CASE("a table refuses malformed and repeated names") {
        CHECK_THROWS_WITH_AS(agentrt::tool_table({untyped("a b")}),
                             R"(agentrt: tool name "a b" must be 1 to 64 characters of [A-Za-z0-9_-])",
                             std::invalid_argument);
        CHECK_THROWS_WITH_AS(agentrt::tool_table({untyped("x"), untyped("x")}), R"(agentrt: two tools are named "x")",
                             std::invalid_argument);
        CHECK_THROWS_AS(agentrt::tool_table({untyped(std::string(65, 'a'))}), std::invalid_argument);
        CHECK_NOTHROW(agentrt::tool_table({untyped(std::string(64, 'a'))}));
    }

    TEST_CASE("a tool's spec is its whole definition, and its hash changes with any part of it") {
        auto table = shop_table();
        auto const& lookup = table.at(0);
        auto spec = lookup.spec();
        CHECK(spec.at("name") == "lookup_order");
        CHECK(spec.at("side_effect") == "read_only");
        CHECK(spec.at("timeout_ms") == 1000);
        CHECK(spec.at("terminal") == false);
        CHECK(spec.at("input_schema") == lookup.input_schema);
        CHECK(lookup.spec_hash().size() == 64);
        CHECK(lookup.spec_hash() == shop_table().at(0).spec_hash());

        auto changed = lookup;
        changed.timeout = std::chrono::milliseconds(1001);
        CHECK(changed.spec_hash() != lookup.spec_hash());
        changed = lookup;
        changed.description += ".";
        CHECK(changed.spec_hash() != lookup.spec_hash());
        changed = lookup;
        changed.effect = agentrt::side_effect::local_mutation;
        CHECK(changed.spec_hash() != lookup.spec_hash());
    }

    TEST_CASE("side-effect classes read and write by name") {
        for (auto e : {agentrt::side_effect::read_only, agentrt::side_effect::local_mutation,
                       agentrt::side_effect::remote_mutation, agentrt::side_effect::destructive})
            CHECK(agentrt::parse_side_effect(agentrt::to_string(e)) == e);
        CHECK(!agentrt::parse_side_effect("harmless"));
    }
}
