#include <agentrt/testkit/store_contract.hpp>

#include <agentrt/testkit/report.hpp>

#include <stdexcept>
#include <string>
#include <tuple>
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

// Every other kind of record, order within a run, removal, and paging past a removed run.
void check_records(store& s, contract& c) {
    s.write([](store_writer& w) {
        auto run = make_run("contract-5");
        w.append(run, event_type::run_created, {{"goal", "contract"}}, 5);
        w.put(run);
        for (std::uint64_t i : {11u, 2u, 0u, 10u, 1u}) { // out of order, past one byte of index
            step_record st;
            st.run_id = run.id;
            st.index = i;
            w.put(st);
            approval_record a;
            a.run_id = run.id;
            a.step_index = i;
            a.seq = 1;
            a.kind = "contract";
            w.put(a);
            a.seq = 0;
            w.put(a);
            model_call_record m;
            m.run_id = run.id;
            m.seq = i;
            m.model = "contract-model";
            w.put(m);
        }
        w.put_tool_spec("contract-hash", R"({"name":"t"})");
    });
    s.read([&](store_reader const& r) {
        std::vector<std::uint64_t> steps, calls;
        std::vector<std::pair<std::uint64_t, std::uint64_t>> approvals;
        for (auto const& st : r.steps("contract-5"))
            steps.push_back(st.index);
        for (auto const& a : r.approvals("contract-5"))
            approvals.emplace_back(a.step_index, a.seq);
        for (auto const& m : r.model_calls("contract-5"))
            calls.push_back(m.seq);
        using pairs = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
        c.expect(steps == std::vector<std::uint64_t>{0, 1, 2, 10, 11}, "a run's steps read back in index order");
        c.expect(approvals == pairs{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}, {10, 0}, {10, 1}, {11, 0}, {11, 1}},
                 "a run's approvals read back by step, then by sequence");
        c.expect(calls == std::vector<std::uint64_t>{0, 1, 2, 10, 11}, "a run's model calls read back in order");
        c.expect(r.steps("contract-").empty() && r.steps("contract-50").empty(),
                 "a run's records are its own: no other run's id that shares a prefix reads them");
        c.expect(r.tool_spec("contract-hash") == R"({"name":"t"})" && !r.tool_spec("contract-none"),
                 "a tool spec reads back by its hash");
        auto a = r.approvals("contract-5");
        c.expect(!a.empty() && a.front().kind == "contract", "an approval reads back as written");
    });
    bool erased = s.write([](store_writer& w) { return w.erase_run("contract-4"); });
    bool erased_again = s.write([](store_writer& w) { return w.erase_run("contract-4"); });
    c.expect(erased && !erased_again, "removing a run says whether there was one");
    s.read([&](store_reader const& r) {
        c.expect(!r.run("contract-4") && r.events("contract-4").empty(),
                 "removing a run removes its record and its events");
        auto order5 = r.run("contract-5").value().order;
        auto page = r.runs_before(order5, 10);
        c.expect(page.size() == 3 && page[0].id == "contract-3" && page[2].id == "contract-1",
                 "runs page past a run that was removed");
        c.expect(r.run("contract-3").value().order < order5, "each new run gets a later creation order");
    });
    s.write([](store_writer& w) { w.erase_run("contract-5"); });
    s.read([&](store_reader const& r) {
        c.expect(r.steps("contract-5").empty() && r.approvals("contract-5").empty() &&
                     r.model_calls("contract-5").empty(),
                 "removing a run removes its steps, approvals and model calls");
    });
}

} // namespace

bool check_engine_contract(std::function<std::shared_ptr<engine>()> const& open, source_location where) {
    return check_store_contract([&] { return store(open()); }, where);
}

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
            auto seen_by = [](store_reader const& r) { // what a policy's view reads of its run
                auto run = r.run("contract-1");
                auto step = r.step("contract-1", 0);
                return std::make_tuple(run ? run->head : "", step ? step->arguments : "",
                                       r.approvals("contract-1").size());
            };
            c.expect(s.read_as_last_seen(seen_by) == s.read(seen_by),
                     "a read as last seen, after this thread's write, reads what the store holds");

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
            check_records(s, c);
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
