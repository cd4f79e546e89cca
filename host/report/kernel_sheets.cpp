#include "report/kernel_sheets.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <unordered_map>

#include "report/numpy_stats.hpp"
#include "report/python_repr.hpp"

namespace traceprism::report {

namespace {

using index::EventKind;
using index::Row;

std::optional<std::string> optional_tuple_repr(const index::EventIndex& index, index::StringId id) {
  if (id == index::kNoString) return std::nullopt;
  return python_tuple_repr(index.strings().view(id));
}

// Builds ParentCpuOp entries once per cpu_op and hands out their table indices.
class ParentOpResolver {
 public:
  ParentOpResolver(const LauncherSheetInputs& in, std::span<const LauncherRow> launchers,
                   std::vector<ParentCpuOp>& out)
      : in_(in), out_(out) {
    for (const LauncherRow& l : launchers) launcher_category_[l.row] = &l.category;
  }

  // The nearest cpu_op at or above `launch` in the call tree, as a table index (-1: none).
  std::int32_t resolve(std::int32_t launch) {
    for (std::int32_t cur = launch; cur >= 0; cur = in_.tree.parent(static_cast<Row>(cur))) {
      if (in_.index.kind(static_cast<Row>(cur)) == EventKind::kCpuOp)
        return index_of(static_cast<Row>(cur));
    }
    return -1;
  }

 private:
  std::int32_t index_of(Row op) {
    auto [it, inserted] = slot_.try_emplace(op, static_cast<std::int32_t>(out_.size()));
    if (inserted) out_.push_back(describe(op));
    return it->second;
  }

  ParentCpuOp describe(Row op) const {
    const index::EventIndex& x = in_.index;
    ParentCpuOp p;
    p.row = op;
    p.name = std::string(x.name(op));
    p.category = category_of(op, p.name);
    if (const index::OpArgs* a = x.op_args(op)) {
      p.input_dims = optional_tuple_repr(x, a->input_dims);
      p.input_strides = optional_tuple_repr(x, a->input_strides);
      p.concrete_inputs = optional_tuple_repr(x, a->concrete_inputs);
    }
    return p;
  }

  // An op instance carries kernel_details (its category is already known); any other cpu_op
  // is categorized without kernels, as the reference sees it.
  std::string category_of(Row op, const std::string& name) const {
    if (auto it = launcher_category_.find(op); it != launcher_category_.end()) return *it->second;
    std::optional<std::string> registry;
    if (in_.registry_category) registry = in_.registry_category(op);
    return categorize_op(name, registry, std::nullopt);
  }

  const LauncherSheetInputs& in_;
  std::vector<ParentCpuOp>& out_;
  std::unordered_map<Row, const std::string*> launcher_category_;
  std::unordered_map<Row, std::int32_t> slot_;
};

// pandas groupby(sort=True, dropna=False) key order: ascending, missing values last.
template <typename T>
int compare_optional(const std::optional<T>& a, const std::optional<T>& b) {
  if (!a || !b) return a ? -1 : (b ? 1 : 0);
  return *a < *b ? -1 : (*b < *a ? 1 : 0);
}

struct SummaryKey {
  std::optional<std::string> category;
  std::optional<std::string> parent_op;
  std::string_view kernel;
  std::optional<std::int64_t> stream;

  bool operator<(const SummaryKey& o) const {
    if (int c = compare_optional(category, o.category)) return c < 0;
    if (int c = compare_optional(parent_op, o.parent_op)) return c < 0;
    if (kernel != o.kernel) return kernel < o.kernel;
    return compare_optional(stream, o.stream) < 0;
  }
};

// The reference's fallback category for kernels whose launch has no cpu_op above it.
std::optional<std::string> launcher_category(std::string_view launcher) {
  std::string lower(launcher);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("cudagraph") != std::string::npos ||
      lower.find("graphlaunch") != std::string::npos)
    return "graph";
  if (lower.empty()) return std::nullopt;
  return "runtime";
}

SummaryKey summary_key(const KernelTable& table, const KernelRow& k) {
  SummaryKey key{std::nullopt, std::nullopt, k.name, k.stream};
  if (const ParentCpuOp* p = table.parent_of(k)) {
    key.category = p->category;
    key.parent_op = p->name;
  } else if (k.launcher) {
    key.category = launcher_category(*k.launcher);
    key.parent_op = std::string(*k.launcher);  // "Parent cpu_op" filled from Launcher
  }
  return key;
}

std::string stream_cell(const std::optional<std::int64_t>& stream, bool as_float) {
  if (!stream) return "";
  return as_float ? float_cell(static_cast<double>(*stream)) : int_cell(*stream);
}

// Percent of a total the reference way: NaN when the total is not positive / zero.
double percent_of(double value, double total, bool require_positive) {
  const bool usable = require_positive ? total > 0 : total != 0;
  return usable ? value / total * 100 : std::numeric_limits<double>::quiet_NaN();
}

std::vector<double> short_durations(const KernelTable& table, double threshold_us) {
  std::vector<double> durs;
  for (const KernelRow& k : table.kernels) {
    if (k.dur_us < threshold_us) durs.push_back(k.dur_us);
  }
  return durs;
}

// numpy.histogram with equal bins: edges from linspace, index from the scaled offset, then
// the +-1 corrections numpy applies near edges; the last bin is closed.
std::vector<std::int64_t> histogram_counts(const std::vector<double>& values,
                                           const std::vector<double>& edges, double first,
                                           double last) {
  const std::size_t bins = edges.size() - 1;
  std::vector<std::int64_t> counts(bins, 0);
  for (double v : values) {
    auto i = static_cast<std::size_t>((v - first) / (last - first) * static_cast<double>(bins));
    if (i == bins) --i;
    if (v < edges[i]) --i;
    if (i != bins - 1 && v >= edges[i + 1]) ++i;
    ++counts[i];
  }
  return counts;
}

struct ShortGroup {
  std::vector<std::string> keys;
  std::vector<double> durs;
  double sum = 0, mean = 0, percent = 0;
};

// The group keys of a short kernel, or nullopt when one of them is missing (dropped rows).
std::optional<std::vector<std::string>> short_kernel_keys(const KernelTable& table,
                                                          const KernelRow& k, bool gpu_only) {
  if (gpu_only) return std::vector<std::string>{std::string(k.name)};
  const ParentCpuOp* p = table.parent_of(k);
  if (!p || !p->input_dims || !p->input_strides || !p->concrete_inputs) return std::nullopt;
  return std::vector<std::string>{p->name, *p->input_dims, *p->input_strides, *p->concrete_inputs,
                                  std::string(k.name)};
}

std::vector<ShortGroup> group_short_kernels(const KernelTable& table, double threshold_us,
                                            bool gpu_only) {
  std::vector<ShortGroup> groups;  // first-appearance order, as groupby(sort=False)
  std::map<std::vector<std::string>, std::size_t> group_of;
  for (const KernelRow& k : table.kernels) {
    if (!(k.dur_us < threshold_us)) continue;
    auto keys = short_kernel_keys(table, k, gpu_only);
    if (!keys) continue;
    auto [it, inserted] = group_of.try_emplace(*keys, groups.size());
    if (inserted) groups.push_back({std::move(*keys), {}, 0, 0, 0});
    groups[it->second].durs.push_back(k.dur_us);
  }
  return groups;
}

}  // namespace

KernelTable build_kernel_table(const LauncherSheetInputs& in,
                               std::span<const LauncherRow> launchers) {
  KernelTable table;
  ParentOpResolver parents(in, launchers, table.parent_ops);
  std::vector<Row> rows(in.index.rows_of_kind(EventKind::kKernel).begin(),
                        in.index.rows_of_kind(EventKind::kKernel).end());
  std::sort(rows.begin(), rows.end());
  table.kernels.reserve(rows.size());
  for (Row k : rows) {
    KernelRow r;
    r.row = k;
    r.name = in.index.name(k);
    const KernelDetail detail = kernel_detail(in.index, k);
    r.dur_us = detail.dur_us;
    r.stream = detail.stream;
    table.any_stream_missing |= !r.stream;
    if (const std::int32_t launch = in.links.launcher(k); launch >= 0) {
      r.launcher = in.index.name(static_cast<Row>(launch));
      r.parent_op = parents.resolve(launch);
      table.any_parent_op |= r.parent_op >= 0;
    }
    table.kernels.push_back(r);
  }
  return table;
}

double timeline_total_us(const model::GpuTimeline& timeline) {
  return timeline.total_us / 1e3 * 1e3;
}

CsvSheet kernel_summary_sheet(const KernelTable& table, double total_time_us) {
  if (table.kernels.empty()) return {};
  std::map<SummaryKey, std::vector<double>> groups;
  std::vector<double> all_durs;
  all_durs.reserve(table.kernels.size());
  for (const KernelRow& k : table.kernels) {
    SummaryKey key = summary_key(table, k);
    if (!table.any_parent_op) key.parent_op.reset();  // no Parent cpu_op column at all
    groups[key].push_back(k.dur_us);
    all_durs.push_back(k.dur_us);
  }
  const double total_kernels_us = numpy_sum(all_durs);
  std::vector<const std::pair<const SummaryKey, std::vector<double>>*> entries;
  std::vector<double> sums;
  for (const auto& entry : groups) {
    entries.push_back(&entry);
    sums.push_back(pandas_sum(entry.second));
  }
  // pandas' single-key sort: numpy's quicksort, so ties may leave group-key order (spec §12).
  const std::vector<std::size_t> order = pandas_descending_order(sums);

  CsvSheet sheet;
  sheet.columns.push_back("Parent op category");
  if (table.any_parent_op) sheet.columns.push_back("Parent cpu_op");
  for (const char* c :
       {"Kernel name", "Kernel stream", "Kernel duration (µs)_sum", "Kernel duration (µs)_count",
        "Kernel duration (µs)_mean", "Kernel duration (µs)_min", "Kernel duration (µs)_max",
        "Percent of kernels time (%)", "Percent of total time (%)"})
    sheet.columns.push_back(c);
  for (std::size_t i : order) {
    const auto& [key, durs] = *entries[i];
    std::vector<std::string> cells = {text_cell(key.category)};
    if (table.any_parent_op) cells.push_back(text_cell(key.parent_op));
    cells.push_back(std::string(key.kernel));
    cells.push_back(stream_cell(key.stream, table.any_stream_missing));
    cells.push_back(float_cell(sums[i]));
    cells.push_back(int_cell(static_cast<std::int64_t>(durs.size())));
    cells.push_back(float_cell(pandas_mean(durs)));
    cells.push_back(float_cell(numpy_min(durs)));
    cells.push_back(float_cell(numpy_max(durs)));
    cells.push_back(float_cell(percent_of(sums[i], total_kernels_us, /*require_positive=*/true)));
    cells.push_back(float_cell(percent_of(sums[i], total_time_us, /*require_positive=*/false)));
    sheet.rows.push_back(std::move(cells));
  }
  return sheet;
}

CsvSheet short_kernel_histogram_sheet(const KernelTable& table, const KernelSheetOptions& options) {
  CsvSheet sheet{{"bin_start", "bin_end", "count"}, {}};
  const std::vector<double> durs = short_durations(table, options.short_kernel_threshold_us);
  if (durs.empty() || options.short_kernel_histogram_bins == 0) return sheet;
  double first = numpy_min(durs), last = numpy_max(durs);
  if (first == last) {
    first -= 0.5;
    last += 0.5;
  }
  const std::size_t bins = options.short_kernel_histogram_bins;
  // np.linspace(first, last, bins + 1): i * step + first, the last edge exactly `last`.
  const double step = (last - first) / static_cast<double>(bins);
  std::vector<double> edges(bins + 1);
  for (std::size_t i = 0; i < bins; ++i) edges[i] = static_cast<double>(i) * step + first;
  edges[bins] = last;
  const std::vector<std::int64_t> counts = histogram_counts(durs, edges, first, last);
  for (std::size_t i = 0; i < bins; ++i)
    sheet.rows.push_back({float_cell(edges[i]), float_cell(edges[i + 1]), int_cell(counts[i])});
  return sheet;
}

CsvSheet short_kernels_summary_sheet(const KernelTable& table, double total_time_us,
                                     const KernelSheetOptions& options, bool gpu_only) {
  const double threshold = options.short_kernel_threshold_us;
  if (short_durations(table, threshold).empty()) return {};  // pandas writes a lone "\n"
  std::vector<ShortGroup> groups = group_short_kernels(table, threshold, gpu_only);
  if (groups.empty()) {
    // Every short kernel lacked a key: pandas writes the two header levels of the empty,
    // un-flattened aggregate (no golden covers this case).
    const std::string d = "Kernel duration (µs)";
    return {{d, d, d}, {{"sum", "count", "mean"}}};
  }
  for (ShortGroup& g : groups) {
    g.sum = pandas_sum(g.durs);
    g.mean = pandas_mean(g.durs);
    g.percent = g.sum / total_time_us * 100;
  }
  // Sum descending, then count, mean and percent ascending (a stable multi-key sort).
  std::stable_sort(groups.begin(), groups.end(), [](const ShortGroup& a, const ShortGroup& b) {
    if (a.sum != b.sum) return a.sum > b.sum;
    if (a.durs.size() != b.durs.size()) return a.durs.size() < b.durs.size();
    if (a.mean != b.mean) return a.mean < b.mean;
    return a.percent < b.percent;
  });
  if (options.topk_short_kernels && groups.size() > *options.topk_short_kernels)
    groups.resize(*options.topk_short_kernels);

  CsvSheet sheet;
  if (gpu_only)
    sheet.columns = {"Kernel name"};
  else
    sheet.columns = {"Parent cpu_op", "Input dims", "Input strides", "Concrete Inputs",
                     "Kernel name"};
  for (const char* c :
       {"Short Kernel duration (µs) sum", "Short Kernel count", "Short Kernel duration (µs) mean",
        "Short Kernel duration (µs) percent of total time"})
    sheet.columns.push_back(c);
  for (const ShortGroup& g : groups) {
    std::vector<std::string> cells = g.keys;
    cells.push_back(float_cell(g.sum));
    cells.push_back(int_cell(static_cast<std::int64_t>(g.durs.size())));
    cells.push_back(float_cell(g.mean));
    cells.push_back(float_cell(g.percent));
    sheet.rows.push_back(std::move(cells));
  }
  return sheet;
}

}  // namespace traceprism::report
