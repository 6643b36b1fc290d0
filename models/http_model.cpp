#include <agentrt/models/http_model.hpp>

#include <boost/json/parse.hpp>

#include <curl/curl.h>

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace agentrt {
namespace {

void init_curl_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            throw std::runtime_error("libcurl could not be initialised");
    });
}

struct curl_url_part {
    char* text = nullptr;
    ~curl_url_part() { curl_free(text); }
};

// A name is loopback only when it is one: "127.evil.example" resolves wherever its owner likes.
bool is_loopback(std::string const& host) {
    if (host == "localhost" || host == "[::1]" || host == "::1")
        return true;
    in_addr address{};
    return ::inet_pton(AF_INET, host.c_str(), &address) == 1 && (ntohl(address.s_addr) >> 24) == 127;
}

// The URL's scheme and host, through libcurl's own parser.
std::pair<std::string, std::string> scheme_and_host(std::string const& url) {
    std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> u(curl_url(), curl_url_cleanup);
    if (!u || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
        throw std::invalid_argument("the model endpoint " + url + " is not a URL");
    curl_url_part scheme, host;
    if (curl_url_get(u.get(), CURLUPART_SCHEME, &scheme.text, 0) != CURLUE_OK ||
        curl_url_get(u.get(), CURLUPART_HOST, &host.text, 0) != CURLUE_OK)
        throw std::invalid_argument("the model endpoint " + url + " has no scheme or host");
    return {scheme.text, host.text};
}

struct transfer {
    http_reply reply;
    std::size_t cap = 0;
    bool over_cap = false;
    std::stop_token stop;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
    auto& t = *static_cast<transfer*>(user);
    auto const n = size * count;
    if (t.reply.body.size() + n > t.cap) {
        t.over_cap = true;
        return 0; // ends the transfer with CURLE_WRITE_ERROR
    }
    t.reply.body.append(data, n);
    return n;
}

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

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
    auto& t = *static_cast<transfer*>(user);
    std::string_view line(data, size * count);
    if (line.starts_with("HTTP/")) { // a new response (after a 100 Continue): start over
        t.reply.retry_after.reset();
        t.reply.location.clear();
    } else if (header_is(line, "retry-after")) {
        t.reply.retry_after = retry_after_of(trimmed(line.substr(12)));
    } else if (header_is(line, "location")) {
        t.reply.location = trimmed(line.substr(9));
    }
    return size * count;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    return static_cast<transfer*>(user)->stop.stop_requested() ? 1 : 0;
}

// The message of a provider's error body ({"error":{"message":...}}), or the body's start.
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
    init_curl_once();
    auto const [scheme, host] = scheme_and_host(endpoint_.url);
    loopback_ = is_loopback(host);
    if (scheme != "https" && scheme != "http")
        throw std::invalid_argument("the model endpoint " + endpoint_.url + " is not http or https");
    if (endpoint_.api_key_variable.empty())
        return;
    auto const* key = std::getenv(endpoint_.api_key_variable.c_str());
    if (!key || !*key)
        throw std::invalid_argument("the environment variable " + endpoint_.api_key_variable +
                                    " holding the API key for " + endpoint_.url +
                                    " is not set: export it, or set the endpoint's key variable to \"\" for "
                                    "a server without keys");
    if (scheme == "http" && !loopback_)
        throw std::invalid_argument("the API key in " + endpoint_.api_key_variable + " would be sent in the clear to " +
                                    host + ": use https, or plain http only to a loopback address");
    key_ = key;
}

std::string http_model::redacted(std::string text) const {
    if (key_.empty())
        return text;
    constexpr std::string_view mark = "[redacted]";
    for (auto at = text.find(key_); at != std::string::npos; at = text.find(key_, at + mark.size()))
        text.replace(at, key_.size(), mark);
    return text;
}

http_reply http_model::exchange(model_request const& request, model_call_context const& context) const {
    transfer t;
    t.cap = endpoint_.max_body_bytes;
    t.stop = context.stop;
    auto const body = body_of(request);
    char error[CURL_ERROR_SIZE] = {}; // written by libcurl until the handle is cleaned up, so declared first
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> h(curl_easy_init(), curl_easy_cleanup);
    if (!h) {
        t.reply.transport_error = "libcurl could not make a handle";
        return t.reply;
    }
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(nullptr, curl_slist_free_all);
    auto add = [&](std::string const& line) { headers.reset(curl_slist_append(headers.release(), line.c_str())); };
    add("content-type: application/json");
    add("accept: text/event-stream, application/json");
    for (auto const& line : endpoint_.headers)
        add(line);
    if (!key_.empty())
        add(endpoint_.key_header + ": " + endpoint_.key_prefix + key_);

    using namespace std::chrono;
    auto const remaining = duration_cast<milliseconds>(context.deadline - steady_clock::now());
    if (context.deadline != steady_clock::time_point::max() && remaining <= milliseconds(0)) {
        t.reply.transport_error = "the call's deadline passed before it was sent";
        return t.reply;
    }
    auto* e = h.get();
    curl_easy_setopt(e, CURLOPT_URL, endpoint_.url.c_str());
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    if (loopback_)
        curl_easy_setopt(e, CURLOPT_PROXY, ""); // a proxy variable must not carry a loopback request elsewhere
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(e, CURLOPT_XFERINFODATA, &t);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(endpoint_.connect_timeout.count()));
    if (context.deadline != steady_clock::time_point::max())
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(remaining.count()));

    auto const rc = curl_easy_perform(e);
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &t.reply.status);
    if (rc == CURLE_OK)
        return t.reply;
    long sent = 0;
    curl_easy_getinfo(e, CURLINFO_REQUEST_SIZE, &sent);
    std::string what = *error ? error : curl_easy_strerror(rc);
    if (t.over_cap) {
        t.reply.transport_failure = model_failure::permanent;
        what = "the reply passed the cap of " + std::to_string(t.cap) + " bytes";
    } else if (rc == CURLE_ABORTED_BY_CALLBACK) {
        t.reply.transport_failure = sent > 0 ? model_failure::cut_off : model_failure::transient;
        what = "the call was stopped (its deadline or its run's cancel) after " + std::to_string(t.reply.body.size()) +
               " bytes of reply";
    } else if (rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_SSL_CERTPROBLEM ||
               rc == CURLE_SSL_CACERT_BADFILE || rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT) {
        t.reply.transport_failure = model_failure::permanent;
    } else {
        t.reply.transport_failure = sent > 0 ? model_failure::cut_off : model_failure::transient;
        if (rc == CURLE_OPERATION_TIMEDOUT)
            what = "no complete reply before the call's deadline (" + what + ")";
    }
    t.reply.transport_error = redacted(what);
    return t.reply;
}

std::optional<model_error> http_model::failure_of(http_reply const& reply, std::string_view provider) const {
    auto const from = std::string(provider) + " at " + endpoint_.url + ": ";
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
                       redacted(from + code + ": " + error_message_of(reply.body)),
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
