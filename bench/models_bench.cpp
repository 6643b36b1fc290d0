// Rendering a conversation and reading a streamed reply, beside Boost.JSON parsing the same bytes.
//
//     agentrt_models_bench --benchmark_format=json | python3 bench/ratios.py parse_render_bytes
#include "shop/shop.hpp"

#include <agentrt/models/anthropic.hpp>
#include <agentrt/models/openai.hpp>
#include <agentrt/runtime/chat_agent.hpp>
#include <agentrt/testkit/fake_provider.hpp>

#include <benchmark/benchmark.h>
#include <boost/json/parse.hpp>

#include <stdexcept>

namespace {

constexpr int steps_in_conversation = 50;

struct never_called final : agentrt::model {
    agentrt::model_result complete(agentrt::model_request const&, agentrt::model_call_context const&) override {
        throw std::logic_error("not called");
    }
};

struct conversation {
    never_called model;
    agentrt::tool_table table = shop::tools{}.table();
    agentrt::chat_agent agent{model, table, {.model = "claude-sonnet-4-0"}};
    agentrt::run_record run;
    std::vector<agentrt::step_record> steps;

    conversation() {
        run.id = "run-1";
        run.goal = "Ticket 7: order ord-1042 never arrived; look up every order of the customer and mail them.";
        for (int i = 0; i < steps_in_conversation; ++i) {
            agentrt::step_record s;
            s.run_id = run.id;
            s.index = static_cast<std::uint64_t>(i);
            s.status = agentrt::step_status::done;
            auto d =
                agentrt::decision::call("lookup_order", R"({"order_id":"ord-)" + std::to_string(1000 + i) + R"("})");
            d.summary = "Looking up the next order.";
            s.decision = d.to_text();
            s.kind = d.kind;
            s.tool = d.tool;
            s.arguments = d.arguments;
            s.observation = R"({"customer":"ana","order":"ord-)" + std::to_string(1000 + i) +
                            R"(","status":"refund due","items":[{"sku":"tea-200","qty":2},{"sku":"mug-1","qty":1}]})";
            steps.push_back(std::move(s));
        }
    }
};

conversation& shared_conversation() {
    static conversation c;
    return c;
}

agentrt::anthropic_model const& anthropic_reader() {
    static agentrt::anthropic_model m({.base_url = "http://127.0.0.1:9", .api_key_variable = ""});
    return m;
}
agentrt::openai_model const& openai_reader() {
    static agentrt::openai_model m({.base_url = "http://127.0.0.1:9", .api_key_variable = ""});
    return m;
}

// A real streamed reply, fetched once from the fake provider: some text and a tool call with 8 KiB
// of arguments, in the fragments the provider's format has.
agentrt::http_reply streamed_reply(agentrt::testkit::wire_format wire) {
    std::string body(8192, 'x');
    auto arguments = R"({"to":"ana@customers.example","subject":"Your refund","body":")" + body + R"("})";
    agentrt::testkit::fake_provider server(
        wire, {agentrt::testkit::provider_reply::calls({{"send_email", arguments}}, std::string(2048, 'y'))});
    agentrt::model_request request;
    request.model = "m";
    request.messages.push_back(agentrt::model_message::user("go"));
    agentrt::model_call_context context{"run-1", 0, 1, std::chrono::steady_clock::now() + std::chrono::seconds(10), {}};
    if (wire == agentrt::testkit::wire_format::anthropic)
        return agentrt::anthropic_model({.base_url = server.base_url(), .api_key_variable = ""})
            .exchange(request, context);
    return agentrt::openai_model({.base_url = server.base_url(), .api_key_variable = ""}).exchange(request, context);
}

std::vector<std::string> data_payloads(std::string const& sse) {
    std::vector<std::string> out;
    for (std::size_t at = sse.find("data: "); at != std::string::npos; at = sse.find("data: ", at + 1)) {
        auto end = sse.find('\n', at);
        auto payload = sse.substr(at + 6, end - at - 6);
        if (payload != "[DONE]")
            out.push_back(std::move(payload));
    }
    return out;
}

void render_canonical(benchmark::State& state) {
    auto& c = shared_conversation();
    std::size_t bytes = 0;
    for (auto _ : state) {
        auto text = agentrt::canonical_request(c.agent.render(c.run, c.steps));
        bytes = text.size();
        benchmark::DoNotOptimize(text);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(render_canonical);

void render_anthropic_body(benchmark::State& state) {
    auto& c = shared_conversation();
    std::size_t bytes = 0;
    for (auto _ : state) {
        auto body = anthropic_reader().body_of(c.agent.render(c.run, c.steps));
        bytes = body.size();
        benchmark::DoNotOptimize(body);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(render_anthropic_body);

// The limit: Boost.JSON parsing the bytes the render writes.
void parse_render_bytes(benchmark::State& state) {
    auto& c = shared_conversation();
    auto const body = anthropic_reader().body_of(c.agent.render(c.run, c.steps));
    for (auto _ : state)
        benchmark::DoNotOptimize(boost::json::parse(body));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
}
BENCHMARK(parse_render_bytes);

void parse_canonical_bytes(benchmark::State& state) {
    auto& c = shared_conversation();
    auto const text = agentrt::canonical_request(c.agent.render(c.run, c.steps));
    for (auto _ : state)
        benchmark::DoNotOptimize(boost::json::parse(text));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(parse_canonical_bytes);

void read_anthropic_stream(benchmark::State& state) {
    auto const reply = streamed_reply(agentrt::testkit::wire_format::anthropic);
    for (auto _ : state)
        benchmark::DoNotOptimize(anthropic_reader().read(reply));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * reply.body.size()));
}
BENCHMARK(read_anthropic_stream);

// The limit: Boost.JSON parsing the events' data, already cut out of the stream.
void parse_anthropic_stream_data(benchmark::State& state) {
    auto const reply = streamed_reply(agentrt::testkit::wire_format::anthropic);
    auto const payloads = data_payloads(reply.body);
    for (auto _ : state)
        for (auto const& p : payloads)
            benchmark::DoNotOptimize(boost::json::parse(p));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * reply.body.size()));
}
BENCHMARK(parse_anthropic_stream_data);

void read_openai_stream(benchmark::State& state) {
    auto const reply = streamed_reply(agentrt::testkit::wire_format::openai);
    for (auto _ : state)
        benchmark::DoNotOptimize(openai_reader().read(reply));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * reply.body.size()));
}
BENCHMARK(read_openai_stream);

void parse_openai_stream_data(benchmark::State& state) {
    auto const reply = streamed_reply(agentrt::testkit::wire_format::openai);
    auto const payloads = data_payloads(reply.body);
    for (auto _ : state)
        for (auto const& p : payloads)
            benchmark::DoNotOptimize(boost::json::parse(p));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * reply.body.size()));
}
BENCHMARK(parse_openai_stream_data);

} // namespace

BENCHMARK_MAIN();
