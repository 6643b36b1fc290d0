// Each record described once: its stored keys in order, with the members they hold. Internal.
//
// The stored text (record_text.hpp), to_json and the readers (records.hpp) all walk these lists, so
// a field is added in one place and the three cannot disagree. The keys and their order are the
// store's format (schema version 2): tests/runtime/record_text.cpp pins the text of every record.
#pragma once

#include <agentrt/runtime/records.hpp>

#include <string_view>
#include <tuple>

namespace agentrt::record_fields {

template <class Record, class Member>
struct field {
    std::string_view key;
    Member Record::*member;
};
template <class Record, class Member>
constexpr field<Record, Member> at(std::string_view key, Member Record::*member) {
    return {key, member};
}

template <class Record>
struct of; // name: how errors call the record; list: its fields in stored order

template <>
struct of<lease_record> {
    static constexpr std::string_view name = "lease";
    static constexpr auto list =
        std::tuple{at("owner", &lease_record::owner), at("host", &lease_record::host), at("pid", &lease_record::pid),
                   at("expiry", &lease_record::expiry_ms), at("epoch", &lease_record::epoch)};
};

template <>
struct of<run_record> {
    static constexpr std::string_view name = "run";
    static constexpr auto list = std::tuple{at("id", &run_record::id),
                                            at("goal", &run_record::goal),
                                            at("status", &run_record::status),
                                            at("reason", &run_record::reason),
                                            at("message", &run_record::message),
                                            at("created", &run_record::created_ms),
                                            at("updated", &run_record::updated_ms),
                                            at("active", &run_record::active_ms),
                                            at("active_since", &run_record::active_since_ms),
                                            at("order", &run_record::order),
                                            at("next_step", &run_record::next_step),
                                            at("failed_streak", &run_record::failed_streak),
                                            at("event_count", &run_record::event_count),
                                            at("model_calls", &run_record::model_calls),
                                            at("tokens", &run_record::tokens),
                                            at("cost_micros", &run_record::cost_micros),
                                            at("head", &run_record::head),
                                            at("policy", &run_record::policy),
                                            at("lease", &run_record::lease)};
};

template <>
struct of<policy_record> {
    static constexpr std::string_view name = "policy";
    static constexpr auto list = std::tuple{at("identity", &policy_record::identity),
                                            at("outcome", &policy_record::outcome),
                                            at("reason", &policy_record::reason),
                                            at("steps_seen", &policy_record::steps_seen),
                                            at("approvals_seen", &policy_record::approvals_seen),
                                            at("failed_streak", &policy_record::failed_streak)};
};

template <>
struct of<step_record> {
    static constexpr std::string_view name = "step";
    static constexpr auto list = std::tuple{at("run", &step_record::run_id),
                                            at("index", &step_record::index),
                                            at("status", &step_record::status),
                                            at("decision", &step_record::decision),
                                            at("kind", &step_record::kind),
                                            at("tool", &step_record::tool),
                                            at("arguments", &step_record::arguments),
                                            at("spec_hash", &step_record::spec_hash),
                                            at("observation", &step_record::observation),
                                            at("error", &step_record::error),
                                            at("interrupted_in", &step_record::interrupted_in),
                                            at("resolution", &step_record::resolution),
                                            at("attempt", &step_record::attempt),
                                            at("ignored_calls", &step_record::ignored_calls),
                                            at("late_observation", &step_record::late_observation),
                                            at("started", &step_record::started_ms),
                                            at("finished", &step_record::finished_ms),
                                            at("policy", &step_record::policy)};
};

template <>
struct of<approval_record> {
    static constexpr std::string_view name = "approval";
    static constexpr auto list = std::tuple{at("run", &approval_record::run_id),
                                            at("step", &approval_record::step_index),
                                            at("seq", &approval_record::seq),
                                            at("kind", &approval_record::kind),
                                            at("reason", &approval_record::reason),
                                            at("capability", &approval_record::capability),
                                            at("presentation", &approval_record::presentation),
                                            at("request", &approval_record::request),
                                            at("hash", &approval_record::hash),
                                            at("status", &approval_record::status),
                                            at("used", &approval_record::used),
                                            at("requested", &approval_record::requested_ms),
                                            at("decided", &approval_record::decided_ms),
                                            at("decided_by", &approval_record::decided_by)};
};

template <>
struct of<model_call_record> {
    static constexpr std::string_view name = "model call";
    static constexpr auto list = std::tuple{at("run", &model_call_record::run_id),
                                            at("seq", &model_call_record::seq),
                                            at("step", &model_call_record::step_index),
                                            at("attempt", &model_call_record::attempt),
                                            at("model", &model_call_record::model),
                                            at("status", &model_call_record::status),
                                            at("input_tokens", &model_call_record::input_tokens),
                                            at("output_tokens", &model_call_record::output_tokens),
                                            at("cost_micros", &model_call_record::cost_micros),
                                            at("error", &model_call_record::error),
                                            at("request_hash", &model_call_record::request_hash),
                                            at("dispatched", &model_call_record::dispatched_ms),
                                            at("finished", &model_call_record::finished_ms)};
};

template <>
struct of<event_record> {
    static constexpr std::string_view name = "event";
    static constexpr auto list =
        std::tuple{at("run", &event_record::run_id), at("seq", &event_record::seq),   at("type", &event_record::type),
                   at("at", &event_record::at_ms),   at("data", &event_record::data), at("prev", &event_record::prev),
                   at("hash", &event_record::hash)};
};

} // namespace agentrt::record_fields
