#include <agentrt/runtime/driver.hpp>

#include "errors.hpp"
#include "lease.hpp"

#include <stdexcept>

namespace agentrt {

result<run_record> driver::start(std::string goal, std::string run_id) try {
    auto s = gate_.begin(std::move(goal), std::move(run_id));
    if (!s)
        return s.error();
    return drive(*s);
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

result<run_record> driver::resume(std::string_view run_id) try {
    auto s = gate_.attach(run_id);
    if (!s)
        return s.error();
    return drive(*s);
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

result<run_record> driver::drive(session& s) try {
    if (s.pending_execution())
        if (auto done = s.execute(); !done)
            return done.error();
    std::vector<step_record> steps;
    for (;;) {
        auto opened = s.open_step();
        if (!opened)
            return opened.error();
        if (!*opened)
            break;
        // Steps before the open one are settled: read only the new ones, so a step costs the same
        // in a long run as in a short one.
        if (steps.size() > **opened)
            steps.clear();
        auto run = gate_.storage().read([&](store_reader const& r) {
            for (std::uint64_t i = steps.size(); i < **opened; ++i)
                if (auto st = r.step(s.run_id(), i))
                    steps.push_back(std::move(*st));
            return existing_run(r.run(s.run_id()), s.run_id());
        });
        std::optional<decision> d;
        try {
            d = agent_->decide(agent_view{run, steps, **opened, [&s](model& m, model_request const& request) {
                                              return s.call_model(m, request);
                                          }});
        } catch (std::exception const& x) {
            if (s.run().status != run_status::running)
                break; // a model limit ended the run while the agent decided
            if (auto failed = s.fail(std::string("the agent threw: ") + x.what()); !failed)
                return failed.error();
            break;
        }
        if (s.run().status != run_status::running)
            break;
        auto step = s.propose(*d);
        if (!step)
            return step.error();
        if (s.pending_execution())
            if (auto done = s.execute(); !done)
                return done.error();
    }
    auto run = s.run();
    if (leases::held_by(run.lease, s.owner(), s.lease_epoch()))
        (void)s.release();
    return run;
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

} // namespace agentrt
