#include <agentrt/runtime/reads.hpp>

#include "display.hpp"
#include "errors.hpp"
#include "lease.hpp"
#include "transitions.hpp"

namespace agentrt {

std::vector<run_record> list_runs(store const& s, std::string_view before, std::size_t limit) {
    return s.read([&](store_reader const& r) { return r.runs(before, limit); });
}

std::vector<run_record> list_runs_before(store const& s, std::uint64_t before_order, std::size_t limit) {
    return s.read([&](store_reader const& r) { return r.runs_before(before_order, limit); });
}

result<run_details> read_run(store const& s, std::string_view run_id) try {
    return s.read([&](store_reader const& r) -> result<run_details> {
        auto run = r.run(run_id);
        if (!run)
            return err(errc::not_found, "no run " + std::string(run_id));
        return run_details{std::move(*run), r.steps(run_id), r.approvals(run_id)};
    });
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

result<std::vector<event_record>> read_events(store const& s, std::string_view run_id) try {
    return s.read([&](store_reader const& r) -> result<std::vector<event_record>> {
        if (!r.run(run_id))
            return err(errc::not_found, "no run " + std::string(run_id));
        return r.events(run_id);
    });
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

std::vector<approval_record> pending_approvals(store const& s) {
    return s.read([&](store_reader const& r) {
        std::vector<approval_record> out;
        for (auto const& run : r.runs({}, SIZE_MAX)) {
            if (run.status != run_status::waiting_for_approval)
                continue;
            for (auto const& step : r.steps(run.id))
                if (auto a = transitions::latest_approval(r, run.id, step.index);
                    a && a->status == approval_status::pending)
                    out.push_back(std::move(*a));
        }
        return out;
    });
}

std::vector<std::string> ready_runs(store const& s, std::int64_t lease_now_ms) {
    return s.read([&](store_reader const& r) {
        std::vector<std::string> out;
        for (auto const& run : r.runs({}, SIZE_MAX)) {
            if (run.status == run_status::running) {
                if (run.lease.owner.empty() || lease_now_ms >= run.lease.expiry_ms ||
                    !leases::holder_alive(s, run.lease))
                    out.push_back(run.id);
            } else if (run.status == run_status::waiting_for_approval) {
                for (auto const& step : r.steps(run.id))
                    if (auto a = transitions::latest_approval(r, run.id, step.index);
                        a && a->status == approval_status::approved && !a->used) {
                        out.push_back(run.id);
                        break;
                    }
            }
        }
        return out;
    });
}

std::string capped(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes)
        return display::sanitize(text);
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;
    return display::sanitize(text.substr(0, cut)) + " \xE2\x80\xA6 (" + std::to_string(text.size()) + " bytes)";
}

} // namespace agentrt
