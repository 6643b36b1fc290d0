#include <agentrt/fuzz/check.hpp>

#include <agentrt/catalog/tool_table.hpp>
#include <agentrt/fuzz/generate.hpp>
#include <agentrt/fuzz/near_miss.hpp>

#include "internal.hpp"

#include <boost/json/serialize.hpp>

#include <future>
#include <sstream>
#include <stop_token>
#include <thread>

namespace agentrt::fuzz {
namespace detail {
namespace {

class silent_listener : public rc::detail::TestListener {
public:
    void onTestCaseFinished(rc::detail::CaseDescription const&) override {}
    void onShrinkTried(rc::detail::CaseDescription const&, bool) override {}
    void onTestFinished(rc::detail::TestMetadata const&, rc::detail::TestResult const&) override {}
};

} // namespace

std::optional<std::string> run_property(std::string const& id, rc::detail::Property const& property,
                                        options const& opts) {
    rc::detail::TestMetadata metadata;
    metadata.id = id;
    metadata.description = id;
    rc::detail::TestParams params;
    params.seed = opts.seed;
    params.maxSuccess = opts.cases;
    silent_listener listener;
    auto result = rc::detail::checkProperty(property, metadata, params, listener);
    if (result.is<rc::detail::SuccessResult>())
        return std::nullopt;
    std::ostringstream message;
    message << id << ": ";
    rc::detail::printResultMessage(result, message);
    return message.str();
}

} // namespace detail

namespace {

namespace json = boost::json;

// Calls the tool on its own thread and waits at most its timeout (no timeout: waits as long as it
// takes). A thread cannot be killed: one that overruns is asked to stop and left behind.
std::optional<std::string> call_within_timeout(tool_entry const& entry, arguments const& args, std::size_t serial,
                                               bool& tool_error) {
    std::stop_source stop;
    auto deadline = entry.timeout.count() > 0 ? std::chrono::steady_clock::now() + entry.timeout
                                              : std::chrono::steady_clock::time_point::max();
    auto task = std::make_shared<std::packaged_task<tool_result()>>(
        [call = entry.call, args, token = stop.get_token(), deadline, key = "fuzz-" + std::to_string(serial)] {
            call_context context;
            context.run_id = "fuzz-run";
            context.step_id = key;
            context.idempotency_key = key;
            context.deadline = deadline;
            context.stop = token;
            return call(args, context);
        });
    auto outcome = task->get_future();
    std::thread worker([task] { (*task)(); });
    if (entry.timeout.count() > 0 && outcome.wait_until(deadline) != std::future_status::ready) {
        stop.request_stop();
        worker.detach();
        return "tool " + entry.name + " did not return within its timeout of " + std::to_string(entry.timeout.count()) +
               " ms";
    }
    worker.join();
    try {
        tool_result r = outcome.get();
        tool_error = !r;
    } catch (std::exception const& e) {
        return "tool " + entry.name + " threw: " + e.what();
    } catch (...) {
        return "tool " + entry.name + " threw a non-standard exception";
    }
    return std::nullopt;
}

std::optional<std::string> check_valid(tool_table const& table, tool_entry const& entry, compiled_schema const& s,
                                       bool call, fuzz_check_options const& opts, tool_counts& counts) {
    auto property = rc::detail::toProperty([&] {
        json::value document = *valid_json(s, opts.generation);
        std::string text = json::serialize(document);
        auto accepted = table.accept(entry.name, text);
        if (!accepted)
            RC_FAIL("the table refused a valid argument text for " + entry.name + ": " + accepted.error().to_string());
        ++counts.accepted;
        if (!call)
            return;
        bool tool_error = false;
        if (auto failure = call_within_timeout(entry, accepted->args, counts.accepted, tool_error))
            RC_FAIL(*failure);
        ++counts.called;
        counts.tool_errors += tool_error;
    });
    return detail::run_property("fuzz_check valid " + entry.name, property, opts.generation);
}

std::optional<std::string> check_refused(tool_table const& table, tool_entry const& entry, compiled_schema const& s,
                                         judge const& confirm, fuzz_check_options const& opts, tool_counts& counts) {
    auto property = rc::detail::toProperty([&] {
        near_miss miss = *near_miss_gen(s, confirm, opts.generation);
        auto accepted = table.accept(entry.name, miss.text);
        if (accepted)
            RC_FAIL("the table accepted a near miss for " + entry.name + " (" + miss.rule + " at \"" + miss.pointer +
                    "\"), which would reach the tool: " + miss.text);
        ++counts.refused;
    });
    return detail::run_property("fuzz_check near misses " + entry.name, property, opts.generation);
}

} // namespace

check_report fuzz_check(tool_table const& table, fuzz_check_options const& opts) {
    check_report report;
    std::string failures;
    if (table.size() == 0)
        failures += "the table has no tools: nothing was checked\n";
    for (auto const& entry : table.entries()) {
        tool_counts counts{entry.name};
        compiled_schema const& s = entry.argument_schema;
        judge confirm = entry.argument_type ? judge_of(*entry.argument_type) : judge_of(s);
        bool call = !opts.acceptance_only.contains(entry.name);
        if (auto f = check_valid(table, entry, s, call, opts, counts))
            failures += *f + "\n";
        if (auto f = check_refused(table, entry, s, confirm, opts, counts))
            failures += *f + "\n";
        if (counts.accepted == 0 || counts.refused == 0)
            failures += "fuzz_check generated nothing for tool " + entry.name + "\n";
        report.tools.push_back(counts);
    }
    for (auto const& name : opts.acceptance_only)
        if (!table.find(name))
            failures += "acceptance_only names " + name + ", which the table does not have\n";
    report.passed = failures.empty();
    if (report.passed) {
        report.message = "fuzz_check passed:";
        for (auto const& c : report.tools)
            report.message += " " + c.tool + " (" + std::to_string(c.accepted) + " accepted, " +
                              std::to_string(c.called) + " called, " + std::to_string(c.refused) + " refused)";
    } else
        report.message = failures;
    return report;
}

} // namespace agentrt::fuzz
