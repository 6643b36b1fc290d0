// A catalogue: compile-time names, its tools shared by the table, and their typed calls.
#include <agentrt/catalog/catalog.hpp>

#include "support/test_tools.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

using namespace test_tools;

using shop = agentrt::catalog<lookup_order, send_message, wipe_account>;

TEST_SUITE("catalog") {

    TEST_CASE("names and indices are known at compile time") {
        static_assert(shop::size == 3);
        static_assert(shop::names[1] == "send_message");
        static_assert(shop::index_of("wipe_account") == 2);
        static_assert(!shop::index_of("nope"));
        CHECK(shop::names[0] == "lookup_order");
    }

    TEST_CASE("the table carries each tool's definition, in catalogue order") {
        auto table = shop{}.table();
        REQUIRE(table.size() == 3);
        auto const& send = table.at(1);
        CHECK(send.name == "send_message");
        CHECK(send.description == "Send a message to one recipient.");
        CHECK(send.effect == agentrt::side_effect::remote_mutation);
        CHECK(send.timeout == std::chrono::milliseconds(5000));
        CHECK(!send.terminal);
        CHECK(table.at(2).terminal);
        CHECK(agentrt::ordered_json(send.input_schema) == agentrt::schema_text<send_args>());
        CHECK(send.argument_type == &agentrt::type_info_of<send_args>());
    }

    TEST_CASE("the table calls the catalogue's own tool objects with the decoded struct") {
        int calls = 0;
        shop catalogue{lookup_order{&calls}, send_message{}, wipe_account{}};
        auto table = catalogue.table();
        auto accepted = table.accept("lookup_order", R"({"order_id":"ord-42"})");
        REQUIRE(accepted);
        auto const* typed = agentrt::arguments_as<lookup_args>(accepted->args);
        REQUIRE(typed);
        CHECK(typed->order_id.get() == "ord-42");
        CHECK(agentrt::arguments_as<send_args>(accepted->args) == nullptr);

        auto out = table.at(accepted->index).call(accepted->args, agentrt::call_context{});
        REQUIRE(out);
        CHECK(out->content.at("order") == "ord-42");
        CHECK(out->summary == "order shipped");
        CHECK(calls == 1);
        CHECK(catalogue.get<lookup_order>().calls == &calls);
    }

    TEST_CASE("accepted text's document is in the default storage, so the arguments and copies of their "
              "document may go to other threads") {
        auto table = shop{}.table();
        auto accepted = table.accept("lookup_order", R"({"order_id":"ord-42"})");
        REQUIRE(accepted);
        agentrt::arguments const& original = accepted->args;
        CHECK(original.json().storage().get() == boost::json::storage_ptr().get());
        boost::json::value document = original.json();
        CHECK(document.storage().get() == boost::json::storage_ptr().get());
        agentrt::arguments copy = original;
        CHECK(copy.json() == original.json());
        CHECK(copy.data() == original.data());
    }

    TEST_CASE("a document accepted with storage of its own keeps it when moved and leaves it when copied") {
        auto table = shop{}.table();
        auto arena = boost::json::make_shared_resource<boost::json::monotonic_resource>();
        auto accepted = table.accept("lookup_order", boost::json::parse(R"({"order_id":"ord-42"})", arena));
        REQUIRE(accepted);
        agentrt::arguments const& original = accepted->args;
        CHECK(original.json().storage().get() == arena.get());
        agentrt::arguments copy = original;
        CHECK(copy.json().storage().get() != arena.get());
        CHECK(copy.json() == original.json());
        agentrt::arguments assigned;
        assigned = original;
        CHECK(assigned.json().storage().get() != arena.get());
        agentrt::arguments moved;
        moved = std::move(accepted->args);
        CHECK(moved.json().storage().get() == arena.get()); // a move takes the storage along, copying nothing
        CHECK(agentrt::arguments_as<lookup_args>(moved)->order_id == "ord-42");
    }

    TEST_CASE("a tool's own error comes back as a value") {
        auto table = shop{}.table();
        auto accepted = table.accept("wipe_account", R"({"account":"a","confirm":false})");
        REQUIRE(accepted);
        auto out = table.at(accepted->index).call(accepted->args, agentrt::call_context{});
        REQUIRE(!out);
        CHECK(out.error().code == agentrt::errc::tool_failed);
        CHECK(out.error().message == "refusing to wipe without confirm");
    }

    TEST_CASE("a typed call refuses arguments it did not decode") {
        auto table = shop{}.table();
        auto other = table.accept("lookup_order", R"({"order_id":"ord-1"})");
        REQUIRE(other);
        CHECK_THROWS_AS(table.at(2).call(other->args, agentrt::call_context{}), std::invalid_argument);
    }

    TEST_CASE("the call context reaches the tool") {
        auto table = shop{}.table();
        auto accepted = table.accept("send_message", R"({"to":{"kind":"email","address":"a@b.c"},"cc":[],)"
                                                     R"("subject":"s","counters":{}})");
        REQUIRE(accepted);
        agentrt::call_context context;
        context.idempotency_key = "run-1/step-3";
        auto out = table.at(accepted->index).call(accepted->args, context);
        REQUIRE(out);
        CHECK(out->content.at("key") == "run-1/step-3");
    }
}
