#include "report/ops_sheets.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "index/reference_time.hpp"
#include "report/numpy_stats.hpp"
#include "report/python_repr.hpp"

namespace traceprism::report {

namespace {

const std::string kUnknown = "Unknown";

// Python str() of interned shape-arg texts, rendered once per distinct text.
class ArgReprCache {
 public:
  explicit ArgReprCache(const index::StringPool& strings) : strings_(strings) {}
  const std::string& tuple_repr(index::StringId id) {
    auto [it, inserted] = reprs_.try_emplace(id);
    if (inserted)
      it->second = id == index::kNoString ? "None" : python_tuple_repr(strings_.view(id));
    return it->second;
  }

 private:
  const index::StringPool& strings_;
  std::unordered_map<index::StringId, std::string> reprs_;
};

// The registry is keyed by op name, so one look-up per distinct name is enough.
class CategoryCache {
 public:
  CategoryCache(const index::EventIndex& index, const RegistryCategory& registry)
      : index_(index), registry_(registry) {}
  const std::optional<std::string>& registry_category(index::Row row) {
    auto [it, inserted] = by_name_.try_emplace(index_.name_id(row));
    if (inserted && registry_) it->second = registry_(row);
    return it->second;
  }

 private:
  const index::EventIndex& index_;
  const RegistryCategory& registry_;
  std::unordered_map<index::StringId, std::optional<std::string>> by_name_;
};

KernelDetails sorted_kernel_details(const index::EventIndex& index,
                                    std::vector<index::Row> kernels) {
  std::stable_sort(kernels.begin(), kernels.end(),
                   [&](index::Row a, index::Row b) { return index.ts_us(a) < index.ts_us(b); });
  KernelDetails details;
  details.reserve(kernels.size());
  for (index::Row k : kernels) details.push_back(kernel_detail(index, k));
  return details;
}

std::optional<std::string_view> first_kernel_name(const KernelDetails& details) {
  if (details.empty()) return std::nullopt;
  return details.front().name;
}

// Percentage (%) = value / numpy sum of the column * 100; Cumulative = running sum.
void append_percentages(CsvSheet& sheet, const std::vector<double>& values) {
  const double total = numpy_sum(values);
  double cumulative = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double percent = values[i] / total * 100;
    cumulative += percent;
    sheet.rows[i].push_back(float_cell(percent));
    sheet.rows[i].push_back(float_cell(cumulative));
  }
  sheet.columns.push_back("Percentage (%)");
  sheet.columns.push_back("Cumulative Percentage (%)");
}

// Direct and subtree kernel times of the launcher rows of one group, in group order.
struct KernelTimes {
  std::vector<double> direct;
  std::vector<double> subtree;
  void add(const LauncherRow& row) {
    direct.push_back(row.direct_kernel_time_us);
    subtree.push_back(row.subtree_kernel_time_us);
  }
};

// Groups ordered by their sum, descending, the way pandas' single-key sort_values orders them
// (ties keep group-key order up to 16 groups, spec §12).
std::vector<std::size_t> order_by_sum_desc(const std::vector<double>& sums) {
  return pandas_descending_order(sums);
}

// One ops_unique_args group: the first row (grouping values) and the group's members.
struct UniqueArgsGroup {
  const LauncherRow* first = nullptr;
  KernelTimes times;
  std::vector<const KernelDetails*> kernel_lists;
  std::size_t count = 0;
  double direct_sum = 0;
};

std::string unique_args_key(const LauncherRow& r) {
  constexpr char kSeparator = '\x1f';
  std::string key;
  for (const std::string* part :
       {&r.name, &r.category, &r.names.process_name, &r.names.process_label, &r.names.thread_name,
        &r.input_dims, &r.input_type, &r.input_strides, &r.concrete_inputs}) {
    key += *part;
    key += kSeparator;
  }
  return key;
}

// A grouping column's cell: the value's str(), except None which pandas writes as empty.
std::string arg_cell(const std::string& repr) {
  return repr == "None" ? std::string() : repr;
}

void append_stat_cells(std::vector<std::string>& cells, const KernelTimes& t) {
  const std::span<const double> direct = t.direct, subtree = t.subtree;
  for (auto stat : {pandas_mean, pandas_median, pandas_std, numpy_min, numpy_max, pandas_sum}) {
    cells.push_back(float_cell(stat(direct)));
    cells.push_back(float_cell(stat(subtree)));
  }
}

std::vector<std::string> unique_args_cells(const UniqueArgsGroup& g) {
  const LauncherRow& r = *g.first;
  std::vector<std::string> cells = {r.name,
                                    r.category,
                                    r.names.process_name,
                                    r.names.process_label,
                                    r.names.thread_name,
                                    arg_cell(r.input_dims),
                                    arg_cell(r.input_type),
                                    arg_cell(r.input_strides),
                                    arg_cell(r.concrete_inputs),
                                    int_cell(static_cast<std::int64_t>(g.count))};
  append_stat_cells(cells, g.times);
  cells.push_back(int_cell(r.row));
  const auto summary = summarize_kernel_details(g.kernel_lists);
  cells.push_back(kernel_summary_repr(summary));
  cells.push_back(trunc_kernel_details_repr(summary));
  return cells;
}

}  // namespace

HostNames host_names(const index::EventIndex& index, index::Row row) {
  const auto& meta = index.metadata();
  HostNames names{kUnknown, kUnknown, kUnknown};
  if (auto p = meta.processes.find(index.pid(row)); p != meta.processes.end()) {
    if (!p->second.name.empty()) names.process_name = p->second.name;
    if (!p->second.labels.empty()) names.process_label = p->second.labels;
  }
  if (auto t = meta.thread_names.find({index.pid(row), index.tid(row)});
      t != meta.thread_names.end())
    names.thread_name = t->second;
  return names;
}

double raw_dur_us(const index::EventIndex& index, index::Row row) {
  // The index keeps exact nanoseconds; dividing once reproduces the double Python parses from
  // the 3-decimal text. (Durations written with sub-ns digits are rare and not kept raw.)
  return index::reference_us(index.dur_ns(row));
}

KernelDetail kernel_detail(const index::EventIndex& index, index::Row gpu_row) {
  KernelDetail d;
  d.name = std::string(index.name(gpu_row));
  d.dur_us = raw_dur_us(index, gpu_row);
  if (const index::GpuArgs* args = index.gpu_args(gpu_row); args && args->stream >= 0)
    d.stream = args->stream;
  return d;
}

std::vector<LauncherRow> build_launcher_rows(const LauncherSheetInputs& in) {
  const index::EventIndex& index = in.index;
  ArgReprCache args(index.strings());
  CategoryCache categories(index, in.registry_category);
  std::map<std::pair<index::IdRef, index::IdRef>, HostNames> names_by_thread;
  std::vector<LauncherRow> rows;
  rows.reserve(in.launchers.all().size());
  for (const model::KernelLauncher& l : in.launchers.all()) {
    LauncherRow r;
    r.row = l.row;
    r.name = std::string(index.name(l.row));
    r.direct_kernel_time_us = l.direct_busy_us;
    r.subtree_kernel_time_us = l.subtree_busy_us;
    r.kernel_details = sorted_kernel_details(index, l.kernels);
    r.category = categorize_op(r.name, categories.registry_category(l.row),
                               first_kernel_name(r.kernel_details));
    const index::OpArgs* a = index.op_args(l.row);
    r.input_dims = args.tuple_repr(a ? a->input_dims : index::kNoString);
    r.input_type = args.tuple_repr(a ? a->input_types : index::kNoString);
    r.input_strides = args.tuple_repr(a ? a->input_strides : index::kNoString);
    r.concrete_inputs = args.tuple_repr(a ? a->concrete_inputs : index::kNoString);
    auto [it, inserted] = names_by_thread.try_emplace({index.pid(l.row), index.tid(l.row)});
    if (inserted) it->second = host_names(index, l.row);
    r.names = it->second;
    rows.push_back(std::move(r));
  }
  return rows;
}

bool is_gpu_only_trace(const index::EventIndex& index) {
  return index.rows_of_kind(index::EventKind::kCpuOp).empty();
}

CsvSheet ops_summary_by_category_sheet(std::span<const LauncherRow> rows) {
  std::map<std::string, KernelTimes> groups;  // sorted keys, as groupby(sort=True)
  for (const LauncherRow& r : rows) groups[r.category].add(r);
  std::vector<const std::string*> keys;
  std::vector<double> sums;
  std::vector<std::size_t> counts;
  for (const auto& [category, times] : groups) {
    keys.push_back(&category);
    sums.push_back(pandas_sum(times.direct));
    counts.push_back(times.direct.size());
  }
  CsvSheet sheet{{"op category", "Count", "total_direct_kernel_time_ms"}, {}};
  std::vector<double> ms;
  for (std::size_t i : order_by_sum_desc(sums)) {
    ms.push_back(sums[i] / 1000);
    sheet.rows.push_back(
        {*keys[i], int_cell(static_cast<std::int64_t>(counts[i])), float_cell(ms.back())});
  }
  append_percentages(sheet, ms);
  return sheet;
}

CsvSheet ops_summary_sheet(std::span<const LauncherRow> rows) {
  struct NameGroup {
    KernelTimes times;
    std::set<std::string> categories;  // sorted, as the reference's sorted(set(...))
  };
  std::map<std::string, NameGroup> groups;
  for (const LauncherRow& r : rows) {
    NameGroup& g = groups[r.name];
    g.times.add(r);
    g.categories.insert(r.category);
  }
  std::vector<const std::pair<const std::string, NameGroup>*> entries;
  std::vector<double> direct_sums;
  for (const auto& entry : groups) {
    entries.push_back(&entry);
    direct_sums.push_back(pandas_sum(entry.second.times.direct));
  }
  CsvSheet sheet{
      {"name", "total_direct_kernel_time_sum", "total_subtree_kernel_time_sum",
       "total_direct_kernel_time_ms", "total_subtree_kernel_time_ms", "Count", "Categories"},
      {}};
  std::vector<double> direct_ms;
  for (std::size_t i : order_by_sum_desc(direct_sums)) {
    const auto& [name, g] = *entries[i];
    const double subtree_sum = pandas_sum(g.times.subtree);
    direct_ms.push_back(direct_sums[i] / 1000);
    sheet.rows.push_back({name, float_cell(direct_sums[i]), float_cell(subtree_sum),
                          float_cell(direct_ms.back()), float_cell(subtree_sum / 1000),
                          int_cell(static_cast<std::int64_t>(g.times.direct.size())),
                          python_string_list_repr({g.categories.begin(), g.categories.end()})});
  }
  append_percentages(sheet, direct_ms);
  return sheet;
}

CsvSheet ops_unique_args_sheet(std::span<const LauncherRow> rows) {
  std::vector<UniqueArgsGroup> groups;  // first-appearance order, as groupby(sort=False)
  std::unordered_map<std::string, std::size_t> group_of_key;
  for (const LauncherRow& r : rows) {
    auto [it, inserted] = group_of_key.try_emplace(unique_args_key(r), groups.size());
    if (inserted) groups.push_back({&r, {}, {}, 0, 0});
    UniqueArgsGroup& g = groups[it->second];
    g.times.add(r);
    g.kernel_lists.push_back(&r.kernel_details);
    ++g.count;
  }
  for (UniqueArgsGroup& g : groups) g.direct_sum = pandas_sum(g.times.direct);
  // Sort by direct sum descending, then ex_UID ascending: fully determined.
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    if (a.direct_sum != b.direct_sum) return a.direct_sum > b.direct_sum;
    return a.first->row < b.first->row;
  });
  CsvSheet sheet{{"name",
                  "op category",
                  "process_name",
                  "process_label",
                  "thread_name",
                  "Input Dims",
                  "Input type",
                  "Input Strides",
                  "Concrete Inputs",
                  "operation_count",
                  "total_direct_kernel_time_mean",
                  "total_subtree_kernel_time_mean",
                  "total_direct_kernel_time_median",
                  "total_subtree_kernel_time_median",
                  "total_direct_kernel_time_std",
                  "total_subtree_kernel_time_std",
                  "total_direct_kernel_time_min",
                  "total_subtree_kernel_time_min",
                  "total_direct_kernel_time_max",
                  "total_subtree_kernel_time_max",
                  "total_direct_kernel_time_sum",
                  "total_subtree_kernel_time_sum",
                  "ex_UID",
                  "kernel_details_summary",
                  "trunc_kernel_details"},
                 {}};
  std::vector<double> direct_sums;
  for (const UniqueArgsGroup& g : groups) {
    sheet.rows.push_back(unique_args_cells(g));
    direct_sums.push_back(g.direct_sum);
  }
  append_percentages(sheet, direct_sums);
  return sheet;
}

}  // namespace traceprism::report
