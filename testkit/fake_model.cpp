#include <agentrt/testkit/fake_model.hpp>

#include <agentrt/catalog/canonical_json.hpp>
#include <agentrt/catalog/json_reader.hpp>

#include <boost/json/object.hpp>

#include <algorithm>
#include <condition_variable>
#include <stdexcept>
#include <utility>

namespace agentrt::testkit {
namespace {

using clock = std::chrono::steady_clock;

std::string http_message(int status, std::string const& message) {
    return "HTTP " + std::to_string(status) + (message.empty() ? "" : ": " + message);
}

std::string joined(std::vector<std::string> const& chunks) {
    std::string out;
    for (auto const& c : chunks)
        out += c;
    return out;
}

// The tool names a request offers, in any of the shapes tool_definitions.hpp writes.
bool offers_tool(model_request const& request, std::string_view name) {
    for (auto const& t : request.tools) {
        auto const* o = t.if_object();
        if (!o)
            continue;
        auto const* shape = o;
        if (auto const* f = o->if_contains("function"); f && f->is_object())
            shape = &f->get_object();
        if (auto const* n = shape->if_contains("name"); n && n->is_string() && n->get_string() == name)
            return true;
    }
    return false;
}

std::string where(std::uint64_t call, model_call_context const& c) {
    return "call " + std::to_string(call) + " (run " + std::string(c.run_id) + ", step " +
           std::to_string(c.step_index) + ", attempt " + std::to_string(c.attempt) + ")";
}

} // namespace

// --- turns ------------------------------------------------------------------------------------

turn turn::text(std::string text) {
    std::vector<std::string> one;
    if (!text.empty())
        one.push_back(std::move(text));
    turn t = chunks(std::move(one));
    t.kind_ = "text";
    return t;
}

turn turn::chunks(std::vector<std::string> chunks) {
    turn t("chunks", action::reply);
    t.response_.text = joined(chunks);
    t.chunks_ = std::move(chunks);
    return t;
}

turn turn::call(std::string tool, std::string arguments) {
    turn t = calls({{std::move(tool), std::move(arguments)}});
    t.kind_ = "call";
    return t;
}

turn turn::calls(std::vector<scripted_call> calls) {
    if (calls.empty())
        throw std::invalid_argument("turn::calls needs at least one call: use turn::text for a reply without one");
    turn t("calls", action::reply);
    for (auto& c : calls)
        t.response_.tool_calls.push_back({"", std::move(c.tool), std::move(c.arguments)});
    t.response_.stop = stop_reason::tool_use;
    return t;
}

turn turn::reply(model_response response) {
    turn t("reply", action::reply);
    t.response_ = std::move(response);
    if (!t.response_.text.empty())
        t.chunks_.push_back(t.response_.text);
    return t;
}

turn turn::stall(std::optional<std::chrono::milliseconds> at_most) {
    turn t("stall", action::stall);
    t.stall_bound_ = at_most;
    return t;
}

turn turn::abort_mid_stream(std::vector<std::string> delivered) {
    turn t("abort_mid_stream", action::abort);
    std::size_t bytes = joined(delivered).size();
    t.error_ = {model_failure::cut_off, "the stream was cut off after " + std::to_string(delivered.size()) +
                                            " chunks (" + std::to_string(bytes) + " bytes) of text"};
    t.chunks_ = std::move(delivered);
    return t;
}

turn turn::transient_failure(int status, std::string message) {
    turn t("transient_failure", action::fail);
    t.error_ = {model_failure::transient, http_message(status, message)};
    return t;
}

turn turn::permanent_failure(int status, std::string message) {
    turn t("permanent_failure", action::fail);
    t.error_ = {model_failure::permanent, http_message(status, message)};
    return t;
}

turn turn::unknown_tool(std::string tool, std::string arguments) {
    turn t = call(std::move(tool), std::move(arguments));
    t.kind_ = "unknown_tool";
    return t;
}

turn turn::malformed_arguments(std::string tool, std::string bytes) {
    if (read_json(bytes))
        throw std::invalid_argument("turn::malformed_arguments: " + bytes +
                                    " is valid JSON; give bytes the JSON boundary refuses");
    turn t = call(std::move(tool), std::move(bytes));
    t.kind_ = "malformed_arguments";
    return t;
}

turn& turn::require_reply(std::string_view what) {
    if (action_ != action::reply)
        throw std::logic_error("turn::" + std::string(what) + " belongs to a reply; a " + std::string(kind_) +
                               " turn has none");
    return *this;
}

turn turn::with_usage(std::uint64_t input_tokens, std::uint64_t output_tokens) const {
    turn t = *this;
    t.require_reply("with_usage").response_.usage = {input_tokens, output_tokens};
    return t;
}

turn turn::with_stop(stop_reason stop) const {
    turn t = *this;
    t.require_reply("with_stop").response_.stop = stop;
    return t;
}

// --- the model --------------------------------------------------------------------------------

fake_model::fake_model(std::vector<turn> script) : script_(std::move(script)), taken_(script_.size()) {}

fake_model::fake_model(per_decision_t, std::vector<std::vector<turn>> decisions)
    : script_([&] {
          std::vector<turn> all;
          for (auto& list : decisions)
              for (auto& t : list)
                  all.push_back(std::move(t)); // the list keeps its size, which decision_starts_ reads
          return all;
      }()),
      decision_starts_([&] {
          std::vector<std::size_t> starts{0};
          for (auto const& list : decisions)
              starts.push_back(starts.back() + list.size());
          return starts;
      }()),
      taken_(script_.size()) {}

void fake_model::on_chunk(std::function<void(text_chunk const&)> observer) {
    std::lock_guard lock(mutex_);
    observer_ = std::move(observer);
}

std::vector<recorded_request> fake_model::requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
}

std::size_t fake_model::calls() const {
    std::lock_guard lock(mutex_);
    return requests_.size();
}

std::size_t fake_model::remaining() const {
    std::lock_guard lock(mutex_);
    return static_cast<std::size_t>(std::count(taken_.begin(), taken_.end(), false));
}

turn const* fake_model::pick(std::uint64_t call, model_request const& request, model_call_context const& context,
                             std::string& missing) {
    auto const none = "fake model has no turn for " + where(call, context) + ": ";
    std::size_t index = 0;
    if (decision_starts_.empty()) {
        index = call - 1;
        if (index >= script_.size()) {
            missing = none + "its script has " + std::to_string(script_.size()) + " turns";
            return nullptr;
        }
    } else {
        auto const decisions = decision_starts_.size() - 1;
        auto const decision =
            static_cast<std::size_t>(std::count_if(request.messages.begin(), request.messages.end(),
                                                   [](auto const& m) { return m.role == message_role::assistant; }));
        auto const carrying = "a request carrying " + std::to_string(decision) + " earlier decisions";
        if (decision >= decisions) {
            missing =
                none + "its script has turns for " + std::to_string(decisions) + " decisions, not for " + carrying;
            return nullptr;
        }
        auto const first = decision_starts_[decision], end = decision_starts_[decision + 1];
        index = first + context.attempt - 1;
        if (context.attempt == 0 || index >= end) {
            missing = none + "its script has " + std::to_string(end - first) + " turns for " + carrying;
            return nullptr;
        }
    }
    taken_[index] = true;
    return &script_[index];
}

model_result fake_model::complete(model_request const& request, model_call_context const& context) {
    recorded_request record{0,       std::string(context.run_id), context.step_index, context.attempt,
                            request, canonical_request(request)};
    turn const* t = nullptr;
    std::uint64_t call = 0;
    std::string missing;
    {
        std::lock_guard lock(mutex_);
        call = record.call = requests_.size() + 1;
        requests_.push_back(std::move(record));
        t = pick(call, request, context, missing);
    }
    if (!t)
        throw std::out_of_range(missing);
    return play(*t, static_cast<std::size_t>(t - script_.data()) + 1, call, context, request);
}

model_result fake_model::play(turn const& t, std::size_t number, std::uint64_t call, model_call_context const& context,
                              model_request const& request) {
    auto const name = "fake model, turn " + std::to_string(number) + " (" + std::string(t.kind()) + "): ";
    switch (t.action_) {
    case turn::action::reply: {
        if (t.kind() == "unknown_tool" && offers_tool(request, t.response_.tool_calls.front().name))
            throw std::logic_error(name + "the request offers a tool named " + t.response_.tool_calls.front().name +
                                   ": script a name the catalogue lacks");
        deliver(call, t.chunks_);
        model_response out = t.response_;
        for (std::size_t i = 0; i < out.tool_calls.size(); ++i)
            if (out.tool_calls[i].id.empty())
                out.tool_calls[i].id =
                    "call-" + std::to_string(number) + "-" + std::to_string(i + 1); // same in every process
        return out;
    }
    case turn::action::abort:
        deliver(call, t.chunks_);
        return t.error_;
    case turn::action::fail:
        return t.error_;
    case turn::action::stall:
        break;
    }
    auto until = context.deadline;
    std::string why = "the model stalled: no reply before the call's deadline";
    if (t.stall_bound_ && (until == clock::time_point::max() || clock::now() + *t.stall_bound_ < until)) {
        until = clock::now() + *t.stall_bound_;
        why = "the model stalled: no reply within the stall's bound of " + std::to_string(t.stall_bound_->count()) +
              " ms";
    }
    bool const forever = until == clock::time_point::max();
    if (forever && !context.stop.stop_possible())
        throw std::logic_error(name + where(call, context) +
                               " has no deadline and no stop token, so the stall would never end: give it a bound, "
                               "turn::stall(std::chrono::milliseconds(...))");
    std::mutex m;
    std::condition_variable_any never_notified;
    std::unique_lock lock(m);
    if (forever)
        never_notified.wait(lock, context.stop, [] { return false; });
    else
        never_notified.wait_until(lock, context.stop, until, [] { return false; });
    if (context.stop.stop_requested() && clock::now() < until) // the runtime also asks at the deadline
        why = "the call was stopped while the model stalled";
    return model_error{model_failure::cut_off, why};
}

void fake_model::deliver(std::uint64_t call, std::vector<std::string> const& chunks) {
    std::function<void(text_chunk const&)> observer;
    {
        std::lock_guard lock(mutex_);
        observer = observer_;
    }
    if (!observer)
        return;
    for (std::size_t i = 0; i < chunks.size(); ++i)
        observer(text_chunk{call, i, chunks[i]});
}

} // namespace agentrt::testkit
