// The "memcpy" analyzer: memory copies on the GPU timeline (diagnosis.md §5).
//
// Figures: the copy traffic per direction and memory kind (traffic.*: count, bytes, time,
// exposed time, achieved GB/s, share of the link that carries it), and the reference's
// multi_kernel_data.json / multi_kernel_metrics.json memcpy numbers for parity
// (reference_figures.hpp).
// Findings (category "memcpy", cause "memcpy", impact in % of E2E): "d2d" (device-to-device
// copy time >= 2 % of E2E: the ops that issue them), "h2d" and "d2h" (exposed host<->device copy
// time >= 2 % of E2E: pinned/pageable split, judged against the host link). The GPU idle time of
// blocking copies is the GPU-idle analyzer's (cause blocking_copy); these findings only refer to
// it. See docs/analyzers/memcpy/memcpy.md.
#pragma once

#include <traceprism/sdk.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "copy_issuers.hpp"
#include "copy_traffic.hpp"

namespace traceprism::plugins::memcpy {

class MemcpyAnalyzer : public Analyzer {
 public:
  explicit MemcpyAnalyzer(Context& ctx);
  Status run(Context& ctx) override;

 private:
  struct Run;  // what one run measured, shared by the findings
  struct PageablePart {
    std::size_t count = 0;
    double exposed_us = 0;
  };

  void report_device_copies(Context& ctx, const Run& run) const;
  void report_host_copies(Context& ctx, const Run& run, Direction d) const;

  // What the findings are made of.
  std::string device_copy_insight(const Context& ctx, const CopyStats& s, double e2e_us) const;
  std::string layout_copy_action(const Context& ctx, const Run& run, const CopyStats& s) const;
  std::string host_copy_insight(const Context& ctx, const Run& run, Direction d) const;
  static PageablePart pageable_part(const Run& run, Direction d);
  static void add_metrics(FindingBuilder& finding, const CopyStats& s, double exposed,
                          const Link& link);
  std::string host_copy_actions(const Context& ctx, const Run& run, Direction d) const;
  std::string blocking_note(const Context& ctx, const Run& run, Direction d) const;
  Table kinds_table(const Context& ctx, const Run& run, Direction d) const;
  Table ops_table(const Context& ctx, const Run& run, const std::vector<Row>& rows) const;
  void attach_copies(const Context& ctx, const Run& run, FindingBuilder& finding,
                     std::vector<Row> rows) const;

  double d2d_percent_;
  double host_exposed_percent_;
  double slow_link_percent_;
  std::int64_t small_copy_bytes_;
  double direction_percent_threshold_;
  std::int64_t direction_count_threshold_;
  std::int64_t sync_h2d_min_bytes_;
  std::int64_t table_rows_;
  std::int64_t max_evidence_rows_;
};

// The analyzer's options with their defaults (the one place each default is written).
inline constexpr traceprism_option_v1 kMemcpyOptions[] = {
    {"D2DPercentThreshold", "2",
     "Report device-to-device copies when their time is at least this % of E2E."},
    {"HostExposedPercentThreshold", "2",
     "Report host-to-device or device-to-host copies when their exposed time is at least this "
     "% of E2E."},
    {"SlowLinkPercent", "50",
     "Host copies that reach less than this % of the host link are slower than the link."},
    {"SmallCopyBytes", "1048576",
     "A median copy size below this many bytes makes slow host copies small transfers."},
    {"DirectionPercentThreshold", "5",
     "memcpy_assessment figures (reference): flag D2H or H2D copies above this % of E2E."},
    {"DirectionCountThreshold", "10",
     "memcpy_assessment figures (reference): flag D2H or H2D when there are more copies."},
    {"SyncH2DMinBytes", "65536",
     "Synchronous host-to-device copies of this many bytes or fewer do not block the host."},
    {"TableRows", "10", "Rows in each finding's tables."},
    {"MaxEvidenceRows", "200", "Evidence rows kept per finding (longest first)."},
};

}  // namespace traceprism::plugins::memcpy
