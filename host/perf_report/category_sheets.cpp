#include "perf_report/category_sheets.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "perf_report/gpu_subtrees.hpp"
#include "perf_report/numpy_stats.hpp"
#include "perf_report/op_perf.hpp"
#include "perf_report/ops_sheets.hpp"
#include "perf_report/sheet_table.hpp"
#include "text/python_format.hpp"
#include "text/python_repr.hpp"

namespace traceprism::perf_report {

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
    return cell(repr).display();
  }

  // A missing value is the text "nan", as astype(str) prints it, not an empty NaN cell.
  Cell cell(const std::string* repr) const {
    switch (kind_of(repr)) {
      case ValueKind::kMissing:
        return "nan";
      case ValueKind::kNone:
        return float64_ ? Cell("nan") : Cell();
      case ValueKind::kInt:
      case ValueKind::kFloat:
        return float64_ ? Cell::real(std::strtod(repr->c_str(), nullptr)) : Cell(*repr);
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

std::vector<double> without_nan(std::vector<double> values) {
  std::erase_if(values, [](double v) { return std::isnan(v); });
  return values;
}

// mean, median, std, min, max as cells (pandas, NaN skipped); with `sum` appended when asked.
void add_series(std::vector<Cell>& cells, const std::vector<double>& raw, bool with_sum) {
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

std::vector<std::string> summary_header(const std::vector<std::string>& keys, bool num_kernels,
                                        bool roofline) {
  std::vector<std::string> columns{"name"};
  for (const std::string& key : keys) columns.push_back("param: " + key);
  if (num_kernels) columns.emplace_back("num_kernels");
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

// The shape args whose first present value a summary row shows (Input Dims_first & co.).
constexpr index::StringId index::OpArgs::*kFirstArgs[] = {
    &index::OpArgs::input_dims, &index::OpArgs::input_types, &index::OpArgs::input_strides,
    &index::OpArgs::concrete_inputs};

// Op instances as indices into the OpWorkTable (by row).
using OpList = std::vector<std::uint32_t>;

// One summary row while its op instances come in (group order): the first instance's values
// and the per-instance columns the statistics need. "First" values keep the first non-NaN.
struct SummaryGroup {
  Row uid_first = 0;
  const std::vector<model::OpParam>* params = nullptr;  // the first instance's
  std::size_t num_kernels = 0;                          // the first instance's
  std::string_view compute_spec;
  double gflops = kNaN, moved = kNaN, intensity = kNaN, roof_time = kNaN;
  std::string bound;  // Roofline Bound_first: the first instance with a roofline
  std::vector<double> tbs, tflops, kernel_time, pct;
  KernelSummaryBuilder kernels;
  std::array<index::StringId, std::size(kFirstArgs)> first_args{};  // kNoString: none yet
  double kernel_time_sum = 0;

  static void keep_first(double& first, double value) {
    if (std::isnan(first)) first = value;
  }

  void add(const index::EventIndex& index, Row row, const OpPerf& p,
           const KernelDetails& kernel_details) {
    if (kernel_time.empty()) {
      uid_first = row;
      params = p.params;
      num_kernels = kernel_details.size();
      compute_spec = p.compute_spec;
    }
    keep_first(gflops, p.metrics.gflops);
    keep_first(moved, p.metrics.data_moved_mb);
    keep_first(intensity, p.metrics.flops_per_byte);
    tbs.push_back(p.metrics.tb_per_s);
    tflops.push_back(p.metrics.tflops_per_s);
    kernel_time.push_back(p.kernel_time_us);
    if (p.metrics.has_roofline) {
      keep_first(roof_time, p.metrics.roofline_time_us);
      pct.push_back(p.metrics.pct_roofline);
      if (bound.empty()) bound = model::roofline_bound_name(p.metrics);
    }
    kernels.add(kernel_details);
    if (const std::optional<index::OpArgs> args = index.op_args(row))
      for (std::size_t f = 0; f < first_args.size(); ++f)
        if (first_args[f] == index::kNoString) first_args[f] = (*args).*kFirstArgs[f];
  }
};

// One sheet (build_df_perf_metrics, then summarize_df_perf_metrics) of one pass over a
// family's op instances, built in two passes: the instances' parameter lists first (the param
// columns, their pandas dtype and the grouping keys depend on all of them), then each
// instance's numbers straight into its group. No instance row is kept.
class SheetBuilder {
 public:
  SheetBuilder(const CategorySheetInputs& in, const GpuSubtrees& subtrees, ModelPass pass,
               text::ArgReprCache& list_reprs, HostNamesCache& names)
      : in_(in),
        subtrees_(subtrees),
        pass_(pass),
        list_reprs_(list_reprs),
        names_(names),
        roofline_(in.platform) {}

  SheetTable build(const OpList& ops) {
    OpList rows;
    for (std::uint32_t op : ops)
      if (included(in_.op_work->at(op))) rows.push_back(op);
    SheetTable sheet;
    if (rows.empty()) return sheet;  // pandas: a frame without columns
    plan_columns(rows);
    bool roofline = false;
    for (std::uint32_t op : rows) {
      const model::OpWork w = in_.op_work->at(op);
      op_perf_kernels(subtrees_, w.row, pass_, kernels_);
      const std::optional<OpPerf> perf =
          compute_op_perf(*in_.index, *in_.op_work, w, pass_, kernels_, roofline_);
      kernel_details_by_start(*in_.index, kernels_, kernel_details_);
      groups_[group_of(w, kernels_.size())].add(*in_.index, w.row, *perf, kernel_details_);
      roofline |= perf->metrics.has_roofline;
    }
    for (SummaryGroup& g : groups_) g.kernel_time_sum = pandas_sum(g.kernel_time);
    std::vector<std::size_t> order(groups_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (groups_[a].kernel_time_sum != groups_[b].kernel_time_sum)
        return groups_[a].kernel_time_sum > groups_[b].kernel_time_sum;
      return groups_[a].uid_first < groups_[b].uid_first;
    });
    sheet.columns = summary_header(keys_, in_.group_by_num_kernels, roofline);
    for (std::size_t i : order) sheet.rows.push_back(cells(groups_[i], roofline));
    return sheet;
  }

 private:
  // A row of the pass's table: a backward row needs backward nodes linked to the op or below
  // it; a model that raised for the pass gives no row (the reference skips it).
  bool included(const model::OpWork& w) const {
    if (pass_ == ModelPass::kBackward && !subtrees_.has_backward_nodes(w.row)) return false;
    return has_op_perf(w, pass_);
  }

  // Param columns: the union of the keys in order of first appearance, as pandas builds it,
  // each with the dtype its values give. Only distinct parameter lists matter for both.
  void plan_columns(const OpList& rows) {
    std::vector<std::uint32_t> lists;
    std::unordered_map<std::uint32_t, bool> seen;
    for (std::uint32_t op : rows) {
      const std::uint32_t params = in_.op_work->at(op).params;
      if (seen.try_emplace(params, true).second) lists.push_back(params);
    }
    for (std::uint32_t id : lists)
      for (const model::OpParam& p : in_.op_work->params(id))
        if (std::find(keys_.begin(), keys_.end(), p.key) == keys_.end()) keys_.push_back(p.key);
    for (const std::string& key : keys_) {
      std::vector<const std::string*> values;
      for (std::uint32_t id : lists) values.push_back(find_param(in_.op_work->params(id), key));
      columns_.emplace_back(values);
    }
  }

  // Groups by name, every parameter's string form and (--group_by_num_kernels) the number of
  // kernels, in order of first appearance; the key is made once per (name, parameter list,
  // kernels).
  std::size_t group_of(const model::OpWork& w, std::size_t num_kernels) {
    if (!in_.group_by_num_kernels) num_kernels = 0;
    const std::tuple id{in_.index->name_id(w.row), w.params, num_kernels};
    auto [cached, fresh] = group_by_ids_.try_emplace(id, 0);
    if (!fresh) return cached->second;
    std::string key(in_.index->name(w.row));
    const auto& params = in_.op_work->params(w.params);
    for (std::size_t k = 0; k < keys_.size(); ++k)
      key += '\x1f' + columns_[k].key(find_param(params, keys_[k]));
    key += '\x1f' + std::to_string(num_kernels);
    auto [it, inserted] = group_by_key_.try_emplace(std::move(key), groups_.size());
    if (inserted) groups_.emplace_back();
    cached->second = it->second;
    return it->second;
  }

  std::vector<Cell> cells(const SummaryGroup& g, bool roofline) {
    const index::EventIndex& index = *in_.index;
    std::vector<Cell> cells{std::string(index.name(g.uid_first))};
    for (std::size_t k = 0; k < keys_.size(); ++k)
      cells.push_back(columns_[k].cell(find_param(*g.params, keys_[k])));
    if (in_.group_by_num_kernels)
      cells.push_back(int_cell(static_cast<std::int64_t>(g.num_kernels)));
    cells.push_back(float_cell(g.gflops));
    cells.push_back(float_cell(g.moved));
    cells.push_back(float_cell(g.intensity));
    add_series(cells, g.tbs, false);
    add_series(cells, g.tflops, false);
    const HostNames& names = names_.of(g.uid_first);
    cells.emplace_back(names.process_name);
    cells.emplace_back(names.process_label);
    cells.emplace_back(names.thread_name);
    cells.emplace_back(g.compute_spec);
    if (roofline) {
      cells.push_back(float_cell(g.roof_time));
      cells.push_back(g.bound);
      add_series(cells, g.pct, false);
    }
    const auto summary = g.kernels.finish();
    cells.push_back(kernel_summary_repr(summary));
    cells.push_back(trunc_kernel_details_repr(summary));
    // Input Dims_first & co. print the raw lists: [[512], [141, 512], [], []].
    for (index::StringId arg : g.first_args) cells.emplace_back(list_reprs_.list_repr(arg));
    add_series(cells, g.kernel_time, true);
    cells.push_back(int_cell(static_cast<std::int64_t>(g.kernel_time.size())));
    cells.push_back(int_cell(g.uid_first));
    return cells;
  }

  const CategorySheetInputs& in_;
  const GpuSubtrees& subtrees_;
  const ModelPass pass_;
  text::ArgReprCache& list_reprs_;
  HostNamesCache& names_;
  model::RooflinePeaks roofline_;
  std::vector<std::string> keys_;
  std::vector<ParamColumn> columns_;
  std::vector<SummaryGroup> groups_;  // first-appearance order
  std::map<std::tuple<index::StringId, std::uint32_t, std::size_t>, std::size_t> group_by_ids_;
  std::unordered_map<std::string, std::size_t> group_by_key_;
  std::vector<Row> kernels_;      // scratch
  KernelDetails kernel_details_;  // scratch
};

// ---- fwd / bwd tables ----------------------------------------------------------------------

// Rows named in `names` go from `from` into the returned sheet (same columns).
template <std::size_t N>
SheetTable take_rows(SheetTable& from, const std::string_view (&names)[N]) {
  SheetTable taken;
  taken.columns = from.columns;
  std::erase_if(from.rows, [&](const std::vector<Cell>& row) {
    if (!among(names, row.front().display())) return false;
    taken.rows.push_back(row);
    return true;
  });
  return taken;
}

// pandas.concat: the columns of `a`, then the new ones of `b`; missing cells empty.
SheetTable concat(const SheetTable& a, const SheetTable& b) {
  SheetTable out = a;
  for (const std::string& c : b.columns)
    if (out.column_index(c) == out.columns.size()) out.columns.push_back(c);
  for (auto& row : out.rows) row.resize(out.columns.size());
  for (const auto& row : b.rows) {
    std::vector<Cell> cells(out.columns.size());
    for (std::size_t i = 0; i < b.columns.size(); ++i)
      cells[out.column_index(b.columns[i])] = row[i];
    out.rows.push_back(std::move(cells));
  }
  return out;
}

class FamilySheets {
 public:
  FamilySheets(const CategorySheetInputs& in, const GpuSubtrees& subtrees)
      : in_(in), subtrees_(subtrees), list_reprs_(in.index->strings()), names_(*in.index) {}

  void add(const std::string& family, const OpList& ops, std::vector<PerfSheet>& out) {
    SheetTable fwd = summarize(ops, ModelPass::kForward);
    if (among(kSingleSheetFamilies, family)) {
      emit(family, fwd, out);
      return;
    }
    std::optional<SheetTable> moved;
    if (!fwd.columns.empty()) moved = take_rows(fwd, kMovedToBackward);
    OpList bwd_ops;
    for (std::uint32_t op : ops)
      if (in_.index->name(in_.op_work->at(op).row) != kNoBackwardRows) bwd_ops.push_back(op);
    SheetTable bwd = summarize(bwd_ops, ModelPass::kBackward);
    if (moved) bwd = concat(bwd, *moved);
    take_rows(bwd, kRemovedFromBackward);
    emit(family + "_fwd", fwd, out);
    emit(family + "_bwd", bwd, out);
  }

 private:
  SheetTable summarize(const OpList& ops, ModelPass pass) {
    return SheetBuilder(in_, subtrees_, pass, list_reprs_, names_).build(ops);
  }

  static void emit(const std::string& name, const SheetTable& sheet, std::vector<PerfSheet>& out) {
    if (!sheet.rows.empty()) out.push_back({name, sheet});
  }

  const CategorySheetInputs& in_;
  const GpuSubtrees& subtrees_;
  text::ArgReprCache list_reprs_;
  HostNamesCache names_;
};

// Op instances per sheet family, families in registry order (unknown ones after, in order of
// appearance), instances in row (UID) order.
std::vector<std::pair<std::string, OpList>> families(const CategorySheetInputs& in) {
  std::vector<std::pair<std::string, OpList>> out;
  // The family depends on the answer's sheet and category texts only: look it up once per pair.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> family_of;  // kNone: no sheet
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  for (std::uint32_t op = 0; op < in.op_work->size(); ++op) {
    const model::OpWork w = in.op_work->at(op);
    if (!w.has_model || !in.tree->in_tree(w.row)) continue;
    auto [known, fresh] = family_of.try_emplace({w.sheet, w.category}, kNone);
    if (fresh) {
      const std::string family = in.op_work->sheet(w);
      if (family.empty() || family == kNoSheetFamily) continue;
      auto it = std::find_if(out.begin(), out.end(), [&](auto& f) { return f.first == family; });
      if (it == out.end()) it = out.insert(out.end(), {family, {}});
      known->second = static_cast<std::size_t>(it - out.begin());
    }
    if (known->second != kNone) out[known->second].second.push_back(op);
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

std::vector<PerfSheet> build_category_sheets(const CategorySheetInputs& in) {
  // GPU-only traces get no ops sheets (spec §8); without op models there is nothing to show.
  if (!in.op_work || is_gpu_only_trace(*in.index)) return {};
  const GpuSubtrees subtrees(*in.index, *in.tree, *in.links, in.fwd_bwd);
  return build_category_sheets(in, subtrees);
}

std::vector<PerfSheet> build_category_sheets(const CategorySheetInputs& in,
                                             const GpuSubtrees& subtrees) {
  std::vector<PerfSheet> out;
  if (!in.op_work || is_gpu_only_trace(*in.index)) return out;
  FamilySheets sheets(in, subtrees);
  for (const auto& [family, works] : families(in)) sheets.add(family, works, out);
  return out;
}

}  // namespace traceprism::perf_report
