// The "memcpy" analyzer: memory copies on the GPU timeline.
//
// Figures: the reference's multi_kernel_data.json memcpy numbers (memcpy_summary.*, the memcpy
// half of overlap_analysis.*) and the memcpy_assessment of multi_kernel_metrics.json, over the
// GPU events linked to a launch (the set the GPU timeline uses).
// Findings (category "memcpy"): one per flagged direction ("d2h", "h2d"), plus the Nsight-style
// rules "pageable-async", "sync-memcpy" and "sync-memset". See docs/analyzers/memcpy/memcpy.md.
#pragma once

#include <traceprism/sdk.hpp>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace traceprism_memcpy {

class MemcpyAnalyzer : public traceprism::Analyzer {
 public:
  explicit MemcpyAnalyzer(traceprism::Context& ctx);
  traceprism::Status run(traceprism::Context& ctx) override;

 private:
  // One of the reference's name-based directions (memcpy_summary.by_direction).
  struct Direction {
    const char* label = "";  // "D2H", "H2D", "D2D", "other"
    std::vector<traceprism::Row> rows;
    double total_us = 0;  // rounded to 2 decimals, as the reference stores it
    double avg_us = 0;
    double max_us = 0;
    double total_bytes = 0;
    double avg_bytes = 0;
  };

  std::string flag_reason(bool by_percent, bool by_count) const;
  // The runtime/driver call that issued GPU row r: its launch link, else (a trace whose flows
  // do not pair up) the memcpy/memset API call with the same correlation id; kNoRow if none.
  traceprism::Row launcher_of(const traceprism::EventView& ev, traceprism::Row r) const;
  void index_launch_calls(const traceprism::Context& ctx);
  void summarize(traceprism::Context& ctx, Direction& d) const;
  void report_direction(traceprism::Context& ctx, const Direction& d, double percent, double e2e_us,
                        bool by_percent, bool by_count) const;
  void report_rule(traceprism::Context& ctx, const std::string& key, const std::string& title,
                   std::vector<traceprism::Row> rows, double e2e_us, traceprism::Severity severity,
                   const std::string& insight, const std::string& action,
                   const std::string& identification, const std::string& reasoning,
                   const std::string& resolution) const;
  traceprism::Table copy_table(const traceprism::Context& ctx,
                               const std::vector<traceprism::Row>& sorted_rows) const;

  double direction_percent_threshold_;
  std::int64_t direction_count_threshold_;
  std::int64_t sync_h2d_min_bytes_;
  std::int64_t table_rows_;
  std::int64_t max_evidence_rows_;
  std::unordered_map<std::int64_t, traceprism::Row> call_by_correlation_;
};

}  // namespace traceprism_memcpy
