#include <agentrt/catalog/json_reader.hpp>

#include "internal/numbers.hpp"
#include "internal/text.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/value_stack.hpp>

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace agentrt {
namespace {

namespace json = boost::json;

// Where the handler is in the document, so that a refusal can say where with a JSON Pointer.
// The keys of one object so far. A linear scan is quadratic in the number of keys, and a 1 MiB
// object holds about 130,000: past a few keys they go to an ordered set, whose worst case, unlike
// an unseeded hash's, no chosen set of keys can degrade.
class key_set {
public:
    // False when `key` was there already.
    bool insert(std::string const& key) {
        if (many_.empty()) {
            if (std::find(few_.begin(), few_.end(), key) != few_.end())
                return false;
            if (few_.size() < few_limit) {
                few_.push_back(key);
                return true;
            }
            many_.insert(std::make_move_iterator(few_.begin()), std::make_move_iterator(few_.end()));
            few_.clear();
        }
        return many_.insert(key).second;
    }

private:
    static constexpr std::size_t few_limit = 16;
    std::vector<std::string> few_;
    std::set<std::string, std::less<>> many_;
};

struct frame {
    bool is_object = false;
    std::size_t index = 0; // arrays: elements seen so far
    std::string key;       // objects: the current key
    key_set keys;
};

struct refusal {
    std::string_view rule;
    std::string detail;
    std::string pointer;
};

class strict_handler {
public:
    static constexpr std::size_t max_object_size = std::size_t(-1);
    static constexpr std::size_t max_array_size = std::size_t(-1);
    static constexpr std::size_t max_key_size = std::size_t(-1);
    static constexpr std::size_t max_string_size = std::size_t(-1);

    strict_handler(read_limits const& limits, json::storage_ptr storage)
        : limits_(limits), storage_(std::move(storage)) {}

    json::value release() { return values_.release(); }
    std::optional<refusal> const& refused() const { return refusal_; }

    bool on_document_begin(json::error_code&) {
        values_.reset(storage_);
        return true;
    }
    bool on_document_end(json::error_code&) { return true; }

    bool on_array_begin(json::error_code& ec) { return open(false, ec); }
    bool on_array_end(std::size_t n, json::error_code&) {
        frames_.pop_back();
        values_.push_array(n);
        return element_done();
    }
    bool on_object_begin(json::error_code& ec) { return open(true, ec); }
    bool on_object_end(std::size_t n, json::error_code&) {
        frames_.pop_back();
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
        pending_key_.append(s.data(), s.size());
        return true;
    }
    bool on_key(json::string_view s, std::size_t, json::error_code& ec) {
        pending_key_.append(s.data(), s.size());
        frame& top = frames_.back();
        top.key = pending_key_;
        if (!top.keys.insert(pending_key_))
            return refuse(boundary_rule::duplicate_key, "key " + internal::quoted(pending_key_) + " appears twice", ec);
        values_.push_key(pending_key_);
        pending_key_.clear();
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
                p += internal::escape_pointer_token(f.key);
            else
                p += std::to_string(f.index);
        }
        return p;
    }

private:
    bool open(bool is_object, json::error_code& ec) {
        if (frames_.size() >= limits_.max_depth)
            return refuse(boundary_rule::depth, "nesting deeper than " + std::to_string(limits_.max_depth), ec);
        frames_.push_back(frame{is_object, 0, {}, {}});
        return true;
    }
    // Called after every complete value: arrays count their elements so that pointers are right.
    bool element_done() {
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
        refusal_ = refusal{rule, std::move(detail), pointer()};
        ec = json::error::exception; // any code: the refusal carries the reason
        return false;
    }

    read_limits limits_;
    json::storage_ptr storage_;
    json::value_stack values_;
    std::vector<frame> frames_;
    std::string pending_key_;
    std::string number_;
    std::optional<refusal> refusal_;
};

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
    if (auto bad = internal::first_invalid_utf8(text); bad != std::string_view::npos)
        return boundary_error(boundary_rule::utf8, "invalid UTF-8 byte sequence", "", bad);

    json::parse_options options;
    options.max_depth = limits.max_depth + 1; // our handler refuses first, with its own message
    json::basic_parser<strict_handler> parser(options, limits, std::move(storage));
    json::error_code ec;
    std::size_t consumed = parser.write_some(false, text.data(), text.size(), ec);

    auto& handler = parser.handler();
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
