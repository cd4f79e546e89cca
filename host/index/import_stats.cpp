#include "index/import_stats.hpp"

namespace traceprism::index {

namespace {
struct IssueText {
  std::string_view name;
  std::string_view description;
  bool skips;
};

constexpr IssueText kIssues[kImportIssueCount] = {
    {"not_an_object", "element of traceEvents is not an object", true},
    {"missing_ph", "event has no \"ph\"", true},
    {"unknown_ph", "event has a \"ph\" this reader does not know", true},
    {"missing_ts", "event has no \"ts\"", true},
    {"bad_ts", "\"ts\" is not a number in range", true},
    {"missing_dur", "complete event (ph X) has no \"dur\"", true},
    {"bad_dur", "\"dur\" is not a number in range", true},
    {"bad_pid_tid", "\"pid\" or \"tid\" is neither an integer nor a string", true},
    {"missing_flow_id", "flow event has no \"id\"", true},
    {"unmatched_end", "E event without an open B event on its thread", true},
    {"unclosed_begin", "B event never closed by an E event", true},
    {"negative_dur", "\"dur\" is negative (kept as is)", false},
    {"sub_ns_time", "time had digits below 1 ns (rounded to the nearest ns)", false},
    {"legacy_normalized", "PyTorch <= 1.9 vocabulary normalized", false},
};
}  // namespace

std::string_view import_issue_name(ImportIssue issue) {
  return kIssues[static_cast<int>(issue)].name;
}
std::string_view import_issue_description(ImportIssue issue) {
  return kIssues[static_cast<int>(issue)].description;
}
bool import_issue_skips_event(ImportIssue issue) {
  return kIssues[static_cast<int>(issue)].skips;
}

void ImportStats::add(ImportIssue issue, std::uint64_t event_index, std::uint64_t byte_offset,
                      std::string_view detail) {
  auto i = static_cast<int>(issue);
  ++counts_[i];
  if (examples_[i].size() < kMaxExamples) {
    examples_[i].push_back({event_index, byte_offset, std::string(detail)});
  }
}

std::uint64_t ImportStats::skipped_events() const {
  std::uint64_t n = 0;
  for (int i = 0; i < kImportIssueCount; ++i) {
    if (kIssues[i].skips) n += counts_[i];
  }
  return n;
}

bool ImportStats::empty() const {
  for (auto c : counts_) {
    if (c) return false;
  }
  return true;
}

}  // namespace traceprism::index
