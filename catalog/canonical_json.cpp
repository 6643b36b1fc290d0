#include <agentrt/catalog/canonical_json.hpp>

#include "internal/numbers.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace agentrt {
namespace {

namespace json = boost::json;

void append_string(std::string& out, std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    for (char c : text) {
        auto u = static_cast<unsigned char>(c);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (u < 0x20) {
                out += "\\u00";
                out += hex[u >> 4];
                out += hex[u & 0xf];
            } else
                out += c;
        }
    }
    out += '"';
}

void append(std::string& out, json::value const& v, bool sorted) {
    switch (v.kind()) {
    case json::kind::null:
        out += "null";
        break;
    case json::kind::bool_:
        out += v.get_bool() ? "true" : "false";
        break;
    case json::kind::int64:
        out += std::to_string(v.get_int64());
        break;
    case json::kind::uint64:
        out += std::to_string(v.get_uint64());
        break;
    case json::kind::double_: {
        double d = v.get_double();
        // A double holding an integer that fits 64 bits spells as that integer, so that values
        // built in code hash like values read by the boundary.
        if (d == std::trunc(d) && std::abs(d) < 9.2e18)
            out += std::to_string(static_cast<long long>(d));
        else
            out += internal::format_double(d);
        break;
    }
    case json::kind::string:
        append_string(out, v.get_string());
        break;
    case json::kind::array: {
        out += '[';
        bool first = true;
        for (auto const& e : v.get_array()) {
            if (!first)
                out += ',';
            first = false;
            append(out, e, sorted);
        }
        out += ']';
        break;
    }
    case json::kind::object: {
        auto const& object = v.get_object();
        std::vector<json::key_value_pair const*> members;
        members.reserve(object.size());
        for (auto const& kv : object)
            members.push_back(&kv);
        if (sorted)
            std::sort(members.begin(), members.end(), [](auto const* a, auto const* b) { return a->key() < b->key(); });
        out += '{';
        bool first = true;
        for (auto const* kv : members) {
            if (!first)
                out += ',';
            first = false;
            append_string(out, kv->key());
            out += ':';
            append(out, kv->value(), sorted);
        }
        out += '}';
        break;
    }
    }
}

} // namespace

std::string canonical_json(json::value const& v) {
    std::string out;
    append(out, v, true);
    return out;
}

std::string ordered_json(json::value const& v) {
    std::string out;
    append(out, v, false);
    return out;
}

std::string json_string_literal(std::string_view text) {
    std::string out;
    append_string(out, text);
    return out;
}

std::string sha256_hex(std::string_view bytes) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("agentrt: OpenSSL could not compute SHA-256");
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(length * 2);
    for (unsigned i = 0; i < length; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 0xf];
    }
    return out;
}

std::string canonical_hash(json::value const& v) {
    return sha256_hex(canonical_json(v));
}

} // namespace agentrt
