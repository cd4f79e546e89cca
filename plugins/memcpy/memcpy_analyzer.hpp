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

namespace traceprism::plugins::memcpy {

class MemcpyAnalyzer : public Analyzer {
 public:
  explicit MemcpyAnalyzer(Context& ctx);
  Status run(Context& ctx) override;

 private:
  struct Direction;   // one of the reference's name-based directions
  struct Summary;     // memcpy_summary: the copies by direction
  struct Flag;        // a direction that memcpy_assessment flags
  struct RuleRows;    // the copies and memsets each Nsight-style rule matches
  struct MergeNotes;  // flagged directions whose finding a rule's finding carries

  // The steps of run(), in order.
  static Summary summarize(Context& ctx, const std::vector<Row>& copies);
  static void record_overlap(Context& ctx);
  std::vector<Flag> assess(Context& ctx, const Summary& summary, double e2e_us) const;
  void index_launch_calls(const Context& ctx);
  RuleRows match_rules(Context& ctx, const std::vector<Row>& copies) const;
  MergeNotes report_directions(Context& ctx, const std::vector<Flag>& flags, const RuleRows& rules,
                               double e2e_us) const;
  void report_pageable_async(Context& ctx, const RuleRows& rules, const std::string& note,
                             double e2e_us) const;
  void report_sync_memcpy(Context& ctx, const RuleRows& rules, const std::string& note,
                          double e2e_us) const;
  void report_sync_memset(Context& ctx, const RuleRows& rules, double e2e_us) const;

  // What the findings are made of.
  void report_direction(Context& ctx, const Flag& flag, double e2e_us) const;
  void report_rule(Context& ctx, const std::string& key, const std::string& title,
                   std::vector<Row> rows, double e2e_us, Severity severity,
                   const std::string& insight, const std::string& action,
                   const std::string& identification, const std::string& reasoning,
                   const std::string& resolution) const;
  void attach_copies(const Context& ctx, FindingBuilder& finding, std::vector<Row> rows) const;
  Table copy_table(const Context& ctx, const std::vector<Row>& sorted_rows) const;
  std::string flag_reason(bool by_percent, bool by_count) const;
  std::string api_names(const EventView& ev, const std::vector<Row>& rows) const;
  // The runtime/driver call that issued GPU row r: its launch link, else (a trace whose flows
  // do not pair up) the memcpy/memset API call with the same correlation id; kNoRow if none.
  Row launcher_of(const EventView& ev, Row r) const;

  double direction_percent_threshold_;
  std::int64_t direction_count_threshold_;
  std::int64_t sync_h2d_min_bytes_;
  std::int64_t table_rows_;
  std::int64_t max_evidence_rows_;
  std::unordered_map<std::int64_t, Row> call_by_correlation_;
};

// The analyzer's options with their defaults (the one place each default is written).
inline constexpr traceprism_option_v1 kMemcpyOptions[] = {
    {"DirectionPercentThreshold", "5",
     "Flag D2H or H2D copies when their time is above this % of the E2E span."},
    {"DirectionCountThreshold", "10",
     "Flag D2H or H2D copies when there are more than this many of them."},
    {"SyncH2DMinBytes", "65536",
     "sync-memcpy ignores host-to-device copies of this many bytes or fewer."},
    {"TableRows", "10", "Rows in each finding's table of longest copies."},
    {"MaxEvidenceRows", "200", "Evidence rows kept per finding (longest first)."},
};

}  // namespace traceprism::plugins::memcpy
