// Store schema migrations, once for every engine: each turns a record's stored text at one schema
// version into its text at the next; an engine applies them to its records in the transaction that
// moves its version. Internal.
#pragma once

#include <string>
#include <string_view>

namespace agentrt::migrations {

// Version 1 to 2: a run's lease gains its epoch, 0 for every run (version 1 counted no takes).
// Throws agentrt::exception (errc::store_failed) naming the run when the text is not a run of version 1.
std::string run_text_v1_to_v2(std::string_view text);

} // namespace agentrt::migrations
