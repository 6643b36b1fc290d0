// agentrt/testkit/model_agent.hpp — the runtime's chat agent, under the name the test kit gave it first.
//
//     agentrt::testkit::fake_model model({turn::call("lookup_order", R"({"order_id":"ord-1"})"),
//                                         turn::text("shipped")});
//     agentrt::testkit::model_agent agent(model, shop::tools{}.table());
//
// A test drives exactly the agent production runs (agentrt/runtime/chat_agent.hpp).
#pragma once

#include <agentrt/runtime/chat_agent.hpp>

namespace agentrt::testkit {

using model_agent = agentrt::chat_agent;
using model_agent_options = agentrt::chat_agent_options;

} // namespace agentrt::testkit
