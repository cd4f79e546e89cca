#include "comparison/report_diff.hpp"

#include <algorithm>
#include <iterator>
#include <set>
#include <stdexcept>

#include "comparison/frame_ops.hpp"

namespace traceprism::comparison {

namespace {

using Names = std::vector<std::string>;

// One sheet's comparison, as the reference configures it (SHEETS_COMPARE_CONFIG).
struct SheetSpec {
  std::string sheet;
  Names keys;
  Names diff_columns;        // the first one decides intersect / only-baseline / only-variant
  Names drop;                // from every report before merging
  Names drop_from_variants;  // from every report but the baseline
  std::string sort_column;   // descending by the baseline's; empty: merge order
};

const Names kOpKeys = {"name", "Input type", "Input Dims", "Input Strides", "Concrete Inputs"};

SheetSpec ops_summary_spec() {
  return {"ops_summary",
          {"name"},
          {"total_direct_kernel_time_ms", "Count"},
          {"total_direct_kernel_time_sum"},
          {"Cumulative Percentage (%)"},
          "total_direct_kernel_time_ms"};
}

SheetSpec kernel_summary_spec() {
  return {"kernel_summary",
          {"Kernel name"},
          {"Kernel duration (µs)_sum", "Kernel duration (µs)_mean", "Kernel duration (µs)_count"},
          {"Kernel duration (µs)_min", "Kernel duration (µs)_max", "Parent op category"},
          {"Cumulative Percentage (%)"},
          "Kernel duration (µs)_sum"};
}

// Older reports' kernel_summary, keyed by "name".
SheetSpec legacy_kernel_summary_spec() {
  return {"kernel_summary",
          {"name"},
          {"Total Kernel Time (ms)", "Mean Kernel Time (µs)", "Count"},
          {"Total Kernel Time (µs)", "Median Kernel Time (µs)", "Std Kernel Time (µs)",
           "Min Kernel Time (µs)", "Max Kernel Time (µs)", "Category"},
          {"Cumulative Percentage (%)"},
          "Total Kernel Time (ms)"};
}

std::vector<SheetSpec> ops_all_specs() {
  const Names unique_args_diffs = {"total_direct_kernel_time_sum", "total_direct_kernel_time_mean",
                                   "operation_count"};
  return {
      {"ops_all", kOpKeys, unique_args_diffs, {}, {}, "total_direct_kernel_time_sum"},  // legacy
      {"ops_unique_args", kOpKeys, unique_args_diffs, {}, {}, "total_direct_kernel_time_sum"},
      {"unified_perf_summary",
       kOpKeys,
       {"Kernel Time (µs)_sum", "Kernel Time (µs)_mean", "operation_count"},
       {},
       {},
       "Kernel Time (µs)_sum"},
  };
}

struct RooflineSheet {
  std::string sheet, short_name;
};

const std::vector<RooflineSheet> kRooflineSheets = {
    {"GEMM", "GEMM"},
    {"SDPA_fwd", "SDPA_fwd"},
    {"SDPA_bwd", "SDPA_bwd"},
    {"CONV_fwd", "CONV_fwd"},
    {"CONV_bwd", "CONV_bwd"},
    {"UnaryElementwise", "un_eltwise"},
    {"BinaryElementwise", "bin_eltwise"},
};

// The perf-model columns every report has alike; the reference keeps the baseline's only.
const Names kRooflineBaselineOnly = {
    "GFLOPS_first",     "Data Moved (MB)_first", "FLOPS/Byte_first",      "Input type_first",
    "Input Dims_first", "Input Strides_first",   "Concrete Inputs_first",
};

const Names kRooflineDiffs = {"Kernel Time (µs)_sum", "Kernel Time (µs)_mean", "name_count",
                              "TFLOPS/s_mean", "TB/s_mean"};

bool contains(const Names& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The variant tag of a "<column>__<tag>_diff" / "_pct" column, as the reference's
// r"__(.+?)_(diff|pct)$" finds it; empty when the name is no such column.
std::string diff_column_tag(const std::string& name) {
  std::size_t suffix = std::string::npos;
  for (const char* s : {"_diff", "_pct"}) {
    const std::string ending(s);
    if (name.size() > ending.size() && name.ends_with(ending)) suffix = name.size() - ending.size();
  }
  if (suffix == std::string::npos) return {};
  for (std::size_t at = name.find("__"); at != std::string::npos && at + 2 < suffix;
       at = name.find("__", at + 1))
    return name.substr(at + 2, suffix - at - 2);
  return {};
}

FrameColumn difference(const FrameColumn& variant, const FrameColumn& base, std::string name) {
  FrameColumn out{std::move(name), ColumnType::kReal, {}};
  const bool integers = variant.type == ColumnType::kInteger && base.type == ColumnType::kInteger;
  if (integers) out.type = ColumnType::kInteger;
  out.values.reserve(base.values.size());
  for (std::size_t r = 0; r < base.values.size(); ++r) {
    const FrameValue &v = variant.values[r], &b = base.values[r];
    if (integers)
      out.values.push_back(FrameValue::of_integer(v.integer - b.integer));
    else if (v.is_number() && b.is_number())
      out.values.push_back(FrameValue::of_real(v.number() - b.number()));
    else
      out.values.emplace_back();
  }
  return out;
}

// 100 * (diff / base), NaN where the baseline is 0 or NaN (the reference's replace({0: pd.NA})).
FrameColumn percent(const FrameColumn& diff, const FrameColumn& base, std::string name) {
  FrameColumn out{std::move(name), ColumnType::kReal, {}};
  out.values.reserve(base.values.size());
  for (std::size_t r = 0; r < base.values.size(); ++r) {
    const FrameValue &d = diff.values[r], &b = base.values[r];
    if (d.is_number() && b.is_number() && b.number() != 0)
      out.values.push_back(FrameValue::of_real(100 * (d.number() / b.number())));
    else
      out.values.emplace_back();
  }
  return out;
}

// build_df_dff: prefix, outer-merge, add the diff / pct columns, order keys, diffs, the rest.
SheetFrame merged_with_differences(std::vector<SheetFrame> frames, const Names& tags,
                                   const Names& keys, const Names& diff_columns) {
  for (std::size_t i = 0; i < frames.size(); ++i) prefix_columns(frames[i], tags[i], keys);
  SheetFrame merged = std::move(frames[0]);
  for (std::size_t i = 1; i < frames.size(); ++i) merged = outer_merge(merged, frames[i], keys);
  std::vector<FrameColumn> diffs;
  for (const std::string& column : diff_columns) {
    const FrameColumn* base = merged.find(tags[0] + "::" + column);
    for (std::size_t t = 1; t < tags.size(); ++t) {
      const FrameColumn* variant = merged.find(tags[t] + "::" + column);
      if (base == nullptr || variant == nullptr) continue;
      FrameColumn diff = difference(*variant, *base, column + "__" + tags[t] + "_diff");
      FrameColumn pct = percent(diff, *base, column + "__" + tags[t] + "_pct");
      diffs.push_back(std::move(diff));
      diffs.push_back(std::move(pct));
    }
  }
  auto is_key = [&](const FrameColumn& c) { return contains(keys, c.name); };
  auto rest = std::stable_partition(merged.columns.begin(), merged.columns.end(), is_key);
  const auto keys_end = rest - merged.columns.begin();
  merged.columns.insert(merged.columns.begin() + keys_end, std::make_move_iterator(diffs.begin()),
                        std::make_move_iterator(diffs.end()));
  return merged;
}

// _strip_other_tags: keys, the kept tags' columns and diffs, then no all-NaN column.
SheetFrame strip_other_tags(const SheetFrame& frame, const std::set<std::string>& kept) {
  Names columns;
  for (const FrameColumn& c : frame.columns) {
    const std::size_t sep = c.name.find("::");
    const std::string diff_tag = diff_column_tag(c.name);
    if (sep != std::string::npos) {
      if (kept.count(c.name.substr(0, sep))) columns.push_back(c.name);
    } else if (diff_tag.empty() || kept.count(diff_tag)) {
      columns.push_back(c.name);
    }
  }
  SheetFrame out = select_columns(frame, columns);
  drop_all_missing_columns(out);
  return out;
}

class ReportDiffBuilder {
 public:
  explicit ReportDiffBuilder(const std::vector<TaggedReport>& reports) : reports_(reports) {
    for (const TaggedReport& r : reports) tags_.push_back(r.tag);
  }

  void gpu_timeline() {
    if (auto frames = load("gpu_timeline", true))
      if (has_keys(*frames, "gpu_timeline", {"type"}))
        add("gpu_timeline",
            merged_with_differences(std::move(*frames), tags_, {"type"}, {"time ms"}));
  }

  void summary(SheetSpec spec) {
    auto frames = load(spec.sheet, true);
    if (!frames) return;
    if (spec.sheet == "kernel_summary" && !(*frames)[0].find(spec.keys[0]))
      spec = legacy_kernel_summary_spec();
    if (!has_keys(*frames, spec.sheet, spec.keys)) return;
    drop_unneeded(*frames, spec);
    SheetFrame diff =
        merged_with_differences(std::move(*frames), tags_, spec.keys, spec.diff_columns);
    sort_rows_descending(diff, tags_[0] + "::" + spec.sort_column);
    add(spec.sheet, std::move(diff));
  }

  void ops_all() {
    for (const SheetSpec& spec : ops_all_specs()) {
      auto frames = load(spec.sheet, false);
      if (!frames || !has_keys(*frames, spec.sheet, spec.keys)) continue;
      SheetFrame diff =
          merged_with_differences(std::move(*frames), tags_, spec.keys, spec.diff_columns);
      split(spec.sheet, diff, spec.diff_columns[0], spec.sort_column);
    }
  }

  void roofline() {
    for (const RooflineSheet& r : kRooflineSheets) {
      auto frames = load(r.sheet, false);
      if (!frames) continue;
      for (std::size_t i = 1; i < frames->size(); ++i)
        drop_columns((*frames)[i], kRooflineBaselineOnly);
      if (std::any_of(frames->begin(), frames->end(),
                      [](const SheetFrame& f) { return f.empty(); })) {
        skip(r.sheet + ": not compared, as a report's sheet has no rows.");
        continue;
      }
      const Names keys = roofline_keys(*frames);
      SheetFrame diff = merged_with_differences(std::move(*frames), tags_, keys, kRooflineDiffs);
      split(r.short_name, diff, kRooflineDiffs[0], kRooflineDiffs[0]);
    }
  }

  ReportDiff result() && { return std::move(result_); }

 private:
  void add(std::string name, SheetFrame frame) {
    result_.sheets.push_back({std::move(name), std::move(frame)});
  }
  void skip(std::string sentence) { result_.skipped.push_back(std::move(sentence)); }

  // Every report's sheet; nullopt when one lacks it. A sheet the baseline lacks is reported only
  // when `expected` (the reference fails there; optional sheets it skips quietly).
  std::optional<std::vector<SheetFrame>> load(const std::string& sheet, bool expected) {
    std::vector<SheetFrame> frames;
    for (std::size_t i = 0; i < reports_.size(); ++i) {
      std::optional<SheetFrame> frame = reports_[i].sheets(sheet);
      if (!frame) {
        if (i > 0 || expected)
          skip(sheet + ": not compared, as report '" + tags_[i] + "' has no such sheet.");
        return std::nullopt;
      }
      frames.push_back(std::move(*frame));
    }
    return frames;
  }

  bool has_keys(const std::vector<SheetFrame>& frames, const std::string& sheet,
                const Names& keys) {
    for (std::size_t i = 0; i < frames.size(); ++i)
      for (const std::string& key : keys)
        if (!frames[i].find(key)) {
          skip(sheet + ": not compared, as report '" + tags_[i] + "' has no column '" + key + "'.");
          return false;
        }
    return true;
  }

  static void drop_unneeded(std::vector<SheetFrame>& frames, const SheetSpec& spec) {
    for (std::size_t i = 0; i < frames.size(); ++i) {
      drop_columns(frames[i], spec.drop);
      if (i > 0) drop_columns(frames[i], spec.drop_from_variants);
    }
  }

  // name and the perf-model parameters ("param: M", ...) every report has, in sorted order.
  static Names roofline_keys(const std::vector<SheetFrame>& frames) {
    Names params;
    for (const FrameColumn& c : frames[0].columns)
      if (c.name.starts_with("param:") &&
          std::all_of(frames.begin(), frames.end(),
                      [&](const SheetFrame& f) { return f.find(c.name) != nullptr; }))
        params.push_back(c.name);
    std::sort(params.begin(), params.end());
    params.insert(params.begin(), "name");
    return params;
  }

  // split_df_diff: per variant, the rows both have (by the first diff column), the rows only
  // the baseline has and the rows only the variant has, each with its tags' columns only.
  void split(const std::string& name, const SheetFrame& diff, const std::string& diff_column,
             const std::string& sort_column) {
    const std::string& base_tag = tags_[0];
    const FrameColumn* base = diff.find(base_tag + "::" + diff_column);
    for (std::size_t t = 1; t < tags_.size(); ++t) {
      const std::string& tag = tags_[t];
      const FrameColumn* variant = diff.find(tag + "::" + diff_column);
      if (base == nullptr || variant == nullptr) {
        skip(name + ": not compared with '" + tag + "', as a report has no column '" + diff_column +
             "'.");
        continue;
      }
      auto has = [](const FrameColumn* c, std::size_t r) { return !c->values[r].missing(); };
      add_part(name + "_intersect_" + tag,
               select_rows(diff, [&](std::size_t r) { return has(base, r) && has(variant, r); }),
               base_tag + "::" + sort_column, {base_tag, tag});
      add_part(name + "_only_baseline_" + tag,
               select_rows(diff, [&](std::size_t r) { return has(base, r) && !has(variant, r); }),
               base_tag + "::" + sort_column, {base_tag});
      add_part(name + "_only_variant_" + tag,
               select_rows(diff, [&](std::size_t r) { return !has(base, r) && has(variant, r); }),
               tag + "::" + sort_column, {tag});
    }
  }

  void add_part(std::string name, SheetFrame rows, const std::string& sort_column,
                const std::set<std::string>& kept_tags) {
    sort_rows_descending(rows, sort_column);
    add(std::move(name), strip_other_tags(rows, kept_tags));
  }

  const std::vector<TaggedReport>& reports_;
  Names tags_;
  ReportDiff result_;
};

}  // namespace

std::optional<std::vector<SheetGroup>> parse_sheet_groups(const std::vector<std::string>& names) {
  const std::vector<std::pair<std::string, SheetGroup>> known = {
      {"gpu_timeline", SheetGroup::kGpuTimeline},
      {"ops_summary", SheetGroup::kOpsSummary},
      {"kernel_summary", SheetGroup::kKernelSummary},
      {"ops_all", SheetGroup::kOpsAll},
      {"roofline", SheetGroup::kRoofline}};
  std::vector<SheetGroup> groups;
  for (const std::string& name : names) {
    if (name == "all") {
      for (const auto& [_, group] : known) groups.push_back(group);
      continue;
    }
    auto it =
        std::find_if(known.begin(), known.end(), [&](const auto& k) { return k.first == name; });
    if (it == known.end()) return std::nullopt;
    groups.push_back(it->second);
  }
  return groups;
}

ReportDiff diff_perf_reports(const std::vector<TaggedReport>& reports,
                             const std::vector<SheetGroup>& groups) {
  if (reports.size() < 2) throw std::invalid_argument("comparing reports needs at least two.");
  std::set<std::string> tags;
  for (const TaggedReport& r : reports)
    if (!tags.insert(r.tag).second)
      throw std::invalid_argument("two reports are both named '" + r.tag +
                                  "'; give each a distinct name.");
  auto wanted = [&](SheetGroup g) {
    return std::find(groups.begin(), groups.end(), g) != groups.end();
  };
  ReportDiffBuilder builder(reports);
  if (wanted(SheetGroup::kGpuTimeline)) builder.gpu_timeline();
  if (wanted(SheetGroup::kOpsSummary)) builder.summary(ops_summary_spec());
  if (wanted(SheetGroup::kKernelSummary)) builder.summary(kernel_summary_spec());
  if (wanted(SheetGroup::kOpsAll)) builder.ops_all();
  if (wanted(SheetGroup::kRoofline)) builder.roofline();
  return std::move(builder).result();
}

}  // namespace traceprism::comparison
