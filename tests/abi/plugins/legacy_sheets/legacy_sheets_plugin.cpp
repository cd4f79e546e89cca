// A plugin built against ABI 1.4 (ABI_MINOR 4) that reads the perf report the 1.1 way, as text
// cells through perf_sheet: a 1.5 host still loads it and serves the same cells. It records
// the sheets' sizes and hands the cells back as one finding's tables, which the loader test
// compares with the CSVs the run wrote.
#include <traceprism/sdk.hpp>

#include <string>
#include <vector>

#if TRACEPRISM_PLUGIN_ABI_MINOR != 4
#error "legacy_sheets must be built for ABI 1.4"
#endif

namespace {

class SheetReader : public traceprism::Analyzer {
 public:
  traceprism::Status run(traceprism::Context& ctx) override {
    auto finding = ctx.report(traceprism::Tier::kSystem, "legacy", "Perf sheets as text");
    finding.key("sheets").severity(traceprism::Severity::kInfo);
    for (const char* name : {"unified_perf_summary", "gpu_timeline"}) {
      const std::optional<traceprism::Sheet> sheet = ctx.perf_sheet(name);
      ctx.record(std::string(name) + ".rows",
                 sheet ? static_cast<double>(sheet->row_count()) : -1.0);
      if (!sheet) continue;
      std::vector<std::string> columns;
      for (std::size_t c = 0; c < sheet->column_count(); ++c)
        columns.emplace_back(sheet->column_name(c));
      traceprism::Table table(name, columns);
      for (std::size_t r = 0; r < sheet->row_count(); ++r) {
        std::vector<std::string> cells;
        for (std::size_t c = 0; c < sheet->column_count(); ++c)
          cells.emplace_back(sheet->cell(r, c));
        table.row(std::move(cells));
      }
      finding.table(std::move(table));
    }
    finding.emit();
    return traceprism::Status::kOk;
  }
};

TRACEPRISM_ANALYZERS(traceprism::analyzer<SheetReader>(
    "legacy-sheet-reader", "Reads perf_sheet text cells as a 1.4 plugin."));

}  // namespace

TRACEPRISM_PLUGIN("legacy_sheets", "1.0.0");
