// A policy's conformance table: every disagreement in one aligned table, nothing passes unchecked.
#include <agentrt/testkit/check_policy.hpp>

#include "support/recording_reporter.hpp"
#include "support/test_tools.hpp"

#include <doctest/doctest.h>

using namespace agentrt::testkit;
using namespace test_tools;

namespace {

using shop = agentrt::catalog<lookup_order, send_message, wipe_account>;

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
    agentrt::verdict operator()(wipe_args const& a, agentrt::run_view const&) const {
        if (a.account == "explode")
            throw std::runtime_error("policy bug");
        return agentrt::deny("never wipe");
    }
};

std::string const mail = R"({"to":{"kind":"email","address":"a@b.c"},"cc":[],"subject":"hello","counters":{}})";
std::string const text = R"({"to":{"kind":"phone","number":"+12345678"},"cc":[],"subject":"s","counters":{}})";

run_state late_run() {
    run_state late;
    late.steps_taken = 11;
    return late;
}

} // namespace

TEST_SUITE("testkit") {

    TEST_CASE("check_policy: a table the policy conforms to passes and reports nothing") {
        test_support::recording_reporter recorded;
        agentrt::testkit::scoped_reporter installed(recorded);
        CHECK(check_policy(shop_policy{}, shop{},
                           {
                               {"lookups are free", "lookup_order", R"({"order_id":"ord-1"})", allowed()},
                               {"texts are not sent", "send_message", text, denied("no text")},
                               {"mail asks first", "send_message", mail,
                                approval("outbound_mail", "leaves", R"("subject":"hello")", R"("to":"a@b.c")")},
                               {"a bad id never reaches the policy", "lookup_order", R"({"order_id":"42"})", refused()},
                               {"late runs stop", "send_message", mail, aborted("too many"), late_run()},
                           }));
        CHECK(recorded.reports.empty());
    }

    TEST_CASE("check_policy: every disagreement is reported as one aligned table") {
        test_support::recording_reporter recorded;
        agentrt::testkit::scoped_reporter installed(recorded);
        unsigned const line = __LINE__ + 1;
        bool passed = check_policy(shop_policy{}, shop{},
                                   {
                                       {"lookups are free", "lookup_order", R"({"order_id":"ord-1"})", allowed()},
                                       {"texts are allowed", "send_message", text, allowed()},
                                       {"mail kind", "send_message", mail, approval("inbound_mail")},
                                       {"a bad id", "lookup_order", R"({"order_id":"ord-1"})", refused()},
                                       {"valid id", "lookup_order", R"({"order_id":"42"})", allowed()},
                                   });
        CHECK(!passed);
        REQUIRE(recorded.reports.size() == 1);
        auto const& report = recorded.reports[0];
        CHECK(report.line == line);
        CHECK(report.file.ends_with("check_policy.cpp"));
        CHECK(report.message == "check_policy: 4 of 5 cases disagree with policy shop-policy/1\n"
                                "case               request                                                     want   "
                                "                        "
                                "got                             detail\n"
                                "texts are allowed  send_message {\"to\":{\"ki…ect\":\"s\",\"counters\":{}} (93 chars) "
                                " allow                          "
                                "deny                            reason: no text messages\n"
                                "mail kind          send_message {\"to\":{\"ki…:\"hello\",\"counters\":{}} (94 chars)  "
                                "require_approval inbound_mail  "
                                "require_approval outbound_mail  kind is \"outbound_mail\"\n"
                                "a bad id           lookup_order {\"order_id\":\"ord-1\"}                           "
                                "refused                        "
                                "accepted                        the arguments passed validation\n"
                                "valid id           lookup_order {\"order_id\":\"42\"}                              "
                                "allow                          "
                                "refused                         /order_id: pattern \"^ord-[0-9]+$\", got \"42\"\n");
    }

    TEST_CASE("check_policy: a policy that throws is a disagreement, not a crash") {
        test_support::recording_reporter recorded;
        agentrt::testkit::scoped_reporter installed(recorded);
        CHECK(
            !check_policy(shop_policy{}, shop{},
                          {{"wipes are denied", "wipe_account", R"({"account":"explode","confirm":true})", denied()}}));
        REQUIRE(recorded.reports.size() == 1);
        CHECK(recorded.reports[0].message.find("threw") != std::string::npos);
        CHECK(recorded.reports[0].message.find("policy bug") != std::string::npos);
    }

    TEST_CASE("check_policy: a table with no cases fails, because it checked nothing") {
        test_support::recording_reporter recorded;
        agentrt::testkit::scoped_reporter installed(recorded);
        CHECK(!check_policy(shop_policy{}, shop{}, {}));
        REQUIRE(recorded.reports.size() == 1);
        CHECK(recorded.reports[0].message == "check_policy: no cases, so nothing was checked");
    }

    TEST_CASE("run_state: the view a policy is handed mirrors the state written down") {
        run_state state;
        state.goal = "refund the order";
        state.steps_taken = 2;
        state.steps.push_back({0, "lookup_order", R"({"order_id":"ord-1"})", "done", R"({"status":"shipped"})"});
        state.approvals.push_back({1, "outbound_mail", "approved"});
        auto held = state.view();
        agentrt::run_view const& view = held;
        CHECK(view.goal == "refund the order");
        CHECK(view.steps_taken == 2);
        REQUIRE(view.steps.size() == 1);
        CHECK(view.steps[0].tool == "lookup_order");
        CHECK(view.steps[0].observation == R"({"status":"shipped"})");
        REQUIRE(view.approvals.size() == 1);
        CHECK(view.approvals[0].status == "approved");
    }
}
