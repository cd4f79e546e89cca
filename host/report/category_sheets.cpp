#include "report/category_sheets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "report/csv_sheet.hpp"
#include "report/gpu_subtrees.hpp"
#include "report/numpy_stats.hpp"
#include "report/op_perf.hpp"
#include "report/ops_sheets.hpp"
#include "report/python_format.hpp"
#include "report/python_repr.hpp"

namespace traceprism::report {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The reference's sheet families in registry order (trace-format spec §8.6, Appendix A).
constexpr std::string_view kFamilyOrder[] = {"GEMM",
                                             "SDPA",
                                             "CONV",
                                             "InferenceAttention",
                                             "BinaryElementwise",
                                             "GroupedGEMM",
                                             "MoE_comm",
                                             "SSM",
                                             "RoPE",
                                             "CrossEntropy",
                                             "UnaryElementwise",
                                             "MoE_fused",
                                             "MoE_unfused",
                                             "MoE_aux",
                                             "RMSNorm",
                                             "elementwise",
                                             "GroupQuant",
                                             "FusedRoPE",
                                             "CustomCollective",
                                             "mHC",
                                             "Normalization",
                                             "Reduce"};
// Families with one sheet of forward numbers; the others get _fwd and _bwd sheets.
constexpr std::string_view kSingleSheetFamilies[] = {"GEMM", "UnaryElementwise",
                                                     "BinaryElementwise", "Normalization"};
// Backward ops whose forward-pass rows the reference moves from the _fwd to the _bwd sheet.
constexpr std::string_view kMovedToBackward[] = {"flash_attn::_flash_attn_varlen_backward",
                                                 "aten::convolution_backward", "ConvBias_Backward",
                                                 "ConvBiasReLU_Backward"};
// Forward ops the reference then removes from the _bwd sheet.
constexpr std::string_view kRemovedFromBackward[] = {
    "aten::convolution", "aten::miopen_convolution", "aten::cudnn_convolution", "ConvBias_",
    "ConvBiasReLU_"};
// Not given backward numbers at all.
constexpr std::string_view kNoBackwardRows = "vllm::unified_attention_with_output";
// Pattern-matched models (Inductor Triton kernels) are not in the reference's registry map,
// which is where sheet families come from.
constexpr std::string_view kNoSheetFamily = "triton";

template <std::size_t N>
bool among(const std::string_view (&list)[N], std::string_view name) {
  return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

// One op instance with the numbers of one pass (a row of build_df_perf_metrics).
struct PerfSheetRow {
  Row row = 0;
  OpPerf perf;
  KernelDetails kernel_details;  // the timed kernels sorted by start time
};

// ---- parameter cells ----------------------------------------------------------------------

// What pandas infers from a parameter value (its Python repr), which decides how the
// reference's astype(str) prints it.
enum class ValueKind { kMissing, kNone, kInt, kFloat, kBool, kString, kOther };

ValueKind kind_of(const std::string* repr) {
  if (!repr) return ValueKind::kMissing;
  const std::string& r = *repr;
  if (r == "None") return ValueKind::kNone;
  if (r == "True" || r == "False") return ValueKind::kBool;
  if (r.empty()) return ValueKind::kOther;
  if (r.front() == '\'' || r.front() == '"') return ValueKind::kString;
  const bool integer = r.find_first_not_of("-0123456789") == std::string::npos;
  if (integer) return ValueKind::kInt;
  char* end = nullptr;
  std::strtod(r.c_str(), &end);
  return end == r.c_str() + r.size() ? ValueKind::kFloat : ValueKind::kOther;
}

// str() of a Python string from its repr: the quotes go, escapes are undone.
std::string unquote(const std::string& repr) {
  std::string out;
  for (std::size_t i = 1; i + 1 < repr.size(); ++i) {
    char c = repr[i];
    if (c == '\\' && i + 2 < repr.size()) {
      c = repr[++i];
      if (c == 'n')
        c = '\n';
      else if (c == 't')
        c = '\t';
      else if (c == 'r')
        c = '\r';
    }
    out += c;
  }
  return out;
}

// How one `param: <key>` column prints. pandas turns a column of numbers with a float, a
// missing key or a None into float64 (141 -> "141.0", None -> "nan"); astype(str) prints a
// missing key as "nan". A None elsewhere is shown empty (astype(str) would print "None"; the
// reference goldens show the cell empty).
class ParamColumn {
 public:
  explicit ParamColumn(const std::vector<const std::string*>& values) {
    bool any_number = false, all_numeric = true, any_float_like = false;
    for (const std::string* v : values) {
      const ValueKind k = kind_of(v);
      any_number |= k == ValueKind::kInt || k == ValueKind::kFloat;
      all_numeric &= k == ValueKind::kInt || k == ValueKind::kFloat || k == ValueKind::kMissing ||
                     k == ValueKind::kNone;
      any_float_like |= k == ValueKind::kFloat || k == ValueKind::kMissing || k == ValueKind::kNone;
    }
    float64_ = any_number && all_numeric && any_float_like;
  }

  // The text the reference groups on (astype(str)).
  std::string key(const std::string* repr) const {
    const ValueKind k = kind_of(repr);
    if (k == ValueKind::kNone && !float64_) return "None";
    return cell(repr);
  }

  std::string cell(const std::string* repr) const {
    switch (kind_of(repr)) {
      case ValueKind::kMissing:
        return "nan";
      case ValueKind::kNone:
        return float64_ ? "nan" : "";
      case ValueKind::kInt:
      case ValueKind::kFloat:
        return float64_ ? python_float_repr(std::strtod(repr->c_str(), nullptr)) : *repr;
      case ValueKind::kString:
        return unquote(*repr);
      default:
        return *repr;
    }
  }

 private:
  bool float64_ = false;
};

const std::string* find_param(const std::vector<model::OpParam>& params, const std::string& key) {
  for (const model::OpParam& p : params)
    if (p.key == key) return &p.repr;
  return nullptr;
}

// ---- summary (summarize_df_perf_metrics) ---------------------------------------------------

struct SheetContext {
  const index::EventIndex& index;
  std::unordered_map<index::StringId, std::string> list_reprs;

  // Input Dims_first & co. print the raw lists: [[512], [141, 512], [], []].
  const std::string& list_repr(index::StringId id) {
    auto [it, inserted] = list_reprs.try_emplace(id);
    if (inserted && id != index::kNoString) it->second = python_list_repr(index.strings().view(id));
    return it->second;
  }
};

std::vector<double> without_nan(std::vector<double> values) {
  std::erase_if(values, [](double v) { return std::isnan(v); });
  return values;
}

double first_known(const std::vector<double>& values) {
  for (double v : values)
    if (!std::isnan(v)) return v;
  return kNaN;
}

// mean, median, std, min, max as cells (pandas, NaN skipped); with `sum` appended when asked.
void add_series(std::vector<std::string>& cells, const std::vector<double>& raw, bool with_sum) {
  const std::vector<double> v = without_nan(raw);
  const bool any = !v.empty();
  cells.push_back(float_cell(any ? pandas_mean(v) : kNaN));
  cells.push_back(float_cell(any ? pandas_median(v) : kNaN));
  cells.push_back(float_cell(pandas_std(v)));
  cells.push_back(float_cell(any ? numpy_min(v) : kNaN));
  cells.push_back(float_cell(any ? numpy_max(v) : kNaN));
  if (with_sum) cells.push_back(float_cell(pandas_sum(v)));
}

void add_series_header(std::vector<std::string>& columns, const std::string& name, bool with_sum) {
  for (const char* stat : {"_mean", "_median", "_std", "_min", "_max"})
    columns.push_back(name + stat);
  if (with_sum) columns.push_back(name + "_sum");
}

std::vector<std::string> param_keys(const std::vector<PerfSheetRow>& rows) {
  std::vector<std::string> keys;  // union in order of first appearance, as pandas builds it
  for (const PerfSheetRow& r : rows)
    for (const model::OpParam& p : *r.perf.params)
      if (std::find(keys.begin(), keys.end(), p.key) == keys.end()) keys.push_back(p.key);
  return keys;
}

std::vector<ParamColumn> param_columns(const std::vector<PerfSheetRow>& rows,
                                       const std::vector<std::string>& keys) {
  std::vector<ParamColumn> columns;
  for (const std::string& key : keys) {
    std::vector<const std::string*> values;
    for (const PerfSheetRow& r : rows) values.push_back(find_param(*r.perf.params, key));
    columns.emplace_back(values);
  }
  return columns;
}

struct SummaryGroup {
  std::vector<std::size_t> members;  // indices into the rows, row order
  double kernel_time_sum = 0;
  Row uid_first = 0;
};

std::vector<std::string> summary_header(const std::vector<std::string>& keys, bool roofline) {
  std::vector<std::string> columns{"name"};
  for (const std::string& key : keys) columns.push_back("param: " + key);
  for (const char* c : {"GFLOPS_first", "Data Moved (MB)_first", "FLOPS/Byte_first"})
    columns.emplace_back(c);
  add_series_header(columns, "TB/s", false);
  add_series_header(columns, "TFLOPS/s", false);
  for (const char* c :
       {"process_name_first", "process_label_first", "thread_name_first", "Compute Spec"})
    columns.emplace_back(c);
  if (roofline) {
    columns.emplace_back("Roofline Time (µs)_first");
    columns.emplace_back("Roofline Bound_first");
    add_series_header(columns, "Pct Roofline", false);
  }
  for (const char* c :
       {"kernel_details__summarize_kernel_stats", "trunc_kernel_details", "Input Dims_first",
        "Input type_first", "Input Strides_first", "Concrete Inputs_first"})
    columns.emplace_back(c);
  add_series_header(columns, "Kernel Time (µs)", true);
  columns.emplace_back("name_count");
  columns.emplace_back("UID_first");
  return columns;
}

// The first present value of a shape arg among the members, as a raw list repr.
std::string first_arg(SheetContext& ctx, const std::vector<PerfSheetRow>& rows,
                      const SummaryGroup& g, index::StringId index::OpArgs::*field) {
  for (std::size_t i : g.members) {
    const index::OpArgs* args = ctx.index.op_args(rows[i].row);
    if (args && args->*field != index::kNoString) return ctx.list_repr(args->*field);
  }
  return "";
}

std::vector<std::string> summary_cells(SheetContext& ctx, const std::vector<PerfSheetRow>& rows,
                                       const SummaryGroup& g, const std::vector<std::string>& keys,
                                       const std::vector<ParamColumn>& params, bool roofline) {
  const PerfSheetRow& first = rows[g.members.front()];
  std::vector<std::string> cells{std::string(ctx.index.name(first.row))};
  for (std::size_t k = 0; k < keys.size(); ++k)
    cells.push_back(params[k].cell(find_param(*first.perf.params, keys[k])));
  std::vector<double> gflops, moved, intensity, tbs, tflops, kernel_time, roof_time, pct;
  std::vector<const KernelDetails*> kernel_lists;
  for (std::size_t i : g.members) {
    const OpPerf& p = rows[i].perf;
    gflops.push_back(p.metrics.gflops);
    moved.push_back(p.metrics.data_moved_mb);
    intensity.push_back(p.metrics.flops_per_byte);
    tbs.push_back(p.metrics.tb_per_s);
    tflops.push_back(p.metrics.tflops_per_s);
    kernel_time.push_back(p.kernel_time_us);
    roof_time.push_back(p.metrics.has_roofline ? p.metrics.roofline_time_us : kNaN);
    pct.push_back(p.metrics.has_roofline ? p.metrics.pct_roofline : kNaN);
    kernel_lists.push_back(&rows[i].kernel_details);
  }
  cells.push_back(float_cell(first_known(gflops)));
  cells.push_back(float_cell(first_known(moved)));
  cells.push_back(float_cell(first_known(intensity)));
  add_series(cells, tbs, false);
  add_series(cells, tflops, false);
  const HostNames names = host_names(ctx.index, first.row);
  cells.push_back(names.process_name);
  cells.push_back(names.process_label);
  cells.push_back(names.thread_name);
  cells.push_back(std::string(first.perf.compute_spec));
  if (roofline) {
    cells.push_back(float_cell(first_known(roof_time)));
    std::string bound;
    for (std::size_t i : g.members)
      if (rows[i].perf.metrics.has_roofline) {
        bound = model::roofline_bound_name(rows[i].perf.metrics);
        break;
      }
    cells.push_back(bound);
    add_series(cells, pct, false);
  }
  const auto summary = summarize_kernel_details(kernel_lists);
  cells.push_back(kernel_summary_repr(summary));
  cells.push_back(trunc_kernel_details_repr(summary));
  cells.push_back(first_arg(ctx, rows, g, &index::OpArgs::input_dims));
  cells.push_back(first_arg(ctx, rows, g, &index::OpArgs::input_types));
  cells.push_back(first_arg(ctx, rows, g, &index::OpArgs::input_strides));
  cells.push_back(first_arg(ctx, rows, g, &index::OpArgs::concrete_inputs));
  add_series(cells, kernel_time, true);
  cells.push_back(int_cell(static_cast<std::int64_t>(g.members.size())));
  cells.push_back(int_cell(g.uid_first));
  return cells;
}

// Groups by name and every parameter's string form; rows by kernel time sum desc, UID asc.
CsvSheet summarize(SheetContext& ctx, const std::vector<PerfSheetRow>& rows) {
  CsvSheet sheet;
  if (rows.empty()) return sheet;  // pandas: a frame without columns
  const std::vector<std::string> keys = param_keys(rows);
  const std::vector<ParamColumn> params = param_columns(rows, keys);
  std::vector<SummaryGroup> groups;
  std::unordered_map<std::string, std::size_t> slot;
  bool roofline = false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::string key(ctx.index.name(rows[i].row));
    for (std::size_t k = 0; k < keys.size(); ++k)
      key += '\x1f' + params[k].key(find_param(*rows[i].perf.params, keys[k]));
    auto [it, fresh] = slot.try_emplace(key, groups.size());
    if (fresh) groups.push_back({{}, 0, rows[i].row});
    groups[it->second].members.push_back(i);
    roofline |= rows[i].perf.metrics.has_roofline;
  }
  for (SummaryGroup& g : groups) {
    std::vector<double> times;
    for (std::size_t i : g.members) times.push_back(rows[i].perf.kernel_time_us);
    g.kernel_time_sum = pandas_sum(times);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const SummaryGroup& a, const SummaryGroup& b) {
    if (a.kernel_time_sum != b.kernel_time_sum) return a.kernel_time_sum > b.kernel_time_sum;
    return a.uid_first < b.uid_first;
  });
  sheet.columns = summary_header(keys, roofline);
  for (const SummaryGroup& g : groups)
    sheet.rows.push_back(summary_cells(ctx, rows, g, keys, params, roofline));
  return sheet;
}

// ---- fwd / bwd tables ----------------------------------------------------------------------

// Rows named in `names` go from `from` into the returned sheet (same columns).
template <std::size_t N>
CsvSheet take_rows(CsvSheet& from, const std::string_view (&names)[N]) {
  CsvSheet taken;
  taken.columns = from.columns;
  std::erase_if(from.rows, [&](const std::vector<std::string>& row) {
    if (!among(names, row.front())) return false;
    taken.rows.push_back(row);
    return true;
  });
  return taken;
}

// pandas.concat: the columns of `a`, then the new ones of `b`; missing cells empty.
CsvSheet concat(const CsvSheet& a, const CsvSheet& b) {
  CsvSheet out = a;
  for (const std::string& c : b.columns)
    if (out.column_index(c) == out.columns.size()) out.columns.push_back(c);
  for (auto& row : out.rows) row.resize(out.columns.size());
  for (const auto& row : b.rows) {
    std::vector<std::string> cells(out.columns.size());
    for (std::size_t i = 0; i < b.columns.size(); ++i)
      cells[out.column_index(b.columns[i])] = row[i];
    out.rows.push_back(std::move(cells));
  }
  return out;
}

class FamilySheets {
 public:
  FamilySheets(const CategorySheetInputs& in, const GpuSubtrees& subtrees)
      : in_(in), subtrees_(subtrees), ctx_{*in.index, {}} {}

  void add(const std::string& family, const std::vector<const model::OpWork*>& works,
           std::vector<std::pair<std::string, std::string>>& out) {
    CsvSheet fwd = summarize(ctx_, rows(works, ModelPass::kForward));
    if (among(kSingleSheetFamilies, family)) {
      emit(family, fwd, out);
      return;
    }
    std::optional<CsvSheet> moved;
    if (!fwd.columns.empty()) moved = take_rows(fwd, kMovedToBackward);
    std::vector<const model::OpWork*> bwd_works;
    for (const model::OpWork* w : works)
      if (in_.index->name(w->row) != kNoBackwardRows) bwd_works.push_back(w);
    CsvSheet bwd = summarize(ctx_, rows(bwd_works, ModelPass::kBackward));
    if (moved) bwd = concat(bwd, *moved);
    take_rows(bwd, kRemovedFromBackward);
    emit(family + "_fwd", fwd, out);
    emit(family + "_bwd", bwd, out);
  }

 private:
  std::vector<PerfSheetRow> rows(const std::vector<const model::OpWork*>& works, ModelPass pass) {
    std::vector<PerfSheetRow> out;
    for (const model::OpWork* w : works) {
      // A backward row needs backward nodes linked to the op or below it.
      if (pass == ModelPass::kBackward && subtrees_.backward_nodes(w->row).empty()) continue;
      auto perf = compute_op_perf(subtrees_, *in_.op_work, *w, pass, in_.platform);
      if (!perf) continue;  // the model raised: the reference skips the row
      PerfSheetRow row{w->row, std::move(*perf), {}};
      row.kernel_details = kernel_details_by_start(*in_.index, row.perf.kernels);
      out.push_back(std::move(row));
    }
    return out;
  }

  static void emit(const std::string& name, const CsvSheet& sheet,
                   std::vector<std::pair<std::string, std::string>>& out) {
    if (!sheet.rows.empty()) out.emplace_back(name, sheet.to_csv());
  }

  const CategorySheetInputs& in_;
  const GpuSubtrees& subtrees_;
  SheetContext ctx_;
};

// Op instances per sheet family, families in registry order (unknown ones after, in order of
// appearance), instances in row (UID) order.
std::vector<std::pair<std::string, std::vector<const model::OpWork*>>> families(
    const CategorySheetInputs& in) {
  std::vector<std::pair<std::string, std::vector<const model::OpWork*>>> out;
  for (const model::OpWork& w : in.op_work->all()) {
    if (!w.has_model || !in.tree->in_tree(w.row)) continue;
    const std::string family = in.op_work->sheet(w);
    if (family.empty() || family == kNoSheetFamily) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](auto& f) { return f.first == family; });
    if (it == out.end()) it = out.insert(out.end(), {family, {}});
    it->second.push_back(&w);
  }
  auto rank = [](const std::string& family) {
    auto it = std::find(std::begin(kFamilyOrder), std::end(kFamilyOrder), family);
    return static_cast<std::size_t>(it - std::begin(kFamilyOrder));
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> build_category_sheets(
    const CategorySheetInputs& in) {
  std::vector<std::pair<std::string, std::string>> out;
  // GPU-only traces get no ops sheets (spec §8); without op models there is nothing to show.
  if (!in.op_work || is_gpu_only_trace(*in.index)) return out;
  const GpuSubtrees subtrees(*in.index, *in.tree, *in.links, in.fwd_bwd);
  FamilySheets sheets(in, subtrees);
  for (const auto& [family, works] : families(in)) sheets.add(family, works, out);
  return out;
}

}  // namespace traceprism::report
