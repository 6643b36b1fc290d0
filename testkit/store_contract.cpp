#include <agentrt/testkit/store_contract.hpp>

#include <agentrt/testkit/report.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace agentrt::testkit {
namespace {

run_record make_run(std::string id) {
    run_record r;
    r.id = std::move(id);
    r.goal = "contract";
    r.created_ms = r.updated_ms = 1'700'000'000'000;
    return r;
}

struct contract {
    std::vector<std::string> broken;
    std::size_t checked = 0;

    void expect(bool holds, std::string promise) {
        ++checked;
        if (!holds)
            broken.push_back(std::move(promise));
    }
};

} // namespace

bool check_store_contract(std::function<store()> const& open, source_location where) {
    contract c;
    try {
        {
            store s = open();
            s.write([](store_writer& w) {
                auto run = make_run("contract-1");
                w.append(run, event_type::run_created, {{"goal", "contract"}}, 1);
                w.append(run, event_type::step_started, {{"step", 0}}, 2);
                w.put(run);
                step_record st;
                st.run_id = "contract-1";
                st.tool = "t";
                st.arguments = R"({"a":1})";
                w.put(st);
            });
            auto run = s.read([](store_reader const& r) { return r.run("contract-1"); });
            c.expect(run && run->goal == "contract", "a run reads back as written");
            c.expect(run && run->event_count == 2, "appending events counts them on the run");
            auto events = s.read([](store_reader const& r) { return r.events("contract-1"); });
            c.expect(events.size() == 2 && events[1].prev == events[0].hash && run && run->head == events[1].hash,
                     "events chain: each carries the previous hash, the run the last");
            auto step = s.read([](store_reader const& r) { return r.step("contract-1", 0); });
            c.expect(step && step->arguments == R"({"a":1})", "a step reads back as written");

            std::size_t seen = 0;
            bool seen_inside = false;
            s.observe([&](event_record const&) { ++seen; });
            try {
                s.write([&](store_writer& w) {
                    auto r = w.run("contract-1").value();
                    r.goal = "changed";
                    w.append(r, event_type::step_started, {{"step", 1}}, 3);
                    w.put(r);
                    seen_inside = seen != 0;
                    throw std::runtime_error("contract: thrown inside the transaction");
                });
            } catch (std::runtime_error const&) {
            }
            auto after = s.read([](store_reader const& r) { return r.run("contract-1"); });
            c.expect(after && after->goal == "contract" && after->event_count == 2,
                     "an exception inside a write leaves the store as it was");
            c.expect(!seen_inside && seen == 0, "observers see nothing of a transaction that did not commit");
            s.write([](store_writer& w) {
                auto r = w.run("contract-1").value();
                w.append(r, event_type::step_started, {{"step", 1}}, 3);
                w.put(r);
            });
            c.expect(seen == 1, "observers see each event after its commit");

            s.write([](store_writer& w) {
                for (int i = 2; i <= 4; ++i) {
                    std::string id = "contract-";
                    id += std::to_string(i);
                    auto r = make_run(id);
                    w.append(r, event_type::run_created, {{"goal", "contract"}}, 4);
                    w.put(r);
                }
            });
            auto newest = s.read([](store_reader const& r) { return r.runs({}, 2); });
            c.expect(newest.size() == 2 && newest[0].id == "contract-4" && newest[1].id == "contract-3",
                     "runs list newest first, up to the limit");
            auto next = s.read([](store_reader const& r) { return r.runs("contract-3", 10); });
            c.expect(next.size() == 2 && next[0].id == "contract-2" && next[1].id == "contract-1",
                     "runs page on from the last run seen");
            s.write([](store_writer& w) { w.put_meta("contract", "kept"); });
        }
        store reopened = open();
        auto kept = reopened.read(
            [](store_reader const& r) { return std::make_pair(r.run("contract-1"), r.meta("contract")); });
        c.expect(kept.first && kept.first->event_count == 3 && kept.second == "kept",
                 "what was committed survives reopening");
    } catch (std::exception const& e) {
        c.broken.push_back(std::string("the suite stopped: ") + e.what());
    }
    if (c.checked == 0)
        c.broken.push_back("nothing was checked");
    if (c.broken.empty())
        return true;
    std::string message = "store contract: ";
    message += std::to_string(c.broken.size());
    message += " promise(s) broken:";
    for (auto const& b : c.broken)
        message += "\n  " + b;
    current_reporter().fail(where, message);
    return false;
}

} // namespace agentrt::testkit
