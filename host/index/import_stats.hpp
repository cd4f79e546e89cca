#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism::index {

// Why an event was counted. "Skipped" reasons drop the event from every analysis (its row stays
// so UIDs keep their meaning); "kept" reasons are diagnostics about events still used.
enum class ImportIssue : std::uint8_t {
  kNotAnObject,       // skipped: an element of traceEvents that is not an object
  kMissingPhase,      // skipped: no "ph"
  kUnknownPhase,      // skipped: a "ph" this reader does not know
  kMissingTimestamp,  // skipped: no "ts" on an event that needs one
  kBadTimestamp,      // skipped: "ts" is not a number, or out of range
  kMissingDuration,   // skipped: complete event (ph X) without "dur"
  kBadDuration,       // skipped: "dur" is not a number, or out of range
  kBadPidTid,         // skipped: pid/tid neither integer nor string
  kMissingFlowId,     // skipped: flow event without "id"
  kUnmatchedEnd,      // skipped: E event with no open B on its thread
  kUnclosedBegin,     // skipped: B event never closed by an E
  kNegativeDuration,  // kept: dur < 0 (clock skew); kept as is, like the reference
  kSubNanosecond,     // kept: a time had digits below 1 ns; rounded to the nearest ns
  kLegacyNormalized,  // kept: PyTorch <= 1.9 vocabulary rewritten to the current one
  kCount
};

inline constexpr int kImportIssueCount = static_cast<int>(ImportIssue::kCount);

std::string_view import_issue_name(ImportIssue issue);
std::string_view import_issue_description(ImportIssue issue);
bool import_issue_skips_event(ImportIssue issue);

struct ImportExample {
  std::uint64_t event_index = 0;
  std::uint64_t byte_offset = 0;  // approximate: the first key of the event
  std::string detail;
};

class ImportStats {
 public:
  static constexpr std::size_t kMaxExamples = 3;

  void add(ImportIssue issue, std::uint64_t event_index, std::uint64_t byte_offset,
           std::string_view detail);
  std::uint64_t count(ImportIssue issue) const { return counts_[static_cast<int>(issue)]; }
  const std::vector<ImportExample>& examples(ImportIssue issue) const {
    return examples_[static_cast<int>(issue)];
  }
  std::uint64_t skipped_events() const;
  bool empty() const;

 private:
  std::array<std::uint64_t, kImportIssueCount> counts_{};
  std::array<std::vector<ImportExample>, kImportIssueCount> examples_{};
};

}  // namespace traceprism::index
