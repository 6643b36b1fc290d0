// The stored text of the records written once per step, and the canonical text an event's hash is
// taken over, written straight into a string. Internal.
//
// Measured (bench/runtime_bench.cpp): building a boost::json::object per record and serializing it
// was most of the CPU cost of a durable step. The text written here is byte for byte what
// boost::json::serialize(to_json(r)) writes, and event_body_text(e) is byte for byte
// canonical_json of the event's body (tests/runtime/record_text.cpp pins both), so stores and hashes
// are unchanged.
#pragma once

#include <agentrt/runtime/records.hpp>

#include <string>

namespace agentrt::record_text {

std::string of(run_record const& r);
std::string of(step_record const& s);
std::string of(approval_record const& a);
std::string of(model_call_record const& m);
std::string of(event_record const& e);

// The canonical JSON of {run, seq, type, at, data, prev}: what event_hash hashes.
std::string event_body_text(event_record const& e);

} // namespace agentrt::record_text
