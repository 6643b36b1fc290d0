#include "regex.hpp"

#include <re2/re2.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>

namespace agentrt::internal {

bool pattern_matches(std::string_view pattern, std::string_view text) {
    // Per thread, so that matching takes no lock; a catalogue has few patterns. The last pattern
    // used is remembered, so that a run of one pattern skips the lookup.
    thread_local std::map<std::string, std::unique_ptr<re2::RE2>, std::less<>> compiled;
    thread_local std::string_view last_pattern;
    thread_local re2::RE2 const* last = nullptr;
    if (last && pattern == last_pattern)
        return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *last);
    auto it = compiled.find(pattern);
    if (it == compiled.end()) {
        re2::RE2::Options options;
        options.set_log_errors(false);
        auto re = std::make_unique<re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
        if (!re->ok())
            throw std::invalid_argument("agentrt: RE2 refused pattern \"" + std::string(pattern) +
                                        "\": " + re->error());
        it = compiled.emplace(std::string(pattern), std::move(re)).first;
    }
    last_pattern = it->first;
    last = it->second.get();
    return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *last);
}

} // namespace agentrt::internal
