#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "findings/finding.hpp"

namespace traceprism::schedule {

// A compact byte encoding of what an analyzer produced (status, error, findings, figures, log),
// used to bring results back from an analyzer run in a child process. Host-internal: both ends
// are the same binary, so the format carries no version.
std::string encode_outcome(const findings::AnalyzerOutcome& outcome);

// Decodes into `out` (name, plugin and summary are kept); false when the bytes are truncated or
// malformed (e.g. the child died while writing).
bool decode_outcome(std::string_view bytes, findings::AnalyzerOutcome& out);

}  // namespace traceprism::schedule
