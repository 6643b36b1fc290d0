#include <agentrt/models/http_model.hpp>

#include "http_transfer.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <ctime>
#include <stdexcept>

namespace agentrt {
namespace {

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == '\r' || s.back() == '\n' || s.back() == ' '))
        s.remove_suffix(1);
    return s;
}

bool header_is(std::string_view line, std::string_view name) {
    return line.size() > name.size() && line[name.size()] == ':' &&
           std::equal(name.begin(), name.end(), line.begin(),
                      [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
}

// retry-after is seconds or an HTTP date (RFC 9110 section 10.2.3).
// Clamped to a day: the value is the server's to choose, and max_retry_wait judges it anyway.
std::optional<std::chrono::milliseconds> retry_after_of(std::string_view value) {
    constexpr std::int64_t a_day = 86'400;
    std::int64_t seconds = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec == std::errc::result_out_of_range && end != value.data())
        seconds = a_day;
    if (end == value.data() + value.size() && end != value.data() && seconds >= 0)
        return std::chrono::seconds(std::min(seconds, a_day));
    std::string text(value);
    auto when = curl_getdate(text.c_str(), nullptr);
    if (when < 0)
        return std::nullopt;
    auto wait = static_cast<std::int64_t>(when) - static_cast<std::int64_t>(std::time(nullptr));
    return std::chrono::seconds(std::clamp<std::int64_t>(wait, 0, a_day));
}

struct transfer final : http::response_reader {
    http_reply reply;
    std::size_t cap = 0;
    bool over_cap = false;
    std::stop_token stop;

    bool header_line(std::string_view line) override {
        if (line.starts_with("HTTP/")) { // a new response (after a 100 Continue): start over
            reply.retry_after.reset();
            reply.location.clear();
        } else if (header_is(line, "retry-after")) {
            reply.retry_after = retry_after_of(trimmed(line.substr(12)));
        } else if (header_is(line, "location")) {
            reply.location = trimmed(line.substr(9));
        }
        return true;
    }
    bool body_bytes(std::string_view bytes) override {
        if (reply.body.size() + bytes.size() > cap) {
            over_cap = true;
            return false;
        }
        reply.body.append(bytes);
        return true;
    }
    bool go_on() override { return !stop.stop_requested(); }
};

// The message of a provider's error body ({"error":{"message":...}}), or the body's start. The
// body comes redacted: a cut through the key would leave a part of it no redaction finds.
std::string error_message_of(std::string_view body) {
    boost::system::error_code ec;
    auto v = boost::json::parse(body, ec);
    if (!ec)
        if (auto const* o = v.if_object())
            if (auto const* e = o->if_contains("error"); e && e->is_object())
                if (auto const* m = e->get_object().if_contains("message"); m && m->is_string())
                    return std::string(m->get_string());
    auto excerpt = std::string(body.substr(0, 200));
    return excerpt.empty() ? "no body" : excerpt;
}

} // namespace

http_model::http_model(http_endpoint endpoint) : endpoint_(std::move(endpoint)) {
    if (!http::curl_ready())
        throw std::runtime_error("libcurl could not be initialised");
    auto const url = http::parse_url(endpoint_.url);
    if (!url)
        throw std::invalid_argument("the model endpoint " + endpoint_.url + " is not a URL with a scheme and a host");
    loopback_ = http::is_loopback(url->host);
    if (url->scheme != "https" && url->scheme != "http")
        throw std::invalid_argument("the model endpoint " + url->shown + " is not http or https");
    shown_url_ = url->shown;
    if (endpoint_.api_key_variable.empty())
        return;
    auto const* key = std::getenv(endpoint_.api_key_variable.c_str());
    if (!key || !*key)
        throw std::invalid_argument("the environment variable " + endpoint_.api_key_variable +
                                    " holding the API key for " + shown_url_ +
                                    " is not set: export it, or set the endpoint's key variable to \"\" for "
                                    "a server without keys");
    if (url->scheme == "http" && !loopback_)
        throw std::invalid_argument("the API key in " + endpoint_.api_key_variable + " would be sent in the clear to " +
                                    url->host + ": use https, or plain http only to a loopback address");
    key_ = key;
}

std::string http_model::redacted(std::string text) const {
    return http::redacted(std::move(text), key_);
}

http_reply http_model::exchange(model_request const& request, model_call_context const& context) const {
    using namespace std::chrono;
    transfer t;
    t.cap = endpoint_.max_body_bytes;
    t.stop = context.stop;
    auto const remaining = duration_cast<milliseconds>(context.deadline - steady_clock::now());
    if (context.deadline != steady_clock::time_point::max() && remaining <= milliseconds(0)) {
        t.reply.transport_error = "the call's deadline passed before it was sent";
        return t.reply;
    }
    auto const body = body_of(request);
    http::request r{
        .url = endpoint_.url, .body = body, .loopback = loopback_, .connect_timeout = endpoint_.connect_timeout};
    r.headers = {"content-type: application/json", "accept: text/event-stream, application/json"};
    r.headers.insert(r.headers.end(), endpoint_.headers.begin(), endpoint_.headers.end());
    if (!key_.empty())
        r.headers.push_back(endpoint_.key_header + ": " + endpoint_.key_prefix + key_);
    if (context.deadline != steady_clock::time_point::max())
        r.timeout = remaining;

    auto const done = http::perform(r, t);
    t.reply.status = done.status;
    if (done.code == CURLE_OK)
        return t.reply;
    auto const rc = done.code;
    std::string what = done.error;
    if (t.over_cap) {
        t.reply.transport_failure = model_failure::permanent;
        what = "the reply passed the cap of " + std::to_string(t.cap) + " bytes";
    } else if (rc == CURLE_ABORTED_BY_CALLBACK) {
        t.reply.transport_failure = done.request_bytes > 0 ? model_failure::cut_off : model_failure::transient;
        what = "the call was stopped (its deadline or its run's cancel) after " + std::to_string(t.reply.body.size()) +
               " bytes of reply";
    } else if (rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_SSL_CERTPROBLEM ||
               rc == CURLE_SSL_CACERT_BADFILE || rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT) {
        t.reply.transport_failure = model_failure::permanent;
    } else {
        t.reply.transport_failure = done.request_bytes > 0 ? model_failure::cut_off : model_failure::transient;
        if (rc == CURLE_OPERATION_TIMEDOUT)
            what = "no complete reply before the call's deadline (" + what + ")";
    }
    t.reply.transport_error = redacted(what);
    return t.reply;
}

std::optional<model_error> http_model::failure_of(http_reply const& reply, std::string_view provider) const {
    auto const from = std::string(provider) + " at " + shown_url_ + ": ";
    if (!reply.transport_error.empty())
        return model_error{reply.transport_failure, redacted(from + reply.transport_error), std::nullopt};
    auto const status = reply.status;
    if (status >= 200 && status < 300)
        return std::nullopt;
    auto const code = "HTTP " + std::to_string(status);
    if (status >= 300 && status < 400)
        return model_error{model_failure::permanent,
                           redacted(from + code + ": redirected to " +
                                    (reply.location.empty() ? std::string("nowhere") : reply.location) +
                                    "; redirects are not followed: give the endpoint's final URL"),
                           std::nullopt};
    bool const transient = status == 408 || status == 429 || status >= 500;
    return model_error{transient ? model_failure::transient : model_failure::permanent,
                       redacted(from + code + ": " + error_message_of(redacted(reply.body))),
                       transient ? reply.retry_after : std::nullopt};
}

model_result http_model::read_body(std::string const& body, std::string const& where, body_reader whole,
                                   body_reader stream) const {
    auto first = body.find_first_not_of(" \t\r\n");
    auto out = first != std::string::npos && body[first] == '{' ? whole(body, where) : stream(body, where);
    if (auto* e = std::get_if<model_error>(&out))
        e->message = redacted(std::move(e->message));
    return out;
}

model_result http_model::complete(model_request const& request, model_call_context const& context) {
    return read(exchange(request, context));
}

} // namespace agentrt
