#include <agentrt/catalog/canonical_json.hpp>

#include "internal/numbers.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

namespace agentrt {
namespace {

namespace json = boost::json;

// Whether any of the 8 bytes in `w` is a control character, `"` or `\` (bit tricks: each test sets
// the high bit of a byte that matches; see "Bit Twiddling Hacks", determine if a word has a byte
// less than n / equal to n).
constexpr bool needs_escape(std::uint64_t w) {
    constexpr std::uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    auto zero_byte = [&](std::uint64_t x) { return (x - ones) & ~x & highs; };
    std::uint64_t control = (w - ones * 0x20) & ~w & highs;
    return (control | zero_byte(w ^ (ones * '"')) | zero_byte(w ^ (ones * '\\'))) != 0;
}

void append_escaped(std::string& out, unsigned char u) {
    static constexpr char hex[] = "0123456789abcdef";
    switch (u) {
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
        out += "\\u00";
        out += hex[u >> 4];
        out += hex[u & 0xf];
    }
}

// Records and events are mostly text that needs no escape: whole words of 8 plain bytes are copied
// at once (measured: the byte loop was a tenth of a durable step's CPU).
void append_string(std::string& out, std::string_view text) {
    out += '"';
    char const* p = text.data();
    std::size_t n = text.size(), plain = 0, i = 0;
    while (i < n) {
        if (n - i >= 8) {
            std::uint64_t w;
            std::memcpy(&w, p + i, 8);
            if (!needs_escape(w)) {
                i += 8;
                continue;
            }
        }
        auto u = static_cast<unsigned char>(p[i]);
        if (u < 0x20 || u == '"' || u == '\\') {
            out.append(p + plain, i - plain);
            append_escaped(out, u);
            plain = i + 1;
        }
        ++i;
    }
    out.append(p + plain, n - plain);
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

void append_json_string(std::string& out, std::string_view text) {
    append_string(out, text);
}

std::string sha256_hex(std::string_view bytes) {
    // Fetched once: OpenSSL 3 looks the algorithm up again on every EVP_sha256() digest (measured:
    // half the cost of hashing a small event).
    // The context is kept per thread for the same reason (EVP_Digest makes and frees one per call).
    static EVP_MD* const sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    thread_local std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (!sha256 || !context || EVP_DigestInit_ex2(context.get(), sha256, nullptr) != 1 ||
        EVP_DigestUpdate(context.get(), bytes.data(), bytes.size()) != 1 ||
        EVP_DigestFinal_ex(context.get(), digest, &length) != 1)
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
