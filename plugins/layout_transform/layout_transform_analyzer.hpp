// The "layout-transform" analyzer (diagnosis.md §6.4): kernels that only move a tensor into
// another layout — cuDNN's NCHW <-> NHWC conversions (`nchwToNhwcKernel`, `nhwc2nchw_params_t`),
// MIOpen's `batched_transpose_*`, other `transpose_*` kernels. When their time is more than 2 %
// of computation, one compute-tier finding (category and cause "layout") with the time, its
// share of computation and of E2E, the kernels, the ops that launch them, and the memory-format
// change (channels-last) that lets the convolution library stop converting. Impact: 50 / 75 /
// 90 % of that time, in % of E2E. Page: docs/analyzers/layout_transform/layout-transform.md.
#pragma once

#include <traceprism/sdk.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism::plugins::layout_transform {

enum class LayoutKind {
  kNone,
  kToChannelsLast,    // NCHW -> NHWC (cuDNN nchwToNhwc / nchw2nhwc)
  kFromChannelsLast,  // NHWC -> NCHW
  kBatchedTranspose,  // MIOpen's batched_transpose_*: its NCHW <-> NHWC conversions
  kTranspose,         // another transpose kernel
};

// What layout change a kernel of this name makes; kNone for every other kernel.
LayoutKind layout_kind(std::string_view kernel);

// Whether the memory-format change (channels-last) removes this kind of kernel.
inline bool is_format_conversion(LayoutKind k) {
  return k == LayoutKind::kToChannelsLast || k == LayoutKind::kFromChannelsLast ||
         k == LayoutKind::kBatchedTranspose;
}

const char* layout_label(LayoutKind k);

class LayoutTransformAnalyzer : public Analyzer {
 public:
  explicit LayoutTransformAnalyzer(Context& ctx);
  Status run(Context& ctx) override;

  struct Group {  // one kernel name, or one launching op chain
    std::string name;
    LayoutKind kind = LayoutKind::kNone;
    std::uint64_t calls = 0;
    double time_us = 0;
  };
  struct Layouts {  // the layout kernels of the GPU timeline's event set
    double e2e_us = 0, computation_us = 0;
    double busy_us = 0, format_busy_us = 0;  // unions: all of them / the format conversions
    double under_conv_us = 0;                // durations launched under a convolution op
    double without_op_us = 0;                // durations with no CPU op above them
    bool miopen = false;                     // some are MIOpen's
    std::vector<Group> kernels, ops;         // most time first
    std::vector<Row> rows;                   // file order
  };
  static Layouts measure(const Context& ctx);

 private:
  void report(Context& ctx, const Layouts& l) const;
  static std::string action(const Layouts& l);
  static std::string insight(const Layouts& l);
  static bool launching_op_unknown(const Layouts& l);
  Table kernels_table(const Layouts& l) const;
  Table ops_table(const Layouts& l) const;

  double share_percent_;
  std::int64_t table_rows_;
  std::int64_t max_evidence_rows_;
};

// The analyzer's options with their defaults (the one place each default is written).
inline constexpr traceprism_option_v1 kLayoutOptions[] = {
    {"LayoutSharePercent", "2",
     "Report layout-transform kernels when their time is more than this % of computation."},
    {"TableRows", "10", "Rows in each of the finding's tables."},
    {"MaxEvidenceRows", "200", "Evidence rows kept (longest kernels first)."},
};

}  // namespace traceprism::plugins::layout_transform
