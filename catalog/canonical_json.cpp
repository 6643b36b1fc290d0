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

// Whether the 32 bytes at `p` need no escape: byte-wise compares of two 16-byte vectors (GCC and
// Clang vector extensions; SSE2 on x86-64), one branch per block.
inline bool plain_block(char const* p) {
    using bytes = unsigned char __attribute__((vector_size(16)));
    bytes a, b;
    std::memcpy(&a, p, sizeof a);
    std::memcpy(&b, p + 16, sizeof b);
    auto hits = (a < 0x20) | (a == '"') | (a == '\\') | (b < 0x20) | (b == '"') | (b == '\\');
    std::uint64_t w[2];
    std::memcpy(w, &hits, sizeof w);
    return (w[0] | w[1]) == 0;
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

// Records and events are mostly text that needs no escape: it is checked 32 bytes at a time and
// copied in one piece (measured: the byte loop was a tenth of a durable step's CPU).
void append_string(std::string& out, std::string_view text) {
    out += '"';
    char const* p = text.data();
    std::size_t n = text.size(), plain = 0, i = 0;
    while (i < n) {
        while (n - i >= 32 && plain_block(p + i))
            i += 32;
        for (std::size_t stop = std::min(n, i + 32); i < stop; ++i) {
            auto u = static_cast<unsigned char>(p[i]);
            if (u < 0x20 || u == '"' || u == '\\') {
                out.append(p + plain, i - plain);
                append_escaped(out, u);
                plain = i + 1;
            }
        }
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
