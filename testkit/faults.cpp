#include <agentrt/testkit/faults.hpp>

#include "scenario_internal.hpp"

#include <chrono>
#include <vector>

namespace agentrt::testkit {

std::string_view to_string(fault_site site) noexcept {
    switch (site) {
    case fault_site::put:
        return "put";
    case fault_site::commit:
        return "commit";
    case fault_site::sync:
        return "sync";
    case fault_site::read:
        return "read";
    }
    return "unknown";
}

std::string_view to_string(fault_error error) noexcept {
    switch (error) {
    case fault_error::no_space:
        return "no_space";
    case fault_error::io_error:
        return "io_error";
    case fault_error::map_full:
        return "map_full";
    }
    return "unknown";
}

std::string to_string(fault const& f) {
    return "the " + std::to_string(f.nth) +
           (f.nth % 10 == 1 && f.nth % 100 != 11   ? "st "
            : f.nth % 10 == 2 && f.nth % 100 != 12 ? "nd "
            : f.nth % 10 == 3 && f.nth % 100 != 13 ? "rd "
                                                   : "th ") +
           std::string(to_string(f.site)) + " fails with " + std::string(to_string(f.error));
}

agentrt::error error_of(fault const& f) {
    std::string what = f.site == fault_site::put      ? "mdb_put"
                       : f.site == fault_site::commit ? "mdb_txn_commit"
                       : f.site == fault_site::sync   ? "mdb_env_sync"
                                                      : "mdb_get";
    switch (f.error) {
    case fault_error::no_space:
        return {errc::storage_full, "injected fault: " + what + " failed: No space left on device", {}};
    case fault_error::map_full:
        return {errc::storage_full,
                "injected fault: " + what + " failed: MDB_MAP_FULL: Environment mapsize limit reached",
                {}};
    case fault_error::io_error:
        break;
    }
    return {errc::store_failed, "injected fault: " + what + " failed: Input/output error", {}};
}

namespace {

// The writer of one transaction, every put first asking whether the fault strikes.
class faulty_writer final : public engine_writer {
public:
    faulty_writer(engine_writer& inner, std::function<void()> before_put)
        : inner_(inner), before_put_(std::move(before_put)) {}

    std::optional<run_record> run(std::string_view id) const override { return inner_.run(id); }
    std::vector<run_record> runs_before(std::uint64_t order, std::size_t limit) const override {
        return inner_.runs_before(order, limit);
    }
    std::optional<step_record> step(std::string_view run_id, std::uint64_t index) const override {
        return inner_.step(run_id, index);
    }
    std::vector<step_record> steps(std::string_view run_id) const override { return inner_.steps(run_id); }
    std::vector<approval_record> approvals(std::string_view run_id) const override { return inner_.approvals(run_id); }
    std::vector<event_record> events(std::string_view run_id) const override { return inner_.events(run_id); }
    std::vector<model_call_record> model_calls(std::string_view run_id) const override {
        return inner_.model_calls(run_id);
    }
    std::optional<std::string> meta(std::string_view key) const override { return inner_.meta(key); }
    std::optional<std::string> tool_spec(std::string_view hash) const override { return inner_.tool_spec(hash); }

    void put(run_record& run) override {
        before_put_();
        inner_.put(run);
    }
    void put(step_record const& step) override {
        before_put_();
        inner_.put(step);
    }
    void put(approval_record const& approval) override {
        before_put_();
        inner_.put(approval);
    }
    void put(model_call_record const& call) override {
        before_put_();
        inner_.put(call);
    }
    void put(event_record const& event) override {
        before_put_();
        inner_.put(event);
    }
    void put_meta(std::string_view key, std::string_view value) override {
        before_put_();
        inner_.put_meta(key, value);
    }
    void put_tool_spec(std::string_view hash, std::string_view spec) override {
        before_put_();
        inner_.put_tool_spec(hash, spec);
    }
    bool erase_run(std::string_view run_id) override {
        before_put_();
        return inner_.erase_run(run_id);
    }

private:
    engine_writer& inner_;
    std::function<void()> before_put_;
};

} // namespace

void faulty_engine::read(std::function<void(store_reader const&)> const& work) const {
    if (fault_.site == fault_site::read && strikes())
        throw exception(error_of(fault_));
    engine_decorator::read(work);
}

void faulty_engine::write(std::function<void(engine_writer&)> const& work, bool flush) {
    auto fail = [this] { throw exception(error_of(fault_)); };
    switch (fault_.site) {
    case fault_site::put:
        engine_decorator::write(
            [&](engine_writer& w) {
                faulty_writer faulty(w, [&] {
                    if (strikes())
                        fail();
                });
                work(faulty);
            },
            flush);
        return;
    case fault_site::commit:
        engine_decorator::write(
            [&](engine_writer& w) {
                work(w);
                if (strikes())
                    fail(); // before the commit: the engine aborts the transaction
            },
            flush);
        return;
    case fault_site::sync:
        engine_decorator::write(work, flush);
        if (flush && strikes())
            fail(); // after the commit, which stands
        return;
    case fault_site::read:
        engine_decorator::write(work, flush);
        return;
    }
}

fault_summary explore_faults(scenario const& s, fault_error error, source_location where) {
    auto started = std::chrono::steady_clock::now();
    fault_summary summary;
    std::vector<fault_site> sites{fault_site::put, fault_site::commit, fault_site::sync};
    if (error == fault_error::io_error)
        sites.push_back(fault_site::read);
    for (auto site : sites) {
        for (std::uint64_t n = 1;; ++n) {
            fault f{site, n, error};
            bool fired = false;
            auto r = run_scenario_faulted(s, f, fired);
            if (!r.ok()) {
                ++summary.failures;
                current_reporter().fail(where, "explore_faults: " + to_string(f) + ": " + describe(r, {}));
            }
            if (!fired)
                break; // this run got through untouched: every N before it was tried
            ++summary.faults_tried;
            if (n >= 100'000) {
                current_reporter().fail(where, "explore_faults: the " + std::string(to_string(site)) +
                                                   " fault still fired at N = 100000: the scenario never ends");
                break;
            }
        }
    }
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    current_reporter().log("explore_faults: " + std::to_string(summary.faults_tried) + " faults (" +
                           std::string(to_string(error)) + ") tried, " + std::to_string(summary.failures) +
                           " failures, " + std::to_string(summary.seconds) + " s");
    if (summary.faults_tried == 0)
        current_reporter().fail(where, "explore_faults: no fault fired: the scenario writes nothing");
    return summary;
}

} // namespace agentrt::testkit
