#include "perf_report/kernel_sheets.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <unordered_map>

#include "index/sort_by_row.hpp"
#include "perf_report/numpy_stats.hpp"
#include "text/python_repr.hpp"

namespace traceprism::perf_report {

namespace {

using index::EventKind;
using index::Row;

// Categories of the kernels' parent ops: an op instance's comes with the launcher rows; any
// other cpu_op is categorized without kernels, as the reference sees it (once per name).
class ParentCategories {
 public:
  ParentCategories(const LauncherSheetInputs& in, const LauncherCategories& launchers)
      : in_(in), launchers_(launchers) {}

  std::string_view of(Row op) {
    if (auto launcher = launchers_.find(op)) return *launcher;
    auto [it, fresh] = by_name_.try_emplace(in_.index.name_id(op));
    if (fresh) {
      std::optional<std::string> registry;
      if (in_.registry_category) registry = in_.registry_category(op);
      it->second =
          text::intern_report_text(categorize_op(in_.index.name(op), registry, std::nullopt));
    }
    return it->second;
  }

 private:
  const LauncherSheetInputs& in_;
  const LauncherCategories& launchers_;
  std::unordered_map<index::StringId, std::string_view> by_name_;
};

// The nearest cpu_op at or above `launch` in the call tree, or -1.
std::int32_t parent_cpu_op(const LauncherSheetInputs& in, std::int32_t launch) {
  for (std::int32_t cur = launch; cur >= 0; cur = in.tree.parent(static_cast<Row>(cur)))
    if (in.index.kind(static_cast<Row>(cur)) == EventKind::kCpuOp) return cur;
  return -1;
}

// pandas groupby(sort=True, dropna=False) key order: ascending, missing values last.
template <typename T>
int compare_optional(const std::optional<T>& a, const std::optional<T>& b) {
  if (!a || !b) return a ? -1 : (b ? 1 : 0);
  return *a < *b ? -1 : (*b < *a ? 1 : 0);
}

// A kernel_summary group. The texts are views of the index's string pool (names) or interned
// (categories), so equal texts share one address: the hash look-up compares addresses, the
// sheet's order compares texts.
struct SummaryKey {
  std::optional<std::string_view> category;
  std::optional<std::string_view> parent_op;
  std::string_view kernel;
  std::optional<std::int64_t> stream;

  bool operator<(const SummaryKey& o) const {
    if (int c = compare_optional(category, o.category)) return c < 0;
    if (int c = compare_optional(parent_op, o.parent_op)) return c < 0;
    if (kernel != o.kernel) return kernel < o.kernel;
    return compare_optional(stream, o.stream) < 0;
  }
  bool operator==(const SummaryKey& o) const {
    auto same = [](const auto& a, const auto& b) {
      return a.has_value() == b.has_value() && (!a || a->data() == b->data());
    };
    return same(category, o.category) && same(parent_op, o.parent_op) &&
           kernel.data() == o.kernel.data() && stream == o.stream;
  }
};

struct SummaryKeyHash {
  std::size_t operator()(const SummaryKey& k) const {
    auto address = [](const std::optional<std::string_view>& v) {
      return v ? std::hash<const char*>{}(v->data()) : std::size_t{1};
    };
    std::size_t h = address(k.category);
    h = h * 1000003 ^ address(k.parent_op);
    h = h * 1000003 ^ std::hash<const char*>{}(k.kernel.data());
    return h * 1000003 ^ (k.stream ? std::hash<std::int64_t>{}(*k.stream) : 7);
  }
};

// The reference's fallback category for kernels whose launch has no cpu_op above it.
// Interned like the op categories, so that "graph" keys one group whatever produced it.
std::optional<std::string_view> launcher_category(std::string_view launcher) {
  static const std::string_view kGraph = text::intern_report_text("graph");
  static const std::string_view kRuntime = text::intern_report_text("runtime");
  std::string lower(launcher);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("cudagraph") != std::string::npos ||
      lower.find("graphlaunch") != std::string::npos)
    return kGraph;
  if (lower.empty()) return std::nullopt;
  return kRuntime;
}

SummaryKey summary_key(const KernelTable& table, const KernelRow& k) {
  const index::EventIndex& index = *table.index;
  SummaryKey key{std::nullopt, std::nullopt, index.name(k.row), table.stream(k)};
  if (k.parent_op >= 0) {
    key.category = table.categories[k.parent_category];
    key.parent_op = index.name(static_cast<Row>(k.parent_op));
  } else if (const std::int32_t launch = table.launcher(k); launch >= 0) {
    const std::string_view launcher = index.name(static_cast<Row>(launch));
    key.category = launcher_category(launcher);
    key.parent_op = launcher;  // "Parent cpu_op" filled from Launcher
  }
  return key;
}

Cell stream_cell(const std::optional<std::int64_t>& stream, bool as_float) {
  if (!stream) return {};
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
    if (const double dur = table.dur_us(k); dur < threshold_us) durs.push_back(dur);
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
  std::vector<std::string_view> keys;
  std::vector<double> durs;
  double sum = 0, mean = 0, percent = 0;
};

// The group keys of a short kernel (parent op, its shape args, kernel name; the kernel name
// alone for GPU-only traces), or nothing when one of them is missing (dropped rows). Views of
// the pool or interned reprs: equal texts, equal addresses.
bool short_kernel_keys(const KernelTable& table, text::ArgReprCache& reprs, const KernelRow& k,
                       bool gpu_only, std::vector<std::string_view>& keys) {
  const index::EventIndex& index = *table.index;
  keys.clear();
  if (!gpu_only) {
    if (k.parent_op < 0) return false;
    const Row op = static_cast<Row>(k.parent_op);
    const std::optional<index::OpArgs> a = index.op_args(op);
    if (!a || a->input_dims == index::kNoString || a->input_strides == index::kNoString ||
        a->concrete_inputs == index::kNoString)
      return false;
    keys = {index.name(op), reprs.tuple_repr(a->input_dims), reprs.tuple_repr(a->input_strides),
            reprs.tuple_repr(a->concrete_inputs)};
  }
  keys.push_back(index.name(k.row));
  return true;
}

struct ShortKeyHash {
  std::size_t operator()(const std::vector<const char*>& key) const {
    std::size_t h = 0;
    for (const char* p : key) h = h * 1000003 ^ std::hash<const char*>{}(p);
    return h;
  }
};

std::vector<ShortGroup> group_short_kernels(const KernelTable& table, double threshold_us,
                                            bool gpu_only) {
  std::vector<ShortGroup> groups;  // first-appearance order, as groupby(sort=False)
  std::unordered_map<std::vector<const char*>, std::size_t, ShortKeyHash> group_of;
  text::ArgReprCache reprs(table.index->strings());
  std::vector<std::string_view> keys;
  std::vector<const char*> addresses;
  for (const KernelRow& k : table.kernels) {
    const double dur = table.dur_us(k);
    if (!(dur < threshold_us)) continue;
    if (!short_kernel_keys(table, reprs, k, gpu_only, keys)) continue;
    addresses.clear();
    for (std::string_view key : keys) addresses.push_back(key.data());
    auto [it, inserted] = group_of.try_emplace(addresses, groups.size());
    if (inserted) groups.push_back({keys, {}, 0, 0, 0});
    groups[it->second].durs.push_back(dur);
  }
  return groups;
}

}  // namespace

void LauncherCategories::add(Row launcher, std::string_view category) {
  // Few distinct categories: a linear search by address (the texts are interned).
  auto it = std::find_if(categories_.begin(), categories_.end(),
                         [&](std::string_view c) { return c.data() == category.data(); });
  if (it == categories_.end()) it = categories_.insert(categories_.end(), category);
  rows_.emplace_back(launcher, static_cast<std::uint32_t>(it - categories_.begin()));
}

void LauncherCategories::finish() {
  index::sort_by_row(rows_, [](const auto& entry) { return entry.first; });
}

std::optional<std::string_view> LauncherCategories::find(Row op) const {
  auto it = std::lower_bound(rows_.begin(), rows_.end(), op,
                             [](const auto& entry, Row row) { return entry.first < row; });
  if (it == rows_.end() || it->first != op) return std::nullopt;
  return categories_[it->second];
}

double KernelTable::dur_us(const KernelRow& k) const {
  return raw_dur_us(*index, k.row);
}

std::optional<std::int64_t> KernelTable::stream(const KernelRow& k) const {
  return args_stream(*index, k.row);
}

KernelTable build_kernel_table(const LauncherSheetInputs& in,
                               std::span<const LauncherRow> launchers) {
  LauncherCategories categories;
  for (const LauncherRow& l : launchers) categories.add(l.row, l.category);
  categories.finish();
  return build_kernel_table(in, categories);
}

KernelTable build_kernel_table(const LauncherSheetInputs& in, const LauncherCategories& launchers) {
  KernelTable table;
  table.index = &in.index;
  table.links = &in.links;
  ParentCategories categories(in, launchers);
  const auto kernel_rows = in.index.rows_of_kind(EventKind::kKernel);
  table.kernels.reserve(kernel_rows.size());
  for (Row k : kernel_rows) {
    KernelRow r;
    r.row = k;
    table.any_stream_missing |= !table.stream(r);
    if (const std::int32_t launch = in.links.launcher(k); launch >= 0) {
      r.parent_op = parent_cpu_op(in, launch);
      if (r.parent_op >= 0) {
        const std::string_view category = categories.of(static_cast<Row>(r.parent_op));
        auto it = std::find_if(table.categories.begin(), table.categories.end(),
                               [&](std::string_view c) { return c.data() == category.data(); });
        if (it == table.categories.end()) it = table.categories.insert(it, category);
        r.parent_category = static_cast<std::uint32_t>(it - table.categories.begin());
        table.any_parent_op = true;
      }
    }
    table.kernels.push_back(r);
  }
  std::sort(table.kernels.begin(), table.kernels.end(),
            [](const KernelRow& a, const KernelRow& b) { return a.row < b.row; });
  return table;
}

std::vector<PerfSheet> kernel_sheets_of(const LauncherSheetInputs& in,
                                        const LauncherCategories& launchers) {
  const KernelSheetOptions& options = in.kernel_options;
  std::vector<PerfSheet> sheets;
  if (!options.kernel_summary && !options.short_kernel_study) return sheets;
  const KernelTable table = build_kernel_table(in, launchers);
  const double total_us = timeline_total_us(in.timeline);
  if (options.kernel_summary && !table.kernels.empty())
    sheets.push_back({"kernel_summary", kernel_summary_sheet(table, total_us)});
  if (options.short_kernel_study) {
    const bool gpu_only = is_gpu_only_trace(in.index);
    sheets.push_back({"short_kernel_histogram", short_kernel_histogram_sheet(table, options)});
    sheets.push_back(
        {"short_kernels_summary", short_kernels_summary_sheet(table, total_us, options, gpu_only)});
  }
  return sheets;
}

double timeline_total_us(const model::GpuTimeline& timeline) {
  return timeline.total_us / 1e3 * 1e3;
}

SheetTable kernel_summary_sheet(const KernelTable& table, double total_time_us) {
  if (table.kernels.empty()) return {};
  double total_kernels_us = 0;
  {
    std::vector<double> all_durs;  // freed before the groups fill up
    all_durs.reserve(table.kernels.size());
    for (const KernelRow& k : table.kernels) all_durs.push_back(table.dur_us(k));
    total_kernels_us = numpy_sum(all_durs);
  }
  // Groups found by address, then put in key order (groupby(sort=True)) by text.
  std::vector<std::pair<SummaryKey, std::vector<double>>> groups;
  std::unordered_map<SummaryKey, std::size_t, SummaryKeyHash> slot;
  for (const KernelRow& k : table.kernels) {
    SummaryKey key = summary_key(table, k);
    if (!table.any_parent_op) key.parent_op.reset();  // no Parent cpu_op column at all
    auto [it, fresh] = slot.try_emplace(key, groups.size());
    if (fresh) groups.emplace_back(key, std::vector<double>{});
    groups[it->second].second.push_back(table.dur_us(k));
  }
  std::sort(groups.begin(), groups.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const std::pair<SummaryKey, std::vector<double>>*> entries;
  std::vector<double> sums;
  for (const auto& entry : groups) {
    entries.push_back(&entry);
    sums.push_back(pandas_sum(entry.second));
  }
  // pandas' single-key sort: numpy's quicksort, so ties may leave group-key order (spec §12).
  const std::vector<std::size_t> order = pandas_descending_order(sums);

  SheetTable sheet;
  sheet.columns.push_back("Parent op category");
  if (table.any_parent_op) sheet.columns.push_back("Parent cpu_op");
  for (const char* c :
       {"Kernel name", "Kernel stream", "Kernel duration (µs)_sum", "Kernel duration (µs)_count",
        "Kernel duration (µs)_mean", "Kernel duration (µs)_min", "Kernel duration (µs)_max",
        "Percent of kernels time (%)", "Percent of total time (%)"})
    sheet.columns.push_back(c);
  for (std::size_t i : order) {
    const auto& [key, durs] = *entries[i];
    std::vector<Cell> cells = {std::string(key.category.value_or(""))};
    if (table.any_parent_op) cells.push_back(std::string(key.parent_op.value_or("")));
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

SheetTable short_kernel_histogram_sheet(const KernelTable& table,
                                        const KernelSheetOptions& options) {
  SheetTable sheet{{"bin_start", "bin_end", "count"}, {}};
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

SheetTable short_kernels_summary_sheet(const KernelTable& table, double total_time_us,
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

  SheetTable sheet;
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
    std::vector<Cell> cells(g.keys.begin(), g.keys.end());
    cells.push_back(float_cell(g.sum));
    cells.push_back(int_cell(static_cast<std::int64_t>(g.durs.size())));
    cells.push_back(float_cell(g.mean));
    cells.push_back(float_cell(g.percent));
    sheet.rows.push_back(std::move(cells));
  }
  return sheet;
}

}  // namespace traceprism::perf_report
