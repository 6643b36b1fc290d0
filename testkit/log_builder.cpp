#include <agentrt/testkit/log_builder.hpp>

#include <algorithm>
#include <stdexcept>

namespace agentrt::testkit {

log_builder::log_builder(std::string run_id, std::string goal) {
    run_.id = std::move(run_id);
    run_.goal = std::move(goal);
    run_.created_ms = run_.updated_ms = now_;
    events_.push_back({event_type::run_created, {{"goal", run_.goal}, {"policy", "log-builder"}}});
}

log_builder& log_builder::status(run_status s, std::string reason, std::string message) {
    run_.status = s;
    run_.reason = std::move(reason);
    run_.message = std::move(message);
    if (is_terminal(s))
        events_.push_back({event_type::run_finished, {{"status", to_string(s)}, {"reason", run_.reason}}});
    return *this;
}

log_builder& log_builder::lease(std::string owner, std::int64_t pid, std::int64_t expiry_ms) {
    run_.lease = {std::move(owner), "built", pid, expiry_ms};
    return *this;
}

log_builder& log_builder::step(std::uint64_t index, step_status s, std::string tool, std::string arguments) {
    step_record st;
    st.run_id = run_.id;
    st.index = index;
    st.status = s;
    st.tool = std::move(tool);
    st.kind = st.tool.empty() ? decision_kind::complete : decision_kind::tool_call;
    st.arguments = std::move(arguments);
    st.started_ms = now_;
    steps_.push_back(std::move(st));
    run_.next_step = std::max(run_.next_step, index + 1);
    events_.push_back({event_type::step_started, {{"step", index}}});
    return *this;
}

log_builder& log_builder::tool_started(std::uint64_t step, std::string approval_hash) {
    for (auto& st : steps_)
        if (st.index == step)
            ++st.attempt;
    boost::json::object data{{"step", step}};
    if (!approval_hash.empty())
        data["approval"] = approval_hash;
    events_.push_back({event_type::step_tool_started, std::move(data)});
    return *this;
}

log_builder& log_builder::tool_finished(std::uint64_t step, bool late) {
    boost::json::object data{{"step", step}, {"ok", true}};
    if (late)
        data["late"] = true;
    events_.push_back({event_type::step_tool_finished, std::move(data)});
    return *this;
}

log_builder& log_builder::interrupted(std::uint64_t step) {
    events_.push_back({event_type::step_interrupted, {{"step", step}, {"in", "executing"}}});
    return *this;
}

log_builder& log_builder::approval(std::uint64_t step, std::string kind, approval_status s, bool used) {
    approval_record a;
    a.run_id = run_.id;
    a.step_index = step;
    a.seq = std::uint64_t(std::count_if(approvals_.begin(), approvals_.end(),
                                        [&](approval_record const& x) { return x.step_index == step; }));
    a.kind = std::move(kind);
    a.reason = "built";
    a.capability = nullptr;
    a.presentation = nullptr;
    a.request = {{"run", run_.id}, {"step", step}};
    a.hash = approval_hash_of(a);
    a.status = s;
    a.used = used;
    a.requested_ms = now_;
    events_.push_back(
        {event_type::approval_requested, {{"step", step}, {"seq", a.seq}, {"kind", a.kind}, {"hash", a.hash}}});
    if (s == approval_status::approved || s == approval_status::rejected)
        events_.push_back({event_type::approval_decided, {{"step", step}, {"hash", a.hash}, {"status", to_string(s)}}});
    approvals_.push_back(std::move(a));
    return *this;
}

log_builder& log_builder::event(event_type type, boost::json::object data) {
    events_.push_back({type, std::move(data)});
    return *this;
}

std::string log_builder::approval_hash(std::uint64_t step) const {
    for (auto it = approvals_.rbegin(); it != approvals_.rend(); ++it)
        if (it->step_index == step)
            return it->hash;
    throw std::invalid_argument("log_builder: step " + std::to_string(step) + " has no approval yet");
}

std::string log_builder::approval_hash_of(approval_record const& a) {
    return agentrt::approval_hash(a);
}

void log_builder::write(store& s) const {
    s.write([&](store_writer& w) {
        run_record run = run_;
        run.head.clear();
        run.event_count = 0;
        for (auto const& [type, data] : events_)
            w.append(run, type, data, now_);
        w.put(run);
        for (auto const& st : steps_)
            w.put(st);
        for (auto const& a : approvals_)
            w.put(a);
    });
}

} // namespace agentrt::testkit
