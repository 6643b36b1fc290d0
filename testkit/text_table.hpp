// Aligned text tables for the kit's reports (private to testkit/).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace agentrt::testkit::internal {

// Columns padded to their widest cell (counted in code points), separated by two spaces.
std::string text_table(std::vector<std::string> const& header, std::vector<std::vector<std::string>> const& rows);

// At most `max` code points: head and tail around "…", with the full length stated.
std::string cut(std::string_view text, std::size_t max = 48);

} // namespace agentrt::testkit::internal
