// The shop's property tests: what a consumer proves about its own tools, policy and agent.
#include "shop.hpp"
#include <agentrt/testkit/scripted_agent.hpp>

#include <agentrt/testkit/check_policy.hpp>
#include <agentrt/testkit/doctest.hpp>
#include <agentrt/testkit/fake_model.hpp>
#include <agentrt/testkit/fuzz.hpp>
#include <agentrt/testkit/model_agent.hpp>
#include <agentrt/testkit/recheck.hpp>
#include <agentrt/testkit/scenario.hpp>

#include <doctest/doctest.h>

#include <memory>

using namespace agentrt::testkit;

namespace {

std::string const customer_mail = R"({"to":"ana@customers.example","subject":"Refund","body":"On its way."})";
std::string const other_mail = R"({"to":"boss@elsewhere.example","subject":"Refund","body":"FYI"})";

scenario refund_scenario() {
    scenario s;
    s.tools = [] { return shop::tools{}.table(); };
    s.policy = [] { return agentrt::lower_policy(shop::policy{}, shop::tools{}); };
    s.agent = [] {
        return std::make_unique<agentrt::testkit::scripted_agent>(std::vector<agentrt::decision>{
            agentrt::decision::call("lookup_order", R"({"order_id":"ord-1042"})"),
            agentrt::decision::call("send_email", customer_mail), agentrt::decision::complete("done")});
    };
    s.goal = "tell the customer of ord-1042 about the refund";
    return s;
}

} // namespace

TEST_CASE("the shop's policy table") {
    run_state looping;
    looping.steps_taken = 25;
    check_policy(
        shop::policy{}, shop::tools{},
        {
            {"lookups are free", "lookup_order", R"({"order_id":"ord-1"})", allowed()},
            {"customers are mailed without asking", "send_email", customer_mail, allowed()},
            {"anyone else needs an operator", "send_email", other_mail,
             approval("external_mail", "not a customer", "boss@elsewhere.example")},
            {"a looping run is stopped", "send_email", customer_mail, aborted("looping"), looping},
            {"accounts are never wiped", "wipe_account", R"({"customer":"ana"})", denied("people")},
            {"a malformed order id never reaches the policy", "lookup_order", R"({"order_id":"1042"})", refused()},
        });
}

TEST_CASE("never: no request to a destructive tool is ever allowed, in any run") {
    never(shop::policy{}, shop::tools{}, agentrt::side_effect::destructive, agentrt::outcome::allow);
}

TEST_CASE("fuzz_check: every valid request reaches its tool, every near miss is refused before it") {
    fuzz_check(shop::tools{}.table());
}

TEST_CASE("a mail lost in a crash is sent again only when an operator approves it") {
    auto r = run_scenario(refund_scenario(), {{1, crash_point::after_effect_before_outcome}});
    CHECK(r.ok());
    CHECK(r.invocations_of("send_email") == 2);
    REQUIRE(r.approvals.size() == 1);
    CHECK(r.approvals[0].kind == "interrupted_side_effect");
}

TEST_CASE("an operator who rejects: the lost mail is never sent again") {
    auto s = refund_scenario();
    s.answer = [](agentrt::approval_record const&) { return operator_answer::reject; };
    auto r = run_scenario(s, {{1, crash_point::after_effect_before_outcome}});
    CHECK(r.ok());
    CHECK(r.invocations_of("send_email") == 1);
    CHECK(r.run.reason == "approval_rejected");
}

TEST_CASE("a mail the reconcile hook finds in the mail log is not sent again") {
    auto s = refund_scenario();
    s.reconcile = [](agentrt::step_record const&, agentrt::tool_entry const&) {
        return agentrt::reconciliation{agentrt::reconcile_answer::completed, {{"found_in_mail_log", true}}, {}, {}};
    };
    auto r = run_scenario(s, {{1, crash_point::after_effect_before_outcome}});
    CHECK(r.ok());
    CHECK(r.invocations_of("send_email") == 1);
}

TEST_CASE("an agent asking a flaky model refunds the order through a crash in the mail step") {
    // Keyed by decision, so the process that resumes after the crash gets the same answers.
    fake_model model(per_decision,
                     {
                         {turn::transient_failure(503), turn::call("lookup_order", R"({"order_id":"ord-1042"})")},
                         {turn::call("send_email", customer_mail)},
                         {turn::chunks({"Refund mail ", "sent."})},
                     });
    auto s = refund_scenario();
    s.agent = [&model] { return std::make_unique<model_agent>(model, shop::tools{}.table()); };
    auto r = run_scenario(s, {{1, crash_point::after_effect_before_outcome}});
    CHECK(r.ok());
    CHECK(r.invocations_of("send_email") == 2); // once lost, once approved by the operator
    CHECK(r.run.message == "Refund mail sent.");
}

TEST_CASE("the agent renders the same model requests after a crash and an approval") {
    auto with_model_agent = [] {
        auto model = std::make_shared<fake_model>(
            per_decision, std::vector<std::vector<turn>>{{turn::call("lookup_order", R"({"order_id":"ord-1042"})")},
                                                         {turn::call("send_email", customer_mail)},
                                                         {turn::text("Refund mail sent.")}});
        auto s = refund_scenario();
        s.agent = [model] { return std::make_unique<model_agent>(*model, shop::tools{}.table()); };
        return s;
    };
    CHECK(same_renders(with_model_agent, {{1, crash_point::after_effect_before_outcome}}));
}

TEST_CASE("recheck: the shop's policy decides a crashed and approved run as it was decided") {
    auto r = run_scenario(refund_scenario(), {{1, crash_point::after_effect_before_outcome}});
    REQUIRE(r.ok());
    CHECK(recheck(records_of(r), shop::tools{}.table(), agentrt::lower_policy(shop::policy{}, shop::tools{})));
}

TEST_CASE("explore: a crash at every point of every step keeps every promise") {
    auto summary = explore(refund_scenario());
    CHECK(summary.crashes_tried > 0);
    CHECK(summary.failures == 0);
}
