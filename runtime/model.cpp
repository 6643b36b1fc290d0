// The model seam of a session: limits, recording, retries.
#include <agentrt/runtime/gate.hpp>

#include "errors.hpp"
#include "gate_impl.hpp"
#include "lease.hpp"
#include "transitions.hpp"

#include <agentrt/catalog/canonical_json.hpp>

#include <boost/json/monotonic_resource.hpp>

#include <cmath>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <span>
#include <thread>

namespace agentrt {
namespace {

// The request's values live in one arena: it is built, written out canonically and dropped.
struct block_json {
    boost::json::storage_ptr sp;
    boost::json::value operator()(text_block const& b) const {
        return boost::json::object({{"type", "text"}, {"text", b.text}}, sp);
    }
    boost::json::value operator()(model_tool_call const& b) const {
        return boost::json::object({{"type", "tool_call"}, {"id", b.id}, {"name", b.name}, {"arguments", b.arguments}},
                                   sp);
    }
    boost::json::value operator()(tool_result_block const& b) const {
        return boost::json::object(
            {{"type", "tool_result"}, {"call_id", b.call_id}, {"content", b.content}, {"is_error", b.is_error}}, sp);
    }
};

boost::json::object request_json(model_request const& r, boost::json::storage_ptr const& sp) {
    boost::json::array messages(sp);
    for (auto const& m : r.messages) {
        boost::json::array content(sp);
        for (auto const& b : m.content)
            content.push_back(std::visit(block_json{sp}, b));
        auto& message = messages.emplace_back(boost::json::object(sp)).get_object();
        message.emplace("role", m.role == message_role::user ? "user" : "assistant");
        message.emplace("content", std::move(content)); // moved: an initializer list would copy it
    }
    boost::json::object out({{"model", r.model}, {"system", r.system}, {"max_output_tokens", r.max_output_tokens}}, sp);
    out.emplace("messages", std::move(messages));
    out.emplace("tools", r.tools);
    return out;
}

std::optional<std::pair<std::string_view, std::string>> model_limit_reached(run_record const& run,
                                                                            model_limits const& l) {
    if (l.max_calls && run.model_calls >= *l.max_calls)
        return std::pair{run_reason::limit_model_calls,
                         "the run made its " + std::to_string(*l.max_calls) + " model calls"};
    if (l.max_tokens && run.tokens >= *l.max_tokens)
        return std::pair{run_reason::limit_tokens, "the run used " + std::to_string(run.tokens) + " of its " +
                                                       std::to_string(*l.max_tokens) + " tokens"};
    if (l.max_cost && static_cast<double>(run.cost_micros) >= *l.max_cost * 1e6)
        return std::pair{run_reason::limit_cost,
                         "the run spent its cost limit of " + std::to_string(*l.max_cost) + " USD"};
    return std::nullopt;
}

} // namespace

model_message model_message::user(std::string text) {
    return {message_role::user, {text_block{std::move(text)}}};
}
model_message model_message::assistant(std::string text) {
    return {message_role::assistant, {text_block{std::move(text)}}};
}
std::string model_message::text() const {
    std::string out;
    for (auto const& b : content)
        if (auto const* t = std::get_if<text_block>(&b))
            out += t->text;
    return out;
}

std::string_view to_string(stop_reason r) noexcept {
    switch (r) {
    case stop_reason::end_turn:
        return "end_turn";
    case stop_reason::tool_use:
        return "tool_use";
    case stop_reason::max_tokens:
        return "max_tokens";
    case stop_reason::stop_sequence:
        return "stop_sequence";
    case stop_reason::refusal:
        return "refusal";
    case stop_reason::other:
        break;
    }
    return "other";
}

std::uint64_t cost_micros(model_usage const& u, model_price const& p) noexcept {
    return static_cast<std::uint64_t>(
        std::llround(static_cast<double>(u.input_tokens) * p.input_per_million +
                     static_cast<double>(u.output_tokens) * p.output_per_million +
                     static_cast<double>(u.cache_read_tokens) * p.cache_read_per_million +
                     static_cast<double>(u.cache_write_tokens) * p.cache_write_per_million));
}

std::string canonical_request(model_request const& request) {
    boost::json::monotonic_resource arena;
    return canonical_json(request_json(request, &arena));
}

// The call runs on the gate's runner thread while this one renews the lease, so that a reply slower
// than the lease is not taken for a stuck holder. At the deadline the model's stop token is
// requested and renewals end: a model that ignores both is a stuck holder, which attach takes over
// once the lease expires. The call is always waited for, even when this thread unwinds (the model,
// the request and the context are the caller's), and its reply, late or not, is recorded as it is.
// A model must not call back into its session: the runner it would need is the one running it.
model_result session::complete(model& m, model_request const& request, std::uint32_t attempt, std::stop_token cancel) {
    struct shared {
        std::mutex mutex;
        std::condition_variable finished;
        bool done = false;
        model_result out;
        std::exception_ptr unwinding; // not a std::exception, such as the test kit's simulated crash
    };
    auto state = std::make_shared<shared>();
    std::stop_source stop;
    std::stop_callback relay(cancel, [&stop] { stop.request_stop(); });
    auto const deadline = std::chrono::steady_clock::now() + gate_->options_.models.timeout;
    model_call_context context{run_id_, *open_, attempt, deadline, stop.get_token()};
    auto& impl = *gate_->impl_;
    if (!impl.runner)
        impl.runner = std::make_unique<tool_runner>();
    impl.runner->submit([state, &m, &request, &context] {
        model_result out;
        std::exception_ptr unwinding;
        try {
            out = m.complete(request, context);
        } catch (std::exception const& x) {
            out = model_error{model_failure::permanent, std::string("the model threw: ") + x.what()};
        } catch (...) {
            unwinding = std::current_exception();
        }
        {
            std::lock_guard lock(state->mutex);
            state->out = std::move(out);
            state->unwinding = unwinding;
            state->done = true;
        }
        state->finished.notify_all();
    });
    std::unique_lock lock(state->mutex);
    auto done = [&] { return state->done; };
    auto wait_out = [&] {
        stop.request_stop();
        if (!lock.owns_lock())
            lock.lock();
        state->finished.wait(lock, done);
    };
    try {
        // The call's dispatched record, just committed, renewed the whole lease.
        if (!gate_detail::wait_renewing(*gate_, *this, lock, state->finished, done, deadline,
                                        gate_->options_.lease_duration))
            wait_out();
    } catch (...) {
        wait_out(); // the model still reads the context and the request on this stack
        throw;
    }
    if (state->unwinding)
        std::rethrow_exception(state->unwinding);
    return std::move(state->out);
}

decision decision_from(model_response const& response) {
    if (response.tool_calls.empty()) {
        auto said = response.text.empty() ? std::string(" (no text)") : ": " + response.text.substr(0, 200);
        if (response.stop == stop_reason::refusal)
            return decision::fail("the model refused to go on" + said);
        if (response.stop == stop_reason::max_tokens)
            return decision::fail("the model's reply reached its output cap (max_output_tokens) before it ended" +
                                  said);
        return decision::complete(response.text);
    }
    auto const& first = response.tool_calls.front();
    std::vector<ignored_call> ignored;
    for (auto const& c : std::span(response.tool_calls).subspan(1))
        ignored.push_back({c.name, c.arguments});
    auto d = decision::call(first.name, first.arguments, std::move(ignored));
    d.summary = response.text;
    return d;
}

result<model_response> session::call_model(model& m, model_request const& request, std::stop_token cancel) try {
    if (!gate_)
        return err(errc::refused, "this session has ended");
    if (!open_)
        return err(errc::refused, "a model call belongs to an open step of run " + run_id_ + ": call open_step first");
    auto const& options = gate_->options_;
    auto const& limits = options.models;
    auto price = limits.prices.find(request.model);
    if (limits.max_cost && price == limits.prices.end())
        return err(errc::refused, "model " + request.model +
                                      " has no price in the price table and the run has a cost limit: it cannot be "
                                      "charged, so it is not called");
    auto const request_text = canonical_request(request);
    auto const request_hash = sha256_hex(request_text);
    auto backoff = limits.backoff;
    for (std::uint32_t attempt = 1;; ++attempt) {
        std::int64_t now = options.clocks.record(), lease_now = options.clocks.lease();
        auto dispatched = gate_->store_->write([&](store_writer& w) -> result<model_call_record> {
            auto run = existing_run(w.run(run_id_), run_id_);
            if (auto held = leases::hold(run, owner_, epoch_, lease_now, options.lease_duration); !held)
                return held.error(); // a driver that lost its lease makes no further model call
            if (auto stop = model_limit_reached(run, limits)) {
                w.append(run, event_type::limit_exceeded, {{"limit", stop->first}, {"detail", stop->second}}, now);
                if (auto step = w.step(run_id_, *open_); step && step->status == step_status::deciding) {
                    transitions::fail_step(w, run, *step, stop->first, stop->second, now); // a run ends no step open
                    w.put(*step);
                }
                transitions::finish_run(w, run, run_status::failed, stop->first, stop->second, now);
                w.put(run);
                return err(errc::refused, "run " + run.id + " ended: " + stop->second);
            }
            model_call_record call;
            call.run_id = run.id;
            call.seq = run.model_calls++;
            call.step_index = *open_;
            call.attempt = attempt;
            call.model = request.model;
            call.status = "dispatched";
            call.request_hash = request_hash;
            call.dispatched_ms = now;
            w.put(call);
            w.append(run, event_type::model_dispatched,
                     {{"step", call.step_index}, {"seq", call.seq}, {"model", call.model}, {"attempt", attempt}}, now);
            w.put(run);
            return call;
        });
        if (!dispatched)
            return dispatched.error();

        model_result out = complete(m, request, attempt, cancel);
        auto call = *dispatched;
        auto const* response = std::get_if<model_response>(&out);
        auto const* failure = std::get_if<model_error>(&out);
        model_usage usage;
        if (response) {
            call.status = "ok";
            usage = response->usage;
        } else if (failure->kind == model_failure::cut_off) {
            // The reply is lost but the call may be charged: a conservative estimate, one token per
            // two bytes of request plus the whole output cap.
            call.status = "ambiguous";
            usage.input_tokens = (request_text.size() + 1) / 2;
            usage.output_tokens = request.max_output_tokens;
            call.error = failure->message;
        } else {
            call.status = "error";
            call.error = failure->message;
        }
        // The record's input tokens are all the input, cached or not; the cost prices each part.
        call.input_tokens = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
        call.output_tokens = usage.output_tokens;
        if (price != limits.prices.end())
            call.cost_micros = agentrt::cost_micros(usage, price->second);
        std::int64_t finished = options.clocks.record();
        call.finished_ms = finished;
        gate_->store_->write([&](store_writer& w) {
            auto run = existing_run(w.run(run_id_), run_id_);
            run.tokens += call.input_tokens + call.output_tokens;
            run.cost_micros += call.cost_micros;
            w.put(call);
            if (response) {
                boost::json::object data{{"step", call.step_index},
                                         {"seq", call.seq},
                                         {"input_tokens", call.input_tokens},
                                         {"output_tokens", call.output_tokens},
                                         {"cost_micros", call.cost_micros}};
                if (usage.cache_read_tokens != 0)
                    data["cache_read_tokens"] = usage.cache_read_tokens;
                if (usage.cache_write_tokens != 0)
                    data["cache_write_tokens"] = usage.cache_write_tokens;
                data["stop"] = to_string(response->stop);
                w.append(run, event_type::model_completed, std::move(data), finished);
            } else
                w.append(run, event_type::model_failed,
                         {{"step", call.step_index}, {"seq", call.seq}, {"status", call.status}, {"error", call.error}},
                         finished);
            w.put(run);
        });
        if (response)
            return *response;
        if (cancel.stop_requested())
            return err(errc::refused, "the model call was cancelled (" + call.status + "): " + call.error);
        if (failure->kind == model_failure::transient && attempt < limits.max_attempts) {
            auto wait = failure->retry_after.value_or(backoff);
            if (wait > limits.max_retry_wait)
                return err(errc::refused, "the model call failed (" + call.status + "): " + call.error +
                                              "; the provider asked to retry after " + std::to_string(wait.count()) +
                                              " ms, longer than max_retry_wait (" +
                                              std::to_string(limits.max_retry_wait.count()) + " ms)");
            std::mutex sleeping;
            std::unique_lock lock(sleeping);
            std::condition_variable_any woken;
            woken.wait_for(lock, cancel, wait, [] { return false; }); // a cancel ends the wait
            if (cancel.stop_requested())
                return err(errc::refused,
                           "the model call was cancelled while waiting to retry (" + call.status + "): " + call.error);
            backoff *= 2;
            continue;
        }
        return err(errc::refused, "the model call failed (" + call.status + "): " + call.error);
    }
} catch (exception const& e) { // a failing store: a typed error, never an exception
    return e.error();
}

} // namespace agentrt
