// A ticket agent that talks to a real model: an Anthropic or OpenAI-compatible endpoint (a local
// Ollama will do), the shop's tools and policy, and a durable store an operator decides on.
//
//     export AGENTRT_LIVE_PROVIDER=openai AGENTRT_LIVE_URL=http://127.0.0.1:11434/v1 AGENTRT_LIVE_MODEL=llama3.2
//     agentrt_live --store ./live-store "Ticket 7: ord-1042 never arrived; mail ana@customers.example"
//
// Each step is printed as it is decided and when it ends. A mail to someone who is not a customer
// waits for an operator: the program says which `agentrt approve` to run, then `--resume RUN`.
#include "../shop/shop.hpp"

#include <agentrt/models/anthropic.hpp>
#include <agentrt/models/openai.hpp>
#include <agentrt/models/prices.hpp>
#include <agentrt/runtime.hpp>
#include <agentrt/runtime/chat_agent.hpp>

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <span>

namespace {

std::string env(char const* name, std::string fallback = {}) {
    auto const* v = std::getenv(name);
    return v ? std::string(v) : fallback;
}

constexpr char const* how_to_configure = R"(No model endpoint is configured. Set, for example:

  a local Ollama (https://ollama.com, `ollama pull llama3.2`):
    export AGENTRT_LIVE_PROVIDER=openai AGENTRT_LIVE_URL=http://127.0.0.1:11434/v1 AGENTRT_LIVE_MODEL=llama3.2

  Anthropic:
    export AGENTRT_LIVE_PROVIDER=anthropic AGENTRT_LIVE_URL=https://api.anthropic.com
    export AGENTRT_LIVE_MODEL=claude-sonnet-4-0 ANTHROPIC_API_KEY=...

  OpenAI:
    export AGENTRT_LIVE_PROVIDER=openai AGENTRT_LIVE_URL=https://api.openai.com/v1
    export AGENTRT_LIVE_MODEL=gpt-4.1-mini OPENAI_API_KEY=...

AGENTRT_LIVE_KEY_VARIABLE names the variable holding the key (by default the provider's own, when it
is set; none otherwise).
)";

std::unique_ptr<agentrt::http_model> model_from_environment(std::string const& url) {
    auto const provider = env("AGENTRT_LIVE_PROVIDER", "openai");
    auto const standard = provider == "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
    auto key = env("AGENTRT_LIVE_KEY_VARIABLE", std::getenv(standard) ? standard : "");
    if (provider == "anthropic")
        return std::make_unique<agentrt::anthropic_model>(
            agentrt::anthropic_options{.base_url = url, .api_key_variable = key});
    if (provider == "openai")
        return std::make_unique<agentrt::openai_model>(
            agentrt::openai_options{.base_url = url, .api_key_variable = key});
    throw std::invalid_argument("AGENTRT_LIVE_PROVIDER is '" + provider + "': it is anthropic or openai");
}

std::string outcome_of(agentrt::step_record const& step) {
    if (step.status == agentrt::step_status::awaiting_approval)
        return "waits for an operator";
    return step.observation.empty() ? step.error : step.observation;
}

// Prints each step as the model decides it, and what came of it once the next decision sees it.
struct printing_agent final : agentrt::agent {
    agentrt::agent& inner;
    std::uint64_t printed = 0; // outcomes printed for the steps before this index
    explicit printing_agent(agentrt::agent& a) : inner(a) {}

    void print_outcomes(std::span<agentrt::step_record const> steps) {
        for (auto const& step : steps)
            if (step.index >= printed && step.kind == agentrt::decision_kind::tool_call) {
                std::cout << "  " << to_string(step.status) << ": " << outcome_of(step) << "\n";
                printed = step.index + 1;
            }
    }

    agentrt::decision decide(agentrt::agent_view const& view) override {
        print_outcomes(view.steps);
        auto d = inner.decide(view);
        std::cout << "step " << view.step_index << ": ";
        if (d.kind == agentrt::decision_kind::tool_call)
            std::cout << "the model calls " << d.tool << " " << d.arguments << "\n";
        else
            std::cout << "the model answers: " << d.summary << "\n";
        return d;
    }
};

void report(agentrt::store const& s, agentrt::run_record const& run, printing_agent& printer,
            std::string const& store_dir) {
    printer.print_outcomes(agentrt::read_run(s, run.id).value().steps);
    std::cout << "run " << run.id << " is " << to_string(run.status);
    if (!run.message.empty())
        std::cout << ": " << run.message;
    std::cout << "\n";
    if (run.status == agentrt::run_status::waiting_for_approval)
        std::cout << "an operator decides it:\n  agentrt --store " << store_dir << " show " << run.id
                  << "\n  agentrt --store " << store_dir << " approve " << run.id << "\nthen go on with:\n"
                  << "  agentrt_live --store " << store_dir << " --resume " << run.id << "\n";
}

} // namespace

int main(int argc, char** argv) try {
    CLI::App app("A ticket agent over a real model, with the shop's tools and policy.");
    std::string store_dir = "live-store", resume,
                goal = "Ticket 7: order ord-1042 never arrived. Look it up and mail the customer, "
                       "ana@customers.example, that a refund is on its way.";
    app.add_option("--store", store_dir, "the store directory")->capture_default_str();
    app.add_option("--resume", resume, "drive an existing run on (after an operator decided)");
    app.add_option("goal", goal, "the ticket")->capture_default_str();
    CLI11_PARSE(app, argc, argv);

    auto const url = env("AGENTRT_LIVE_URL");
    if (url.empty()) {
        std::cout << how_to_configure;
        return 2;
    }
    auto model = model_from_environment(url);
    auto tools = shop::tools{}.table();
    auto policy = agentrt::lower_policy(shop::policy{}, shop::tools{});
    agentrt::chat_agent chat(*model, tools,
                             {.model = env("AGENTRT_LIVE_MODEL", "llama3.2"),
                              .system = "You handle a shop's support tickets with the tools given. Call one tool "
                                        "at a time; answer in one sentence when the ticket is handled."});
    printing_agent agent(chat);
    agentrt::gate_options options;
    options.models.prices = agentrt::published_prices();
    auto s = agentrt::store::open(store_dir).value();
    agentrt::driver d(s, tools, policy, agent, options);
    auto run = resume.empty() ? d.start(goal) : d.resume(resume);
    if (!run) {
        std::cerr << "agentrt_live: " << run.error().to_string() << "\n";
        return 1;
    }
    report(s, *run, agent, store_dir);
    return run->status == agentrt::run_status::failed ? 1 : 0;
} catch (std::exception const& e) {
    std::cerr << "agentrt_live: " << e.what() << "\n";
    return 1;
}
