#include "text_table.hpp"

#include <algorithm>

namespace agentrt::testkit::internal {
namespace {

std::size_t code_points(std::string_view s) {
    return std::size_t(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// The byte offset of code point `n` (or the end).
std::size_t offset_of(std::string_view s, std::size_t n) {
    std::size_t seen = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80)
            continue;
        if (seen++ == n)
            return i;
    }
    return s.size();
}

} // namespace

std::string cut(std::string_view text, std::size_t max) {
    std::size_t length = code_points(text);
    if (length <= max)
        return std::string(text);
    std::size_t keep = (max - 1) / 2;
    std::string out(text.substr(0, offset_of(text, keep)));
    out += "…";
    out += text.substr(offset_of(text, length - keep));
    out += " (" + std::to_string(length) + " chars)";
    return out;
}

std::string text_table(std::vector<std::string> const& header, std::vector<std::vector<std::string>> const& rows) {
    std::vector<std::size_t> width(header.size());
    auto measure = [&](std::vector<std::string> const& row) {
        for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
            width[c] = std::max(width[c], code_points(row[c]));
    };
    measure(header);
    for (auto const& row : rows)
        measure(row);
    std::string out;
    auto write = [&](std::vector<std::string> const& row) {
        std::string line;
        for (std::size_t c = 0; c < width.size(); ++c) {
            std::string const cell = c < row.size() ? row[c] : "";
            line += cell;
            if (c + 1 < width.size())
                line += std::string(width[c] - code_points(cell) + 2, ' ');
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out += line + '\n';
    };
    write(header);
    for (auto const& row : rows)
        write(row);
    return out;
}

} // namespace agentrt::testkit::internal
