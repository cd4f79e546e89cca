#pragma once

#include <string_view>

namespace traceprism::findings {

// findings.json's closed vocabulary of causes (diagnosis.md §8, docs/report-format.md): the
// idle causes of the GPU timeline first, in TRACEPRISM_CAUSE_* order, then the other kinds of
// lost time. Adding a key is a findings.json schema change.
inline constexpr std::string_view kCauses[] = {
    "dataloader", "blocking_copy", "sync",         "allocator", "launch_overhead", "host_compute",
    "dependency", "untraced",      "exposed_comm", "memcpy",    "precision",       "roofline",
    "fusion",     "recompute",     "layout",       "unmodeled"};
inline constexpr std::size_t kIdleCauseCount = 8;  // the first eight keys

inline bool is_known_cause(std::string_view key) {
  for (std::string_view c : kCauses)
    if (c == key) return true;
  return false;
}

}  // namespace traceprism::findings
