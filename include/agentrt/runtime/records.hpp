// agentrt/runtime/records.hpp — what the store holds: runs, steps, approvals and events.
//
//     agentrt::run_record run = ...;
//     if (run.status == agentrt::run_status::waiting_for_approval) show(run.id);
//
// Records are plain values. The runtime reads and writes them inside store transactions; tools,
// agents, policies and operators only ever see copies, so nothing they do changes what is stored.
#pragma once

#include <agentrt/runtime/events.hpp>

#include <boost/describe/enum.hpp>

#include <boost/json/object.hpp>
#include <boost/json/storage_ptr.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt {

// Stored by their enumerators' names, which Boost.Describe gives: no other code spells them.
enum class run_status : std::uint8_t { running, waiting_for_approval, completed, failed, cancelled };
enum class step_status : std::uint8_t { deciding, awaiting_approval, executing, done, failed, interrupted };
enum class approval_status : std::uint8_t { pending, approved, rejected, expired, cancelled };
enum class decision_kind : std::uint8_t { tool_call, complete, fail };
BOOST_DESCRIBE_ENUM(run_status, running, waiting_for_approval, completed, failed, cancelled)
BOOST_DESCRIBE_ENUM(step_status, deciding, awaiting_approval, executing, done, failed, interrupted)
BOOST_DESCRIBE_ENUM(approval_status, pending, approved, rejected, expired, cancelled)
BOOST_DESCRIBE_ENUM(decision_kind, tool_call, complete, fail)

std::string_view to_string(run_status s) noexcept;
std::string_view to_string(step_status s) noexcept;
std::string_view to_string(approval_status s) noexcept;
std::string_view to_string(decision_kind k) noexcept;
bool is_terminal(run_status s) noexcept;

// Why a run ended (run_record::reason).
namespace run_reason {
inline constexpr std::string_view goal_completed = "goal_completed";
inline constexpr std::string_view agent_failed = "agent_failed";
inline constexpr std::string_view limit_steps = "limit_steps";
inline constexpr std::string_view limit_failures = "limit_failures";
inline constexpr std::string_view limit_elapsed = "limit_elapsed";
inline constexpr std::string_view limit_active = "limit_active";
inline constexpr std::string_view limit_model_calls = "limit_model_calls";
inline constexpr std::string_view limit_tokens = "limit_tokens";
inline constexpr std::string_view limit_cost = "limit_cost";
inline constexpr std::string_view loop_detected = "loop_detected";
inline constexpr std::string_view policy_abort = "policy_abort";
inline constexpr std::string_view approval_rejected = "approval_rejected";
inline constexpr std::string_view operator_cancelled = "operator_cancelled";
inline constexpr std::string_view reconcile_conflict = "reconcile_conflict";
inline constexpr std::string_view internal_error = "internal_error";
} // namespace run_reason

// Times are milliseconds since the Unix epoch, read from the injectable clocks.
struct lease_record {
    std::string owner; // empty: nobody holds the run
    std::string host;
    std::int64_t pid = 0;
    std::int64_t expiry_ms = 0; // lease clock
    // Raised by every take of the run, kept when it is released: every write under a lease compares
    // owner and epoch, so a holder whose lease was released, lapsed or taken changes nothing.
    std::uint64_t epoch = 0;
};

struct run_record {
    std::string id;
    std::string goal;
    run_status status = run_status::running;
    std::string reason;  // set when terminal
    std::string message; // human detail of the reason
    std::int64_t created_ms = 0;
    std::int64_t updated_ms = 0;
    std::int64_t active_ms = 0;       // time spent running under a lease, approval waits excluded
    std::int64_t active_since_ms = 0; // when the current stretch of running began; 0 while paused
    std::uint64_t order = 0;          // creation sequence in the store, for newest-first listing
    std::uint64_t next_step = 0;      // index the next step gets
    std::uint64_t failed_streak = 0;
    std::uint64_t event_count = 0;
    std::uint64_t model_calls = 0;
    std::uint64_t tokens = 0;
    std::uint64_t cost_micros = 0; // US dollars × 1,000,000, as charged from the price table
    std::string head;              // hash of the run's last event
    std::string policy;            // identity of the policy of the latest evaluation
    lease_record lease;
};

// What the policy was handed, by reference: enough to rebuild its view from the record.
struct policy_record {
    std::string identity;
    std::string outcome; // allow, deny, abort, require_approval
    std::string reason;
    std::uint64_t steps_seen = 0;
    std::uint64_t approvals_seen = 0;
    std::uint64_t failed_streak = 0;
};

struct step_record {
    std::string run_id;
    std::uint64_t index = 0;
    step_status status = step_status::deciding;
    std::string decision; // verbatim as proposed (JSON text of the decision)
    std::optional<decision_kind> kind;
    std::string tool;      // empty unless a tool_call
    std::string arguments; // canonical JSON once validated, else the text as sent
    std::string spec_hash; // of the tool spec validated against
    std::optional<policy_record> policy;
    std::string observation;         // JSON text of the outcome, kept as bytes when unusable
    std::string error;               // why the step failed or was interrupted
    std::string interrupted_in;      // deciding or executing, when interrupted
    std::string resolution;          // how an interrupted step was settled: left_behind, reconciled, approval, ...
    std::uint32_t attempt = 0;       // tool calls started for this step
    std::uint64_t ignored_calls = 0; // further tool calls of the same reply, noted and not run
    std::string late_observation;    // an outcome that arrived after the step stopped waiting
    std::int64_t started_ms = 0;
    std::int64_t finished_ms = 0;

    std::string id() const; // "<run>/<index>"
};

struct approval_record {
    std::string run_id;
    std::uint64_t step_index = 0;
    std::uint64_t seq = 0; // per step; the highest is the latest, the only one that can grant
    std::string kind;
    std::string reason;
    boost::json::value capability;
    boost::json::value presentation;
    boost::json::object request; // run, step, tool (full spec), arguments
    std::string hash;            // over kind, capability, presentation and request
    approval_status status = approval_status::pending;
    bool used = false; // the grant has started its tool call
    std::int64_t requested_ms = 0;
    std::int64_t decided_ms = 0;
    std::string decided_by;
};

// One call of the model seam: dispatched before the call, then ok, error or ambiguous (cut off).
struct model_call_record {
    std::string run_id;
    std::uint64_t seq = 0; // per run
    std::uint64_t step_index = 0;
    std::uint32_t attempt = 1;
    std::string model;
    std::string status; // dispatched, ok, error, ambiguous
    std::uint64_t input_tokens = 0;
    std::uint64_t output_tokens = 0;
    std::uint64_t cost_micros = 0;
    std::string error;
    std::string request_hash; // SHA-256 of the request's canonical JSON
    std::int64_t dispatched_ms = 0;
    std::int64_t finished_ms = 0;
};

struct event_record {
    std::string run_id;
    std::uint64_t seq = 0;
    std::string type; // as stored: to_string of an event_type, or what a damaged or newer store holds
    std::int64_t at_ms = 0;
    boost::json::object data;
    std::string prev; // hash of the run's previous event, "" for the first
    std::string hash; // SHA-256 of the canonical JSON of everything above

    bool is(event_type t) const noexcept { return type == to_string(t); }
};

// The canonical hash an approval must carry: SHA-256 of {kind, capability, presentation, request}.
std::string approval_hash(approval_record const& a);
// The hash an event must carry, computed from its fields (not from `hash`).
std::string event_hash(event_record const& e);

boost::json::object to_json(run_record const& r);
boost::json::object to_json(step_record const& s);
boost::json::object to_json(approval_record const& a);
boost::json::object to_json(event_record const& e);
boost::json::object to_json(model_call_record const& m);
// Throw agentrt::exception naming the field when a stored record is malformed.
run_record run_from_json(boost::json::value const& v);
step_record step_from_json(boost::json::value const& v);
approval_record approval_from_json(boost::json::value const& v);
event_record event_from_json(boost::json::value const& v);
model_call_record model_call_from_json(boost::json::value const& v);

// Parses the text of a stored or exported record. A record keeps what a model sent verbatim, and
// those bytes need not be UTF-8, so here (and only here) strings may hold invalid UTF-8.
boost::json::value parse_record_text(std::string_view text, boost::json::storage_ptr memory = {});

} // namespace agentrt
