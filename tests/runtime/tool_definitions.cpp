// The tool definitions a model request carries, in each provider's shape.
#include <agentrt/runtime/tool_definitions.hpp>

#include <agentrt/catalog/catalog.hpp>

#include "support/test_tools.hpp"

#include <doctest/doctest.h>

using namespace test_tools;

TEST_SUITE("render") {

    TEST_CASE("definitions list every tool in catalogue order") {
        auto defs = agentrt::definitions(agentrt::catalog<lookup_order, wipe_account>{}.table());
        REQUIRE(defs.size() == 2);
        CHECK(defs[0].name == "lookup_order");
        CHECK(defs[1].name == "wipe_account");
        CHECK(defs[0].input_schema == agentrt::schema_of<lookup_args>());
    }

    TEST_CASE("the Anthropic and OpenAI shapes, pinned") {
        auto table = agentrt::catalog<lookup_order>{}.table();
        std::string schema = R"({"type":"object","properties":{"order_id":{"type":"string","pattern":"^ord-[0-9]+$",)"
                             R"("description":"Order id"}},"required":["order_id"],"additionalProperties":false})";
        CHECK(agentrt::ordered_json(agentrt::render(table, agentrt::provider::anthropic)) ==
              R"([{"name":"lookup_order","description":"Find an order by id.","input_schema":)" + schema + "}]");
        CHECK(agentrt::ordered_json(agentrt::render(table, agentrt::provider::openai)) ==
              R"([{"type":"function","function":{"name":"lookup_order","description":"Find an order by id.",)"
              R"("parameters":)" +
                  schema + "}}]");
    }

    TEST_CASE("rendering is deterministic: the same table renders byte-identical text") {
        auto a = agentrt::ordered_json(
            agentrt::render(agentrt::catalog<lookup_order, send_message>{}.table(), agentrt::provider::neutral));
        auto b = agentrt::ordered_json(
            agentrt::render(agentrt::catalog<lookup_order, send_message>{}.table(), agentrt::provider::neutral));
        CHECK(a == b);
    }
}
