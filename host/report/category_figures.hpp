// The compute categories as their analyzers recorded them in figures ("<category>.total_time_ms",
// ".ops", ".findings", ".impact_score*": the reference's manifest and quantified rollup), and
// the Top Operations rows built from them. Shared by analysis.md and the breakdown chart.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/report_writers.hpp"

namespace traceprism::report {

struct CategoryFigures {
  double time_ms = 0, ops = 0, findings = 0;
  std::optional<double> impact, low, high;
  // Part of the rollup went to more specific findings (diagnosis.md §1.5): still a rollup row
  // of Top Operations even where nothing is left.
  bool impact_moved = false;
};

// Compute categories by key ("gemm", "conv_fwd"); system analyzers' figures are left out.
std::map<std::string, CategoryFigures> category_figures(const AnalysisReport& r);

// Category key -> the op category as the unified sheet writes it ("gemm" -> "GEMM").
std::map<std::string, std::string> category_display_names(const AnalysisReport& r);

// The analyzers' key of an op category ("NORM_fwd" -> "norm_fwd").
std::string category_key(std::string_view category);

// The whole that category shares divide: the computation partition's total (diagnosis.md §1.2),
// or, for a run without one, the computation time or the categories' summed kernel time when
// that is larger (no share above 100 %).
double category_whole_ms(const AnalysisReport& r);

// A category's time in ms: its part of the computation partition when the run has one (so
// shares sum to 100 %), else its analyzer's summed kernel time.
double category_time_ms(const AnalysisReport& r, const std::string& key,
                        const CategoryFigures& figures);

struct TopOperationRow {
  std::string key, display_name;
  CategoryFigures figures;
  bool quantified = false;  // from the impact rollup (else a category without findings)
};

// Top Operations (analysis-rules.md §5.4, §10.3): the categories by quantified impact (at most
// six), then the categories without any finding that hold >= 5% of the computation time. When
// that leaves it empty while compute findings exist (all of them unquantified rollups), the
// findings' categories by time (issue 15: never an empty table beside compute items). Times
// are category_time_ms.
std::vector<TopOperationRow> top_operations(const AnalysisReport& r);

}  // namespace traceprism::report
