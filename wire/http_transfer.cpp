#include "http_transfer.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <memory>

namespace agentrt::http {
namespace {

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
    auto const n = size * count;
    return static_cast<response_reader*>(user)->header_line({data, n}) ? n : 0;
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
    auto const n = size * count;
    return static_cast<response_reader*>(user)->body_bytes({data, n}) ? n : 0; // 0 ends it: CURLE_WRITE_ERROR
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    return static_cast<response_reader*>(user)->go_on() ? 0 : 1; // 1 ends it: CURLE_ABORTED_BY_CALLBACK
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

} // namespace

bool curl_ready() {
    static bool const ready = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    return ready;
}

std::optional<url_parts> parse_url(std::string const& url) {
    std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> u(curl_url(), curl_url_cleanup);
    if (!u || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
        return std::nullopt;
    url_parts parts;
    for (auto [part, into] : {std::pair{CURLUPART_SCHEME, &parts.scheme}, std::pair{CURLUPART_HOST, &parts.host}}) {
        char* text = nullptr;
        if (curl_url_get(u.get(), part, &text, 0) != CURLUE_OK)
            return std::nullopt;
        *into = lower(text);
        curl_free(text);
    }
    parts.shown = parts.scheme + "://" + parts.host;
    char* text = nullptr;
    if (curl_url_get(u.get(), CURLUPART_PORT, &text, 0) == CURLUE_OK) { // none when the URL names no port
        parts.shown += std::string(":") + text;
        curl_free(text);
    }
    if (curl_url_get(u.get(), CURLUPART_PATH, &text, 0) == CURLUE_OK) {
        parts.shown += text;
        curl_free(text);
    }
    return parts;
}

bool is_loopback(std::string const& host) {
    in_addr v4{};
    if (::inet_pton(AF_INET, host.c_str(), &v4) == 1)
        return (ntohl(v4.s_addr) >> 24) == 127;
    return host == "localhost" || host == "[::1]" || host == "::1";
}

std::string redacted(std::string text, std::string_view secret) {
    if (secret.empty())
        return text;
    constexpr std::string_view mark = "[redacted]";
    for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at + mark.size()))
        text.replace(at, secret.size(), mark);
    return text;
}

outcome perform(request const& r, response_reader& reader) {
    char error[CURL_ERROR_SIZE] = {}; // written by libcurl until the handle is cleaned up, so declared first
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> handle(curl_easy_init(), curl_easy_cleanup);
    if (!handle)
        return {.code = CURLE_FAILED_INIT, .error = "libcurl could not make a handle"};
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(nullptr, curl_slist_free_all);
    for (auto const& line : r.headers) {
        auto* longer =
            curl_slist_append(headers.get(), line.c_str()); // null, and the list as it was, when out of memory
        if (!longer)
            return {.code = CURLE_OUT_OF_MEMORY, .error = "no memory for the request's headers"};
        (void)headers.release();
        headers.reset(longer);
    }

    auto* e = handle.get();
    curl_easy_setopt(e, CURLOPT_URL, r.url.c_str());
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    if (r.loopback)
        curl_easy_setopt(e, CURLOPT_PROXY, ""); // a proxy variable must not carry a loopback request elsewhere
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    if (r.method == "POST") {
        curl_easy_setopt(e, CURLOPT_POST, 1L);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, r.body.data());
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
    } else {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method.c_str());
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &reader);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &reader);
    curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(e, CURLOPT_XFERINFODATA, &reader);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error);
    if (r.connect_timeout)
        curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(r.connect_timeout->count()));
    if (r.timeout)
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(r.timeout->count()));

    outcome out;
    out.code = curl_easy_perform(e);
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &out.status);
    curl_easy_getinfo(e, CURLINFO_REQUEST_SIZE, &out.request_bytes);
    if (out.code != CURLE_OK)
        out.error = *error ? error : curl_easy_strerror(out.code);
    return out;
}

} // namespace agentrt::http
