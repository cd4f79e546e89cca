// Kernel name -> perf-report numbers, the way the reference's fusion scripts look kernels up in
// unified_perf_summary (orchestrator_prepare._build_kernel_perf_lookup and
// kernel_fusion_analysis.build_kernel_perf_lookup): every kernel name of a row's
// kernel_details_summary maps to that row, keyed further by the row's first input shape; the
// first row wins for a (name, shape) pair. Lookups try the exact name, then the first name
// (in insertion order) that is a prefix of it or that it is a prefix of, since the report may
// hold truncated names.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fusion_inputs.hpp"

namespace traceprism::plugins::fusion {

// A first input shape as its elements' Python str() ("8944", "1024"); nullopt is Python None.
using Shape = std::optional<std::vector<std::string>>;

// parse_first_shape: the first element of an Input Dims literal when it is a list or tuple;
// None when the text is absent, unparsable or starts with something else.
Shape first_shape(std::optional<std::string_view> input_dims);

// Data Moved split into what a kernel reads and writes (orchestrator_prepare
// _compute_data_in_out): GEMM by M/N/K, reduce all in, binary elementwise 2/3 in, else half.
struct DataInOut {
  std::optional<double> in_mb, out_mb;
};
DataInOut split_data_moved(std::string_view op_category, std::string_view perf_params,
                           std::optional<double> data_moved_mb);

struct PerfEntry {
  std::string op_category;
  std::optional<double> data_moved_mb;
  std::optional<double> gflops;
  std::optional<std::string> compute_spec;
  DataInOut data;
};

class KernelPerfLookup {
 public:
  explicit KernelPerfLookup(const std::vector<PerfRow>& unified);

  using ShapeEntries = std::vector<std::pair<Shape, PerfEntry>>;  // insertion order
  // _prefix_lookup: the entries of the name, exact or by prefix either way; null when none.
  const ShapeEntries* entries(std::string_view kernel_name) const;
  // shape_aware_lookup: the entry for the candidate's first input shape, else the name's first
  // entry; null when the name is unknown.
  const PerfEntry* find(std::string_view kernel_name,
                        std::optional<std::string_view> candidate_input_dims) const;

 private:
  std::vector<std::string> order_;  // names in first-seen order (the prefix scan's order)
  std::map<std::string, ShapeEntries, std::less<>> by_name_;
};

}  // namespace traceprism::plugins::fusion
