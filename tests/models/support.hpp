// What the client tests share: a request like the chat agent's, a call with a deadline, a key in the environment.
#pragma once

#include <agentrt/models/http_model.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <stop_token>
#include <string>
#include <variant>

namespace models_test {

inline agentrt::model_request ticket_request() {
    agentrt::model_request r;
    r.model = "test-model";
    r.system = "You handle support tickets.";
    r.max_output_tokens = 256;
    r.messages.push_back(agentrt::model_message::user("where is ord-1?"));
    r.tools.push_back(boost::json::object{
        {"name", "lookup_order"},
        {"description", "Looks an order up."},
        {"input_schema",
         {{"type", "object"}, {"properties", {{"order_id", {{"type", "string"}}}}}, {"required", {"order_id"}}}}});
    return r;
}

// The request after one lookup that ran, with a second call of the same reply that did not.
inline agentrt::model_request after_one_step() {
    auto r = ticket_request();
    r.messages.push_back({agentrt::message_role::assistant,
                          {agentrt::text_block{"Looking it up."},
                           agentrt::model_tool_call{"step_0", "lookup_order", R"({"order_id":"ord-1"})"},
                           agentrt::model_tool_call{"step_0_1", "lookup_order", R"({"order_id":"ord-2"})"}}});
    r.messages.push_back({agentrt::message_role::user,
                          {agentrt::tool_result_block{"step_0", R"({"status":"shipped"})", false},
                           agentrt::tool_result_block{"step_0_1", "not run", true}}});
    return r;
}

inline agentrt::model_result call(agentrt::model& m, agentrt::model_request const& r,
                                  std::chrono::milliseconds within = std::chrono::seconds(20),
                                  std::stop_token stop = {}) {
    agentrt::model_call_context context{"run-1", 0, 1, std::chrono::steady_clock::now() + within, stop};
    return m.complete(r, context);
}

inline agentrt::model_response reply_of(agentrt::model_result const& r) {
    if (auto const* e = std::get_if<agentrt::model_error>(&r))
        FAIL("the call failed: " << e->message);
    return std::get<agentrt::model_response>(r);
}

inline agentrt::model_error error_of(agentrt::model_result const& r) {
    REQUIRE_MESSAGE(std::holds_alternative<agentrt::model_error>(r), "the call succeeded");
    return std::get<agentrt::model_error>(r);
}

inline boost::json::value json_of(std::string const& text) {
    return boost::json::parse(text);
}

// An environment variable for the life of a test.
struct scoped_env {
    std::string name;
    scoped_env(std::string n, std::string const& value) : name(std::move(n)) {
        ::setenv(name.c_str(), value.c_str(), 1);
    }
    ~scoped_env() { ::unsetenv(name.c_str()); }
};

inline constexpr char const* test_key = "sk-test-4f1d9c2e-do-not-print";

} // namespace models_test
