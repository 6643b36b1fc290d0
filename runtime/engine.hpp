// Pieces the gate, its sessions and the operator functions share. Internal.
#pragma once

#include <agentrt/catalog/policy.hpp>
#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/runtime/records.hpp>
#include <agentrt/runtime/store.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentrt::engine {

std::string const& host_name();

// Sessions of this process that are alive: a lease of this process whose owner is not here was
// left by a session that ended without releasing (as a crash leaves it).
void add_live_owner(std::string const& owner);
void remove_live_owner(std::string const& owner);
bool live_owner(std::string const& owner);

// An owner marked live before its lease is committed, so that no other thread of this process can
// read the new lease and take its holder for dead; unmarked again unless a session took it over.
class live_claim {
public:
    explicit live_claim(std::string owner) : owner_(std::move(owner)) { add_live_owner(owner_); }
    ~live_claim() {
        if (!kept_)
            remove_live_owner(owner_);
    }
    live_claim(live_claim const&) = delete;
    live_claim& operator=(live_claim const&) = delete;
    void keep() noexcept { kept_ = true; } // a session now owns the mark

private:
    std::string owner_;
    bool kept_ = false;
};

// Whether the holder of `lease` is still alive, as far as this host can tell.
bool holder_alive(store const& s, lease_record const& lease);

// Finite numbers only: NaN and infinities have no JSON spelling and cannot be hashed.
bool usable_json(boost::json::value const& v);

// Active time: a stretch starts when a session takes the run and ends when the run pauses or ends.
void start_active(run_record& run, std::int64_t now);
void count_active(run_record& run, std::int64_t now); // adds the stretch so far, keeps counting
void pause_active(run_record& run, std::int64_t now); // adds the stretch and stops counting

void finish_run(store_writer& w, run_record& run, run_status status, std::string_view reason, std::string message,
                std::int64_t now);

// Marks a step interrupted (as a takeover or a cancel does) and records step.interrupted.
void interrupt_step(store_writer& w, run_record& run, step_record& step, std::string resolution, std::int64_t now);

// Whether an interrupted step can simply be left behind (deciding, or a read-only tool).
bool harmless_interruption(step_record const& step, tool_table const& tools);

std::optional<approval_record> latest_approval(store_reader const& r, std::string_view run_id, std::uint64_t step);

// Creates the step's next approval (the latest, the only one that can grant).
approval_record request_approval(store_writer& w, run_record& run, step_record const& step,
                                 boost::json::object const& tool_spec, verdict const& v, std::int64_t now);

// A snapshot of a run as a policy sees it; the view points into the snapshot.
struct view_snapshot {
    run_record run;
    std::deque<step_record> steps; // a deque: appending moves no record, so the views stay valid
    std::vector<approval_record> approvals;
    std::vector<step_view> step_views;
    std::vector<approval_view> approval_views;
    run_view view;
};
// Brings a snapshot up to date, reading only the steps it does not hold yet.
void refresh(view_snapshot& snap, store const& s, std::string_view run_id, std::uint64_t before_step);
std::unique_ptr<view_snapshot> snapshot(store const& s, std::string_view run_id, std::uint64_t before_step);

// The policy's answer, or why it has none (it threw, or its capability or presentation is unusable).
struct evaluation {
    std::optional<verdict> answer;
    std::string failure;
};
evaluation evaluate(evaluator const& policy, tool_entry const& tool, arguments const& args, run_view const& view);

policy_record policy_of(evaluator const& policy, verdict const& v, view_snapshot const& snap);

} // namespace agentrt::engine
