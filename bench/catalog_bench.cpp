// The catalogue's hot paths: policy evaluation, the acceptance path of one tool call, and
// validation beside valijson (the peer a user would pick) on the same schema and documents.
#include <agentrt/catalog.hpp>

#include "support/test_tools.hpp"

#include <benchmark/benchmark.h>
#include <valijson/adapters/boost_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include <boost/json/parse.hpp>

#include <string>

using namespace test_tools;

namespace {

using shop = agentrt::catalog<lookup_order, send_message, wipe_account>;

struct shop_policy {
    static constexpr std::string_view identity = "bench-policy/1";
    agentrt::verdict operator()(lookup_args const&, agentrt::run_view const&) const { return agentrt::allow(); }
    agentrt::verdict operator()(send_args const& a, agentrt::run_view const& view) const {
        if (view.steps_taken > 40)
            return agentrt::abort("too many steps");
        if (a.cc.size() > 2)
            return agentrt::deny("too many copies");
        auto const* email = std::get_if<email_recipient>(&a.to);
        if (email && email->address.get().ends_with("@example.com"))
            return agentrt::allow();
        return agentrt::require_approval("outbound", "leaves the company", {{"subject", a.subject.get()}});
    }
    agentrt::verdict operator()(wipe_args const&, agentrt::run_view const&) const { return agentrt::deny("never"); }
};

// A realistic model-sent call: nested variant, array with uniqueness, a map, optionals.
constexpr std::string_view send_text =
    R"({"to": {"kind": "email", "address": "someone@partner.org"}, "cc": ["ops@example.com", "audit@example.com"],)"
    R"( "subject": "Quarterly report, revised figures for the north region", "urgency": "normal",)"
    R"( "counters": {"retries": 0, "pages": 12, "attachments": 3}, "options": {"enabled": true}})";

// The same call to a colleague: the policy allows it, so its verdict carries no text or JSON.
constexpr std::string_view internal_text =
    R"({"to": {"kind": "email", "address": "someone@example.com"}, "cc": ["ops@example.com", "audit@example.com"],)"
    R"( "subject": "Quarterly report, revised figures for the north region", "urgency": "normal",)"
    R"( "counters": {"retries": 0, "pages": 12, "attachments": 3}, "options": {"enabled": true}})";

agentrt::tool_table const& table() {
    static auto const t = shop{}.table();
    return t;
}

void policy_evaluation(benchmark::State& state) {
    auto policy = agentrt::lower_policy(shop_policy{}, shop{});
    auto accepted = table().accept("send_message", send_text).value();
    auto const& tool = table().at(accepted.index);
    for (auto _ : state)
        benchmark::DoNotOptimize(policy(tool, accepted.args, agentrt::run_view{}));
}
BENCHMARK(policy_evaluation);

// The evaluator's own share: dispatch to the typed rule, a verdict that allocates nothing.
void policy_evaluation_allow(benchmark::State& state) {
    auto policy = agentrt::lower_policy(shop_policy{}, shop{});
    auto accepted = table().accept("send_message", internal_text).value();
    auto const& tool = table().at(accepted.index);
    if (policy(tool, accepted.args, agentrt::run_view{}).outcome != agentrt::outcome::allow)
        state.SkipWithError("the policy does not allow the internal call");
    for (auto _ : state)
        benchmark::DoNotOptimize(policy(tool, accepted.args, agentrt::run_view{}));
}
BENCHMARK(policy_evaluation_allow);

void class_table_evaluation(benchmark::State& state) {
    auto policy = agentrt::lower_policy(agentrt::class_table{}, shop{});
    auto accepted = table().accept("send_message", send_text).value();
    auto const& tool = table().at(accepted.index);
    for (auto _ : state)
        benchmark::DoNotOptimize(policy(tool, accepted.args, agentrt::run_view{}));
}
BENCHMARK(class_table_evaluation);

// Strict read + decode/validate + policy: everything between a model's text and a verdict.
void acceptance_path(benchmark::State& state) {
    auto policy = agentrt::lower_policy(shop_policy{}, shop{});
    for (auto _ : state) {
        auto accepted = table().accept("send_message", send_text);
        benchmark::DoNotOptimize(policy(table().at(accepted->index), accepted->args, agentrt::run_view{}));
    }
    state.SetBytesProcessed(std::int64_t(state.iterations() * send_text.size()));
}
BENCHMARK(acceptance_path);

// The baseline of the acceptance path: Boost.JSON's plain parse of the same bytes.
void boost_json_parse(benchmark::State& state) {
    for (auto _ : state)
        benchmark::DoNotOptimize(boost::json::parse(send_text));
    state.SetBytesProcessed(std::int64_t(state.iterations() * send_text.size()));
}
BENCHMARK(boost_json_parse);

void strict_read_only(benchmark::State& state) {
    for (auto _ : state)
        benchmark::DoNotOptimize(agentrt::read_json(send_text));
    state.SetBytesProcessed(std::int64_t(state.iterations() * send_text.size()));
}
BENCHMARK(strict_read_only);

// Validation of an already-read document: ours decodes into the struct as it validates.
void validate_agentrt(benchmark::State& state) {
    auto document = agentrt::read_json(send_text).value();
    auto const& type = agentrt::type_info_of<send_args>();
    for (auto _ : state) {
        send_args target;
        benchmark::DoNotOptimize(agentrt::decode_into(type, document, &target));
    }
}
BENCHMARK(validate_agentrt);

// The same tool's schema given at run time: the same decoder over compiled nodes, nothing stored.
void validate_agentrt_run_time(benchmark::State& state) {
    auto document = agentrt::read_json(send_text).value();
    auto schema = agentrt::compile_schema(agentrt::schema_of<send_args>()).value();
    if (!agentrt::validate(schema, document).empty())
        state.SkipWithError("the compiled schema refuses the document");
    for (auto _ : state)
        benchmark::DoNotOptimize(agentrt::validate(schema, document));
}
BENCHMARK(validate_agentrt_run_time);

void validate_valijson(benchmark::State& state) {
    boost::json::value schema_document = agentrt::schema_of<send_args>();
    valijson::Schema schema;
    valijson::SchemaParser parser;
    valijson::adapters::BoostJsonAdapter schema_adapter(schema_document);
    parser.populateSchema(schema_adapter, schema);
    auto document = agentrt::read_json(send_text).value();
    valijson::Validator validator;
    valijson::adapters::BoostJsonAdapter target(document);
    if (!validator.validate(schema, target, nullptr))
        state.SkipWithError("valijson refuses the document");
    for (auto _ : state)
        benchmark::DoNotOptimize(validator.validate(schema, target, nullptr));
}
BENCHMARK(validate_valijson);

} // namespace

BENCHMARK_MAIN();
