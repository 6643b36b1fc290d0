// One HTTP request through libcurl, set up the one way agentrt's clients send it (http and https
// only, no redirect followed, no proxy for a loopback host, no signals), and the checks around it
// that the model clients and the MCP client share. Internal.
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::http {

// libcurl's global state, set up once for the process; false when libcurl cannot start.
bool curl_ready();

struct url_parts {
    std::string scheme, host; // lower case
    // scheme://host[:port]/path, for messages: without the user, password, query and fragment,
    // where a URL may carry a secret.
    std::string shown;
};

// The URL's scheme and host, read by libcurl's own parser; none when it is not a URL with both.
std::optional<url_parts> parse_url(std::string const& url);

// A loopback address by its literal, or localhost: never a name that merely starts like one
// ("127.evil.example" resolves wherever its owner likes).
bool is_loopback(std::string const& host);

// `text` with every occurrence of `secret` replaced by "[redacted]"; `text` itself when there is
// no secret.
std::string redacted(std::string text, std::string_view secret);

// What reads a response as it arrives. Each call returns false to end the transfer there.
class response_reader {
public:
    virtual bool header_line(std::string_view line) = 0; // one header line, its line ending included
    virtual bool body_bytes(std::string_view bytes) = 0;
    virtual bool go_on() = 0; // asked again and again while the transfer lasts

protected:
    ~response_reader() = default;
};

struct request {
    std::string url;
    std::string method = "POST";
    std::string_view body; // sent with a POST
    std::vector<std::string> headers{};
    bool loopback = false; // the URL's host is a loopback address: no proxy may carry it elsewhere
    std::optional<std::chrono::milliseconds> connect_timeout{}, timeout{}; // none: libcurl's own, none
};

struct outcome {
    CURLcode code = CURLE_OK;
    long status = 0;        // the HTTP status of the last response, 0 when none came
    long request_bytes = 0; // of the request sent, 0 when nothing went
    std::string error;      // libcurl's words when `code` is not CURLE_OK
};

outcome perform(request const& r, response_reader& reader);

} // namespace agentrt::http
