#include "perf_report/ops_sheets.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include <traceprism/reference_time.hpp>
#include "perf_report/numpy_stats.hpp"
#include "text/python_repr.hpp"

namespace traceprism::perf_report {

namespace {

constexpr std::string_view kUnknown = "Unknown";

// Percentage (%) = value / numpy sum of the column * 100; Cumulative = running sum.
void append_percentages(SheetTable& sheet, const std::vector<double>& values) {
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
};

// The rows' (direct, subtree) times, each once; groups keep row numbers into them.
using RowTimes = std::vector<std::pair<double, double>>;
using Members = std::vector<std::uint32_t>;

KernelTimes times_of(const RowTimes& times, const Members& members) {
  KernelTimes t;
  t.direct.reserve(members.size());
  t.subtree.reserve(members.size());
  for (std::uint32_t i : members) {
    t.direct.push_back(times[i].first);
    t.subtree.push_back(times[i].second);
  }
  return t;
}

// Groups ordered by their sum, descending, the way pandas' single-key sort_values orders them
// (ties keep group-key order up to 16 groups, spec §12).
std::vector<std::size_t> order_by_sum_desc(const std::vector<double>& sums) {
  return pandas_descending_order(sums);
}

// The ops_unique_args grouping key: the addresses of the ten grouping texts (name, category,
// parent module, process/thread names, shape args), equal exactly when the texts are
// (LauncherRow), and the number of direct kernels with --group_by_num_kernels (else 0).
struct UniqueArgsKey {
  std::array<const char*, 10> texts;
  std::size_t num_kernels = 0;
  bool operator==(const UniqueArgsKey&) const = default;
};
struct UniqueArgsKeyHash {
  std::size_t operator()(const UniqueArgsKey& k) const {
    std::size_t h = k.num_kernels;
    for (const char* p : k.texts) h = h * 1000003 ^ std::hash<const char*>{}(p);
    return h;
  }
};

UniqueArgsKey unique_args_key(const LauncherRow& r, bool group_by_num_kernels) {
  return {{r.name.data(), r.category.data(), r.parent_module.data(), r.names.process_name.data(),
           r.names.process_label.data(), r.names.thread_name.data(), r.input_dims.data(),
           r.input_type.data(), r.input_strides.data(), r.concrete_inputs.data()},
          group_by_num_kernels ? r.kernel_details.size() : 0};
}

// A (text, parent module) grouping key by the texts' addresses.
using TextPair = std::pair<const char*, const char*>;
struct TextPairHash {
  std::size_t operator()(const TextPair& p) const {
    return std::hash<const char*>{}(p.first) * 1000003 ^ std::hash<const char*>{}(p.second);
  }
};

// One ops_unique_args group: the first row (grouping values) and the group's columns.
struct UniqueArgsGroup {
  LauncherRow first;            // without its kernel list
  std::size_t num_kernels = 0;  // the first row's direct kernels
  Members members;
  KernelSummaryBuilder kernels;
};

// A grouping column's cell: the value's str(), except None which pandas writes as empty.
Cell arg_cell(std::string_view repr) {
  return repr == "None" ? Cell() : Cell(std::string(repr));
}

void append_stat_cells(std::vector<Cell>& cells, const KernelTimes& t) {
  const std::span<const double> direct = t.direct, subtree = t.subtree;
  for (auto stat : {pandas_mean, pandas_median, pandas_std, numpy_min, numpy_max, pandas_sum}) {
    cells.push_back(float_cell(stat(direct)));
    cells.push_back(float_cell(stat(subtree)));
  }
}

std::vector<Cell> unique_args_cells(const UniqueArgsGroup& g, const KernelTimes& times,
                                    OpsSheetsGrouping grouping) {
  const LauncherRow& r = g.first;
  std::vector<Cell> cells = {std::string(r.name), std::string(r.category)};
  if (grouping.parent_module) cells.emplace_back(std::string(r.parent_module));
  for (std::string_view name : {r.names.process_name, r.names.process_label, r.names.thread_name})
    cells.emplace_back(std::string(name));
  for (std::string_view arg : {r.input_dims, r.input_type, r.input_strides, r.concrete_inputs})
    cells.push_back(arg_cell(arg));
  if (grouping.num_kernels) cells.push_back(int_cell(static_cast<std::int64_t>(g.num_kernels)));
  cells.push_back(int_cell(static_cast<std::int64_t>(g.members.size())));
  append_stat_cells(cells, times);
  cells.push_back(int_cell(r.row));
  if (grouping.parent_module) cells.emplace_back(std::string(r.call_stack));
  const auto summary = g.kernels.finish();
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

const HostNames& HostNamesCache::of(index::Row row) {
  const std::pair thread{index_.pid(row), index_.tid(row)};
  if (last_ && thread == last_thread_) return *last_;
  auto [it, fresh] = by_thread_.try_emplace(thread);
  if (fresh) {
    const HostNames names = host_names(index_, row);
    it->second = {text::intern_report_text(names.process_name),
                  text::intern_report_text(names.process_label),
                  text::intern_report_text(names.thread_name)};
  }
  last_ = &it->second;
  last_thread_ = thread;
  return *last_;
}

double raw_dur_us(const index::EventIndex& index, index::Row row) {
  // The index keeps exact nanoseconds; dividing once reproduces the double Python parses from
  // the 3-decimal text. (Durations written with sub-ns digits are rare and not kept raw.)
  // A pseudo op has none (pandas NaN: the duration stats skip it).
  if (!index.has_time(row)) return std::numeric_limits<double>::quiet_NaN();
  return reference_us(index.dur_ns(row));
}

std::optional<std::int64_t> args_stream(const index::EventIndex& index, index::Row gpu_row) {
  const std::optional<index::GpuStream> args = index.gpu_stream(gpu_row);
  if (!args || !args->stream_in_args || args->stream < 0) return std::nullopt;
  return args->stream;
}

KernelDetail kernel_detail(const index::EventIndex& index, index::Row gpu_row) {
  KernelDetail d;
  d.name = index.name(gpu_row);
  d.dur_us = raw_dur_us(index, gpu_row);
  d.stream = args_stream(index, gpu_row);
  return d;
}

LauncherRowBuilder::LauncherRowBuilder(const LauncherSheetInputs& inputs)
    : in_(inputs), args_(inputs.index.strings()), names_(inputs.index) {}

void LauncherRowBuilder::fill(const model::KernelLauncher& l, LauncherRow& r) {
  const index::EventIndex& index = in_.index;
  r.row = l.row;
  r.name = index.name(l.row);
  r.direct_kernel_time_us = l.direct_busy_us;
  r.subtree_kernel_time_us = l.subtree_busy_us;
  // Direct kernels by start time; they are in row order, so a stable sort keeps row order
  // among equal starts.
  by_start_.assign(l.kernels.begin(), l.kernels.end());
  std::stable_sort(by_start_.begin(), by_start_.end(),
                   [&](index::Row a, index::Row b) { return index.ts_us(a) < index.ts_us(b); });
  r.kernel_details.clear();
  for (index::Row k : by_start_) r.kernel_details.push_back(kernel_detail(index, k));
  r.category = category(r);
  const std::optional<index::OpArgs> a = index.op_args(l.row);
  r.input_dims = args_.tuple_repr(a ? a->input_dims : index::kNoString);
  r.input_type = args_.tuple_repr(a ? a->input_types : index::kNoString);
  r.input_strides = args_.tuple_repr(a ? a->input_strides : index::kNoString);
  r.concrete_inputs = args_.tuple_repr(a ? a->concrete_inputs : index::kNoString);
  r.names = names_.of(l.row);
  if (in_.group_by_parent_module) fill_module(r);
}

void LauncherRowBuilder::fill_module(LauncherRow& r) {
  const auto& parents = in_.python_parents;
  const std::int32_t parent = r.row < parents.size() ? parents[r.row] : -1;
  const std::uint64_t key = (static_cast<std::uint64_t>(in_.index.name_id(r.row)) << 32) |
                            static_cast<std::uint32_t>(parent);
  auto [it, fresh] = modules_.try_emplace(key);
  if (fresh) {
    const ModuleCallStack stack = module_call_stack(in_.index, parents, r.row);
    it->second = {text::intern_report_text(text::python_string_list_repr(
                      std::vector<std::string_view>(stack.frames.begin(), stack.frames.end()))),
                  text::intern_report_text(stack.parent_module)};
  }
  std::tie(r.call_stack, r.parent_module) = it->second;
}

// The category depends on the name (registry, name patterns) and the first kernel's name only,
// so it is decided once per such pair. (kNoString stands for "no kernel": an empty kernel name
// categorizes the same way.)
std::string_view LauncherRowBuilder::category(const LauncherRow& r) {
  const index::EventIndex& index = in_.index;
  const index::StringId kernel =
      r.kernel_details.empty() ? index::kNoString : index.name_id(by_start_.front());
  const std::uint64_t key = (static_cast<std::uint64_t>(index.name_id(r.row)) << 32) | kernel;
  auto [it, fresh] = categories_.try_emplace(key);
  if (fresh) {
    std::optional<std::string> registry;
    if (in_.registry_category) registry = in_.registry_category(r.row);
    std::optional<std::string_view> first_kernel;
    if (!r.kernel_details.empty()) first_kernel = r.kernel_details.front().name;
    it->second = text::intern_report_text(categorize_op(r.name, registry, first_kernel));
  }
  return it->second;
}

std::vector<LauncherRow> build_launcher_rows(const LauncherSheetInputs& in) {
  LauncherRowBuilder builder(in);
  std::vector<LauncherRow> rows(in.launchers.all().size());
  for (std::size_t i = 0; i < rows.size(); ++i) builder.fill(in.launchers.all()[i], rows[i]);
  return rows;
}

bool is_gpu_only_trace(const index::EventIndex& index) {
  return index.rows_of_kind(index::EventKind::kCpuOp).empty();
}

// ---- the three sheets ---------------------------------------------------------------------

// Groups keyed on (text, parent module); the module is empty without --group_by_parent_module.
using ModuleKey = std::pair<std::string_view, std::string_view>;

struct OpsSheetsBuilder::Groups {
  RowTimes times;  // per added row
  struct CategoryGroup {
    Members members;
    std::string_view call_stack_first;
  };
  std::map<ModuleKey, CategoryGroup> by_category;  // sorted keys, as groupby(sort=True)
  struct NameGroup {
    Members members;
    std::set<std::string_view> categories;  // sorted, as the reference's sorted(set(...))
    std::string_view call_stack_first;
  };
  std::map<ModuleKey, NameGroup> by_name;
  std::unordered_map<TextPair, NameGroup*, TextPairHash> name_group;  // by the texts' addresses
  std::vector<UniqueArgsGroup> unique_args;  // first-appearance order, as groupby(sort=False)
  std::unordered_map<UniqueArgsKey, std::size_t, UniqueArgsKeyHash> unique_args_slot;
};

OpsSheetsBuilder::OpsSheetsBuilder(OpsSheetsGrouping grouping)
    : groups_(std::make_unique<Groups>()), grouping_(grouping) {}
OpsSheetsBuilder::~OpsSheetsBuilder() = default;

void OpsSheetsBuilder::reserve(std::size_t rows) {
  groups_->times.reserve(rows);
}

void OpsSheetsBuilder::add(const LauncherRow& r) {
  Groups& g = *groups_;
  const auto i = static_cast<std::uint32_t>(g.times.size());
  g.times.emplace_back(r.direct_kernel_time_us, r.subtree_kernel_time_us);
  Groups::CategoryGroup& by_category = g.by_category[{r.category, r.parent_module}];
  if (by_category.members.empty()) by_category.call_stack_first = r.call_stack;
  by_category.members.push_back(i);

  Groups::NameGroup*& by_name = g.name_group[{r.name.data(), r.parent_module.data()}];
  if (!by_name) {
    by_name = &g.by_name[{r.name, r.parent_module}];
    by_name->call_stack_first = r.call_stack;
  }
  by_name->members.push_back(i);
  by_name->categories.insert(r.category);

  auto [it, fresh] = g.unique_args_slot.try_emplace(unique_args_key(r, grouping_.num_kernels),
                                                    g.unique_args.size());
  if (fresh) {
    UniqueArgsGroup& group = g.unique_args.emplace_back();
    group.first = r;
    group.first.kernel_details = {};
    group.num_kernels = r.kernel_details.size();
  }
  UniqueArgsGroup& group = g.unique_args[it->second];
  group.members.push_back(i);
  group.kernels.add(r.kernel_details);
}

SheetTable OpsSheetsBuilder::ops_summary_by_category() const {
  std::vector<const std::pair<const ModuleKey, Groups::CategoryGroup>*> entries;
  std::vector<double> sums;
  for (const auto& entry : groups_->by_category) {
    entries.push_back(&entry);
    sums.push_back(pandas_sum(times_of(groups_->times, entry.second.members).direct));
  }
  const bool modules = grouping_.parent_module;
  SheetTable sheet{
      modules ? std::vector<std::string>{"op category", "parent_module", "Count",
                                         "call_stack_first", "total_direct_kernel_time_ms"}
              : std::vector<std::string>{"op category", "Count", "total_direct_kernel_time_ms"},
      {}};
  std::vector<double> ms;
  for (std::size_t i : order_by_sum_desc(sums)) {
    const auto& [key, g] = *entries[i];
    ms.push_back(sums[i] / 1000);
    std::vector<Cell>& row = sheet.rows.emplace_back();
    row.emplace_back(std::string(key.first));
    if (modules) row.emplace_back(std::string(key.second));
    row.push_back(int_cell(static_cast<std::int64_t>(g.members.size())));
    if (modules) row.emplace_back(std::string(g.call_stack_first));
    row.push_back(float_cell(ms.back()));
  }
  append_percentages(sheet, ms);
  return sheet;
}

SheetTable OpsSheetsBuilder::ops_summary() const {
  std::vector<const std::pair<const ModuleKey, Groups::NameGroup>*> entries;
  std::vector<double> direct_sums, subtree_sums;
  for (const auto& entry : groups_->by_name) {
    entries.push_back(&entry);
    const KernelTimes times = times_of(groups_->times, entry.second.members);
    direct_sums.push_back(pandas_sum(times.direct));
    subtree_sums.push_back(pandas_sum(times.subtree));
  }
  // The module variant (inference-mode spec §5.3) counts the subtree times instead of giving
  // them in ms, and adds the module and the group's first call stack.
  const bool modules = grouping_.parent_module;
  SheetTable sheet{
      modules
          ? std::vector<std::string>{"name", "parent_module", "total_direct_kernel_time_sum",
                                     "total_subtree_kernel_time_sum",
                                     "total_subtree_kernel_time_count",
                                     "total_direct_kernel_time_ms", "Count", "Categories",
                                     "call_stack_first"}
          : std::vector<std::string>{"name", "total_direct_kernel_time_sum",
                                     "total_subtree_kernel_time_sum", "total_direct_kernel_time_ms",
                                     "total_subtree_kernel_time_ms", "Count", "Categories"},
      {}};
  std::vector<double> direct_ms;
  for (std::size_t i : order_by_sum_desc(direct_sums)) {
    const auto& [key, g] = *entries[i];
    const double subtree_sum = subtree_sums[i];
    const Cell count = int_cell(static_cast<std::int64_t>(g.members.size()));
    direct_ms.push_back(direct_sums[i] / 1000);
    std::vector<Cell>& row = sheet.rows.emplace_back();
    row.emplace_back(std::string(key.first));
    if (modules) row.emplace_back(std::string(key.second));
    row.push_back(float_cell(direct_sums[i]));
    row.push_back(float_cell(subtree_sum));
    if (modules) row.push_back(count);
    row.push_back(float_cell(direct_ms.back()));
    if (!modules) row.push_back(float_cell(subtree_sum / 1000));
    row.push_back(count);
    row.emplace_back(text::python_string_list_repr(
        std::vector<std::string_view>(g.categories.begin(), g.categories.end())));
    if (modules) row.emplace_back(std::string(g.call_stack_first));
  }
  append_percentages(sheet, direct_ms);
  return sheet;
}

SheetTable OpsSheetsBuilder::ops_unique_args() const {
  std::vector<const UniqueArgsGroup*> groups;
  std::vector<double> group_sums;
  for (const UniqueArgsGroup& g : groups_->unique_args) {
    groups.push_back(&g);
    group_sums.push_back(pandas_sum(times_of(groups_->times, g.members).direct));
  }
  // Sort by direct sum descending, then ex_UID ascending: fully determined.
  std::vector<std::size_t> order(groups.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (group_sums[a] != group_sums[b]) return group_sums[a] > group_sums[b];
    return groups[a]->first.row < groups[b]->first.row;
  });
  SheetTable sheet{{"name",
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
  if (grouping_.num_kernels)
    sheet.columns.insert(sheet.columns.begin() + sheet.column_index("operation_count"),
                         "num_kernels");
  if (grouping_.parent_module) {
    sheet.columns.insert(sheet.columns.begin() + 2, "parent_module");
    sheet.columns.insert(sheet.columns.begin() + sheet.column_index("ex_UID") + 1, "call_stack");
  }
  std::vector<double> direct_sums;
  for (std::size_t i : order) {
    sheet.rows.push_back(
        unique_args_cells(*groups[i], times_of(groups_->times, groups[i]->members), grouping_));
    direct_sums.push_back(group_sums[i]);
  }
  append_percentages(sheet, direct_sums);
  return sheet;
}

// The span forms feed every row to a builder (tests and the sheet-at-a-time callers).
SheetTable ops_summary_by_category_sheet(std::span<const LauncherRow> rows,
                                         OpsSheetsGrouping grouping) {
  OpsSheetsBuilder builder(grouping);
  for (const LauncherRow& r : rows) builder.add(r);
  return builder.ops_summary_by_category();
}

SheetTable ops_summary_sheet(std::span<const LauncherRow> rows, OpsSheetsGrouping grouping) {
  OpsSheetsBuilder builder(grouping);
  for (const LauncherRow& r : rows) builder.add(r);
  return builder.ops_summary();
}

SheetTable ops_unique_args_sheet(std::span<const LauncherRow> rows, OpsSheetsGrouping grouping) {
  OpsSheetsBuilder builder(grouping);
  for (const LauncherRow& r : rows) builder.add(r);
  return builder.ops_unique_args();
}

}  // namespace traceprism::perf_report
