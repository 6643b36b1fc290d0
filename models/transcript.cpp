#include <agentrt/models/transcript.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <fstream>
#include <stdexcept>

namespace agentrt {
namespace {

std::string_view failure_name(model_failure f) {
    switch (f) {
    case model_failure::transient:
        return "transient";
    case model_failure::permanent:
        return "permanent";
    case model_failure::cut_off:
        break;
    }
    return "cut_off";
}

std::string where(std::filesystem::path const& file, std::size_t line) {
    return file.string() + ":" + std::to_string(line);
}

} // namespace

std::string transcript_line(transcript_entry const& e) {
    boost::json::object reply{{"status", e.reply.status}, {"body", e.reply.body}};
    if (e.reply.retry_after)
        reply["retry_after_ms"] = e.reply.retry_after->count();
    if (!e.reply.location.empty())
        reply["location"] = e.reply.location;
    if (!e.reply.transport_error.empty()) {
        reply["transport_error"] = e.reply.transport_error;
        reply["transport_failure"] = failure_name(e.reply.transport_failure);
    }
    return boost::json::serialize(boost::json::object{{"request", e.request}, {"reply", std::move(reply)}}) + "\n";
}

std::vector<transcript_entry> read_transcript(std::filesystem::path const& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw std::runtime_error("the transcript " + file.string() + " cannot be opened");
    std::vector<transcript_entry> out;
    std::string text;
    for (std::size_t line = 1; std::getline(in, text); ++line) {
        if (text.empty())
            continue;
        auto bad = [&](std::string const& what) {
            return std::runtime_error(where(file, line) + ": " + what + ": this is not a transcript line");
        };
        boost::system::error_code ec;
        auto v = boost::json::parse(text, ec);
        if (ec)
            throw bad("not JSON (" + ec.message() + ")");
        auto const* o = v.if_object();
        auto const* request = o ? o->if_contains("request") : nullptr;
        auto const* reply = o ? o->if_contains("reply") : nullptr;
        if (!request || !request->is_string() || !reply || !reply->is_object())
            throw bad("no \"request\" string and \"reply\" object");
        auto const& r = reply->get_object();
        transcript_entry e;
        e.request = request->get_string();
        auto const* status = r.if_contains("status");
        auto const* body = r.if_contains("body");
        if (!status || !status->is_int64() || !body || !body->is_string())
            throw bad("the reply has no integer \"status\" and string \"body\"");
        e.reply.status = static_cast<long>(status->get_int64());
        e.reply.body = body->get_string();
        if (auto const* wait = r.if_contains("retry_after_ms"); wait && wait->is_int64())
            e.reply.retry_after = std::chrono::milliseconds(wait->get_int64());
        if (auto const* l = r.if_contains("location"); l && l->is_string())
            e.reply.location = l->get_string();
        if (auto const* t = r.if_contains("transport_error"); t && t->is_string()) {
            e.reply.transport_error = t->get_string();
            auto const* f = r.if_contains("transport_failure");
            auto const kind = f && f->is_string() ? std::string_view(f->get_string()) : std::string_view();
            e.reply.transport_failure = kind == "permanent" ? model_failure::permanent
                                        : kind == "cut_off" ? model_failure::cut_off
                                                            : model_failure::transient;
        }
        out.push_back(std::move(e));
    }
    return out;
}

recording_model::recording_model(http_model& live, std::filesystem::path file) : live_(&live), file_(std::move(file)) {
    std::ofstream probe(file_, std::ios::binary | std::ios::app);
    if (!probe)
        throw std::runtime_error("the transcript " + file_.string() + " cannot be opened for writing");
}

model_result recording_model::complete(model_request const& request, model_call_context const& context) {
    auto reply = live_->exchange(request, context);
    reply.body = live_->redacted(std::move(reply.body));
    reply.location = live_->redacted(std::move(reply.location)); // a server may echo the key anywhere it answers
    {
        std::lock_guard lock(mutex_);
        std::ofstream out(file_, std::ios::binary | std::ios::app);
        out << transcript_line({canonical_request(request), reply});
        if (!out)
            return model_error{model_failure::permanent, "the transcript " + file_.string() + " could not be written",
                               std::nullopt};
    }
    return live_->read(reply);
}

replaying_model::replaying_model(http_model const& wire, std::filesystem::path file)
    : wire_(&wire), file_(std::move(file)), entries_(read_transcript(file_)) {}

std::size_t replaying_model::replayed() const {
    std::lock_guard lock(mutex_);
    return next_;
}

model_result replaying_model::complete(model_request const& request, model_call_context const&) {
    std::size_t index = 0;
    {
        std::lock_guard lock(mutex_);
        index = next_++;
    }
    auto const number = std::to_string(index + 1);
    if (index >= entries_.size())
        return model_error{model_failure::permanent,
                           "request " + number + " is past the end of the transcript " + file_.string() + " (" +
                               std::to_string(entries_.size()) + " exchanges)",
                           std::nullopt};
    auto const text = canonical_request(request);
    auto const& recorded = entries_[index].request;
    if (text != recorded) {
        std::size_t at = 0;
        while (at < text.size() && at < recorded.size() && text[at] == recorded[at])
            ++at;
        auto excerpt = [at](std::string const& s) {
            auto from = at < 40 ? 0 : at - 40;
            return "..." + s.substr(from, 80) + "...";
        };
        return model_error{model_failure::permanent,
                           "request " + number + " differs from exchange " + number + " of the transcript " +
                               file_.string() + " at byte " + std::to_string(at) + ": recorded " + excerpt(recorded) +
                               ", sent " + excerpt(text),
                           std::nullopt};
    }
    return wire_->read(entries_[index].reply);
}

} // namespace agentrt
