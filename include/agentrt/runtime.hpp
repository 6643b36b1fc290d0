// agentrt/runtime.hpp — the durable runtime: store, gate, driver, operator functions, reads, verify.
//
//     agentrt::store store = agentrt::store::open("/var/lib/app/agentrt").value();
//     agentrt::driver driver(store, table, policy, agent);
//     agentrt::run_record run = driver.start("refund order 7").value();
#pragma once

#include <agentrt/runtime/agent.hpp>
#include <agentrt/runtime/check.hpp>
#include <agentrt/runtime/clock.hpp>
#include <agentrt/runtime/decision.hpp>
#include <agentrt/runtime/driver.hpp>
#include <agentrt/runtime/engine.hpp>
#include <agentrt/runtime/gate.hpp>
#include <agentrt/runtime/limits.hpp>
#include <agentrt/runtime/model.hpp>
#include <agentrt/runtime/operator.hpp>
#include <agentrt/runtime/copy.hpp>
#include <agentrt/runtime/prune.hpp>
#include <agentrt/runtime/reads.hpp>
#include <agentrt/runtime/records.hpp>
#include <agentrt/runtime/store.hpp>
#include <agentrt/runtime/tool_definitions.hpp>
#include <agentrt/runtime/verify.hpp>
#include <agentrt/runtime/worker.hpp>
