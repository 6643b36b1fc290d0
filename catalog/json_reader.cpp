#include <agentrt/catalog/json_reader.hpp>

#include "internal/numbers.hpp"
#include "internal/text.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/value_stack.hpp>

#include <boost/container/small_vector.hpp>

#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>

namespace agentrt {
namespace {

namespace json = boost::json;

// The keys of the objects being read, back to back in one buffer, so that a duplicate is found
// without a string per key. An object's keys are a contiguous run that ends when the object does.
// Past a few keys a linear scan would be quadratic (a 1 MiB object holds about 130,000), so an
// object that grows past them also indexes its keys in an ordered set, whose worst case, unlike
// an unseeded hash's, no chosen set of keys can degrade.
class key_stack {
public:
    static constexpr std::size_t few = 16;

    // Orders key indices by their text; the set holding them lives in a frame of this stack's reader.
    struct by_text {
        key_stack const* keys;
        bool operator()(std::size_t a, std::size_t b) const { return (*keys)[a] < (*keys)[b]; }
    };
    using index = std::set<std::size_t, by_text>;

    std::size_t size() const noexcept { return spans_.size(); }
    std::string_view operator[](std::size_t i) const noexcept {
        return {text_.data() + spans_[i].offset, spans_[i].size};
    }

    void append(std::string_view part) { text_.insert(text_.end(), part.begin(), part.end()); }

    // Ends the key appended since the last one; false when one of the keys from `first` on is
    // the same. `many` indexes those keys once they are more than a few.
    bool end_key(std::size_t first, std::unique_ptr<index>& many) {
        std::size_t const offset = spans_.empty() ? 0 : spans_.back().offset + spans_.back().size;
        spans_.push_back({offset, text_.size() - offset});
        std::size_t const added = spans_.size() - 1;
        if (many)
            return many->insert(added).second;
        std::string_view key = (*this)[added];
        for (std::size_t i = first; i < added; ++i)
            if ((*this)[i] == key)
                return false;
        if (added - first + 1 > few) {
            many = std::make_unique<index>(by_text{this});
            for (std::size_t i = first; i <= added; ++i)
                many->insert(i);
        }
        return true;
    }

    // Forgets the keys from `first` on: their object has ended.
    void pop_to(std::size_t first) {
        if (first >= spans_.size())
            return;
        text_.resize(spans_[first].offset);
        spans_.resize(first);
    }

private:
    struct span {
        std::size_t offset, size;
    };
    boost::container::small_vector<char, 256> text_;
    boost::container::small_vector<span, 32> spans_;
};

// Where the handler is in the document, so that a refusal can say where with a JSON Pointer.
struct frame {
    static constexpr std::size_t no_key = std::size_t(-1);
    bool is_object = false;
    std::size_t index = 0;            // arrays: elements seen so far
    std::size_t first_key = 0;        // objects: where their keys start on the key stack
    std::size_t current_key = no_key; // objects: the key whose value is being read
    std::unique_ptr<key_stack::index> many;
};

struct refusal {
    std::string_view rule;
    std::string detail;
    std::string pointer;
};

// Reads a document in one of two passes. The first, not `Locating`, keeps no positions and no keys:
// it is the pass every accepted document takes, and it only counts the keys it reads, since
// Boost.JSON's objects keep the last of duplicate keys and so hold fewer (see `members`). A document
// that pass refuses, or finds a duplicate in, is read again `Locating`, to name the rule and where.
template <bool Locating>
class strict_handler {
public:
    static constexpr std::size_t max_object_size = std::size_t(-1);
    static constexpr std::size_t max_array_size = std::size_t(-1);
    static constexpr std::size_t max_key_size = std::size_t(-1);
    static constexpr std::size_t max_string_size = std::size_t(-1);

    strict_handler(read_limits const& limits, json::storage_ptr storage, std::span<unsigned char> stack_buffer)
        : limits_(limits), storage_(std::move(storage)), values_({}, stack_buffer.data(), stack_buffer.size()) {}

    json::value release() { return values_.release(); }
    std::optional<refusal> const& refused() const { return refusal_; }
    std::size_t keys_read() const noexcept { return keys_read_; }

    bool on_document_begin(json::error_code&) {
        values_.reset(storage_);
        return true;
    }
    bool on_document_end(json::error_code&) { return true; }

    bool on_array_begin(json::error_code& ec) { return open(false, ec); }
    bool on_array_end(std::size_t n, json::error_code&) {
        close();
        values_.push_array(n);
        return element_done();
    }
    bool on_object_begin(json::error_code& ec) { return open(true, ec); }
    bool on_object_end(std::size_t n, json::error_code&) {
        close();
        values_.push_object(n);
        return element_done();
    }

    bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
        values_.push_chars(s);
        return true;
    }
    bool on_string(json::string_view s, std::size_t, json::error_code&) {
        values_.push_string(s);
        return element_done();
    }
    bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
        if constexpr (Locating)
            keys_.append(s);
        else
            values_.push_chars(s);
        return true;
    }
    bool on_key(json::string_view s, std::size_t, json::error_code& ec) {
        if constexpr (!Locating) {
            ++keys_read_;
            values_.push_key(s);
            return true;
        }
        keys_.append(s);
        frame& top = frames_.back();
        bool const first_time = keys_.end_key(top.first_key, top.many);
        top.current_key = keys_.size() - 1;
        std::string_view key = keys_[top.current_key];
        if (!first_time)
            return refuse(boundary_rule::duplicate_key, "key " + internal::quoted(key) + " appears twice", ec);
        values_.push_key(key);
        return true;
    }

    bool on_number_part(json::string_view s, json::error_code& ec) {
        number_.append(s.data(), s.size());
        return check_number_length(ec);
    }
    bool on_int64(std::int64_t i, json::string_view s, json::error_code& ec) {
        number_.append(s.data(), s.size());
        if (!check_number_length(ec))
            return false;
        number_.clear();
        values_.push_int64(i);
        return element_done();
    }
    bool on_uint64(std::uint64_t u, json::string_view s, json::error_code& ec) {
        number_.append(s.data(), s.size());
        if (!check_number_length(ec))
            return false;
        number_.clear();
        values_.push_uint64(u);
        return element_done();
    }
    bool on_double(double, json::string_view s, json::error_code& ec) {
        number_.append(s.data(), s.size());
        if (!check_number_length(ec))
            return false;
        auto parsed = internal::parse_number_literal(number_, limits_.max_exponent);
        switch (parsed.status) {
        case internal::literal_status::exponent_too_large:
            return refuse(boundary_rule::exponent,
                          "exponent of " + internal::abbreviated(number_) + " is beyond ±" +
                              std::to_string(limits_.max_exponent),
                          ec);
        case internal::literal_status::out_of_range:
            return refuse(boundary_rule::number_range,
                          internal::abbreviated(number_) + " is outside the range of a double", ec);
        case internal::literal_status::fraction_lost:
            return refuse(boundary_rule::number_precision,
                          internal::abbreviated(number_) + " is not an integer, but the double nearest it is", ec);
        case internal::literal_status::int64:
            values_.push_int64(parsed.i);
            break;
        case internal::literal_status::uint64:
            values_.push_uint64(parsed.u);
            break;
        case internal::literal_status::floating:
            values_.push_double(parsed.d);
            break;
        }
        number_.clear();
        return element_done();
    }
    bool on_bool(bool b, json::error_code&) {
        values_.push_bool(b);
        return element_done();
    }
    bool on_null(json::error_code&) {
        values_.push_null();
        return element_done();
    }
    bool on_comment_part(json::string_view, json::error_code&) { return true; }
    bool on_comment(json::string_view, json::error_code&) { return true; }

    std::string pointer() const {
        std::string p;
        for (auto const& f : frames_) {
            p += '/';
            if (f.is_object)
                p += f.current_key == frame::no_key ? std::string()
                                                    : internal::escape_pointer_token(keys_[f.current_key]);
            else
                p += std::to_string(f.index);
        }
        return p;
    }

private:
    bool open(bool is_object, json::error_code& ec) {
        if (depth_ >= limits_.max_depth)
            return refuse(boundary_rule::depth, "nesting deeper than " + std::to_string(limits_.max_depth), ec);
        ++depth_;
        if constexpr (Locating)
            frames_.push_back(frame{is_object, 0, keys_.size(), frame::no_key, nullptr});
        return true;
    }
    void close() {
        --depth_;
        if constexpr (Locating) {
            keys_.pop_to(frames_.back().first_key);
            frames_.pop_back();
        }
    }
    // Called after every complete value: arrays count their elements so that pointers are right.
    bool element_done() {
        if constexpr (Locating)
            if (!frames_.empty() && !frames_.back().is_object)
                ++frames_.back().index;
        return true;
    }
    bool check_number_length(json::error_code& ec) {
        if (number_.size() <= limits_.max_number_length)
            return true;
        return refuse(boundary_rule::number_length,
                      "number literal longer than " + std::to_string(limits_.max_number_length) + " characters", ec);
    }
    bool refuse(std::string_view rule, std::string detail, json::error_code& ec) {
        refusal_ = refusal{rule, std::move(detail), Locating ? pointer() : std::string()};
        ec = json::error::exception; // any code: the refusal carries the reason
        return false;
    }

    read_limits limits_;
    json::storage_ptr storage_;
    json::value_stack values_;
    std::size_t depth_ = 0;
    std::size_t keys_read_ = 0;
    boost::container::small_vector<frame, 16> frames_; // Locating only
    key_stack keys_;                                   // Locating only
    std::string number_;
    std::optional<refusal> refusal_;
};

// The keys of every object in `v`, nested ones included.
std::size_t members(json::value const& v) {
    std::size_t n = 0;
    if (auto const* o = v.if_object()) {
        n = o->size();
        for (auto const& m : *o)
            if (m.value().is_structured())
                n += members(m.value());
    } else if (auto const* a = v.if_array()) {
        for (auto const& e : *a)
            if (e.is_structured())
                n += members(e);
    }
    return n;
}

// The parser reports an unpaired surrogate escape as a plain syntax error when the next character
// is not a backslash: recognise the escape just before the failure to name the rule.
bool ends_in_surrogate_escape(std::string_view before) {
    auto at = before.rfind("\\u");
    if (at == std::string_view::npos || before.size() - at > 8)
        return false;
    auto hex = before.substr(at + 2, 4);
    if (hex.size() < 4)
        return false;
    unsigned value = 0;
    for (char c : hex) {
        int d = internal::hex_value(c);
        if (d < 0)
            return false;
        value = value * 16 + unsigned(d);
    }
    return value >= 0xd800 && value <= 0xdfff;
}

error boundary_error(std::string_view rule, std::string const& detail, std::string pointer, std::size_t offset) {
    error e;
    e.code = errc::invalid_json;
    e.message = "invalid JSON at byte " + std::to_string(offset) + ": " + detail;
    e.violations.push_back(violation{std::move(pointer), std::string(rule), detail});
    return e;
}

} // namespace

result<boost::json::value> read_json(std::string_view text, read_limits const& limits,
                                     boost::json::storage_ptr storage) {
    json::parse_options options;
    options.max_depth = limits.max_depth + 1; // our handler refuses first, with its own message
    unsigned char stack_buffer[BOOST_JSON_STACK_BUFFER_SIZE];
    {
        json::basic_parser<strict_handler<false>> parser(options, limits, storage, std::span(stack_buffer));
        json::error_code ec;
        std::size_t consumed = parser.write_some(false, text.data(), text.size(), ec);
        auto& handler = parser.handler();
        if (!ec && !handler.refused() && internal::only_whitespace(text.substr(consumed))) {
            json::value document = handler.release();
            if (members(document) == handler.keys_read())
                return document;
        }
    }
    json::basic_parser<strict_handler<true>> parser(options, limits, std::move(storage), std::span(stack_buffer));
    json::error_code ec;
    std::size_t consumed = parser.write_some(false, text.data(), text.size(), ec);

    // The parser refuses invalid UTF-8 too, as a plain syntax error: a text it accepts is valid
    // UTF-8, and only a refused one is scanned again to name the rule, whatever else is wrong.
    auto& handler = parser.handler();
    if (handler.refused() || ec || !internal::only_whitespace(text.substr(consumed)))
        if (auto bad = internal::first_invalid_utf8(text); bad != std::string_view::npos)
            return boundary_error(boundary_rule::utf8, "invalid UTF-8 byte sequence", "", bad);
    if (handler.refused())
        return boundary_error(handler.refused()->rule, handler.refused()->detail, handler.refused()->pointer, consumed);
    if (ec) {
        std::string pointer = handler.pointer();
        if (ec == json::error::incomplete) {
            if (internal::only_whitespace(text))
                return boundary_error(boundary_rule::empty, "no JSON value", "", consumed);
            return boundary_error(boundary_rule::truncated, "the text ends inside a value", pointer, consumed);
        }
        if (ec == json::error::illegal_leading_surrogate || ec == json::error::illegal_trailing_surrogate ||
            ends_in_surrogate_escape(text.substr(0, consumed)))
            return boundary_error(boundary_rule::surrogate, "\\u escape of an unpaired UTF-16 surrogate", pointer,
                                  consumed);
        return boundary_error(boundary_rule::syntax, ec.message(), pointer, consumed);
    }
    if (!internal::only_whitespace(text.substr(consumed)))
        return boundary_error(boundary_rule::trailing, "more than one JSON value", "", consumed);
    return handler.release();
}

} // namespace agentrt
