#include "comparison/diff_stats.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <span>

#include "index/event_kind.hpp"
#include "model/kernel_launchers.hpp"
#include "perf_report/gpu_subtrees.hpp"
#include "perf_report/ops_sheets.hpp"
#include "text/csv_sheet.hpp"
#include "text/python_repr.hpp"

namespace traceprism::comparison {

namespace {

using index::EventKind;
using index::Row;

// The reference counts kernels and copies as GPU leaves of a divergence point, not memsets.
bool is_kernel(const index::EventIndex& index, Row r) {
  const EventKind k = index.kind(r);
  return k == EventKind::kKernel || k == EventKind::kGpuMemcpy;
}

// pandas DataFrame.round(3): numpy's round half to even on the scaled value.
double round3(double v) {
  return std::nearbyint(v * 1000.0) / 1000.0;
}

// The name with every "(<digits>)" removed (the reference's re.sub(r"\(\d+\)", "", name)).
std::string without_counters(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '(') {
      std::size_t j = i + 1;
      while (j < name.size() && name[j] >= '0' && name[j] <= '9') ++j;
      if (j > i + 1 && j < name.size() && name[j] == ')') {
        i = j;
        continue;
      }
    }
    out += name[i];
  }
  return out;
}

// One trace as the walk needs it: GPU path, gpu_events, the launch's cpu_op.
class Side {
 public:
  explicit Side(const DiffSide& s)
      : s_(s), subtrees_(s.index, s.tree, s.links, nullptr), gpu_(s.index.size(), false) {
    for (std::size_t g = 0; g < s.index.size(); ++g)
      gpu_[g] = index::is_gpu_kind(s.index.kind(static_cast<Row>(g)));
  }
  bool gpu_path(std::int64_t r) const {
    if (r < 0) return false;
    return gpu_[r] || subtrees_.has_gpu_events(static_cast<Row>(r));
  }
  std::vector<Row> gpu_events(Row r) const {
    if (gpu_[r]) return {};
    return subtrees_.gpu_events(r);
  }
  const index::EventIndex& index() const { return s_.index; }
  // The nearest cpu_op above a GPU event's launch, or -1.
  std::int64_t cpu_op_of(Row gpu) const {
    for (std::int32_t up = s_.links.launcher(gpu); up >= 0;
         up = s_.tree.parent(static_cast<Row>(up)))
      if (s_.index.kind(static_cast<Row>(up)) == EventKind::kCpuOp) return up;
    return -1;
  }

 private:
  const DiffSide& s_;
  perf_report::GpuSubtrees subtrees_;
  std::vector<bool> gpu_;
};

class DiffStatsWalk {
 public:
  DiffStatsWalk(const MergedTree& merged, const DiffSide& one, const DiffSide& two)
      : merged_(merged), one_(one), two_(two) {}

  DiffStats run() {
    for (std::uint32_t root : merged_.roots) visit(root, std::nullopt);
    return std::move(out_);
  }

 private:
  void visit(std::uint32_t id, std::optional<std::uint32_t> combined_parent) {
    if (visited_.count(id)) return;
    const MergedNode& node = merged_.nodes[id];
    if (!node.combined()) return visit_one_sided(id, node, combined_parent);
    if (one_.gpu_path(node.row1) && two_.gpu_path(node.row2)) add_divergence(id, node);
    if (one_.gpu_path(node.row1) || two_.gpu_path(node.row2))
      for (std::uint32_t c : merged_.children(node)) visit(c, id);
  }

  // A combined node on both GPU paths whose GPU-path children are not all combined, or a pair
  // of kernels: its events on each side are one diff.
  void add_divergence(std::uint32_t id, const MergedNode& node) {
    std::vector<std::uint32_t> only1, only2;
    for (std::uint32_t c : merged_.children(node)) {
      const MergedNode& child = merged_.nodes[c];
      if (child.combined()) continue;
      if (one_.gpu_path(child.row1)) only1.push_back(c);
      if (two_.gpu_path(child.row2)) only2.push_back(c);
    }
    const Row e1 = static_cast<Row>(node.row1), e2 = static_cast<Row>(node.row2);
    const bool kernel_pair = is_kernel(one_.index(), e1) && is_kernel(two_.index(), e2);
    if (only1.empty() && only2.empty() && !kernel_pair) return;
    const std::string name1 = without_counters(one_.index().name(e1));
    const std::string name2 = without_counters(two_.index().name(e2));
    const std::string lca = name1 == name2 ? name1 : name1 + " | " + name2;
    add_rows(events_below(one_, only1, true, e1), one_, 1, lca, id);
    add_rows(events_below(two_, only2, false, e2), two_, 2, lca, id);
    visited_.insert(id);
    visited_.insert(only1.begin(), only1.end());
    visited_.insert(only2.begin(), only2.end());
  }

  std::vector<Row> events_below(const Side& side, const std::vector<std::uint32_t>& children,
                                bool first, Row self) const {
    std::vector<Row> out;
    for (std::uint32_t c : children) {
      const MergedNode& child = merged_.nodes[c];
      const Row r = static_cast<Row>(first ? child.row1 : child.row2);
      for (Row g : side.gpu_events(r)) out.push_back(g);
      if (is_kernel(side.index(), r)) out.push_back(r);
    }
    if (is_kernel(side.index(), self)) out.push_back(self);
    return out;
  }

  // A node of one trace only: its GPU events, under the nearest combined ancestor.
  void visit_one_sided(std::uint32_t id, const MergedNode& node,
                       std::optional<std::uint32_t> parent_id) {
    visited_.insert(id);
    const bool first = node.row1 >= 0;
    const Side& side = first ? one_ : two_;
    const std::int64_t r = first ? node.row1 : node.row2;
    if (!side.gpu_path(r)) return;
    std::optional<std::string> lca;
    std::optional<std::uint32_t> lca_id;
    if (parent_id) {
      const MergedNode& parent = merged_.nodes[*parent_id];
      lca =
          without_counters(side.index().name(static_cast<Row>(first ? parent.row1 : parent.row2)));
      lca_id = parent_id;
    }
    add_rows(side.gpu_events(static_cast<Row>(r)), side, first ? 1 : 2, lca, lca_id);
  }

  void add_rows(const std::vector<Row>& events, const Side& side, int source,
                const std::optional<std::string>& lca, std::optional<std::uint32_t> lca_id) {
    if (events.empty()) return;
    const double busy = round3(model::busy_time_us(side.index(), events));
    std::int32_t lca_index = -1;
    if (lca_id) {
      lca_index = static_cast<std::int32_t>(out_.lcas.size());
      out_.lcas.push_back({*lca_id, lca.value_or("")});
    }
    for (Row g : events) {
      const std::int64_t op = side.cpu_op_of(g);
      if (op < 0) continue;
      DiffStatsRow row;
      row.gpu_event = g;
      row.cpu_op = static_cast<Row>(op);
      row.source = static_cast<std::uint8_t>(source);
      row.lca = lca_index;
      row.kernel_time_us = perf_report::raw_dur_us(side.index(), g);
      row.busy_time_us = busy;
      out_.rows.push_back(row);
    }
  }

  const MergedTree& merged_;
  Side one_, two_;
  std::set<std::uint32_t> visited_;
  DiffStats out_;
};

// An op's shape arg as diff_stats prints it: the tuple repr, '' when absent.
class ArgCells {
 public:
  explicit ArgCells(const index::EventIndex& index) : index_(index), reprs_(index.strings()) {}
  std::string cell(Row op, index::StringId index::OpArgs::*field) {
    const std::optional<index::OpArgs> args = index_.op_args(op);
    if (!args || (*args).*field == index::kNoString) return "";
    return std::string(reprs_.tuple_repr((*args).*field));
  }

 private:
  const index::EventIndex& index_;
  text::ArgReprCache reprs_;
};

}  // namespace

DiffStats diff_stats(const MergedTree& merged, const DiffSide& trace1, const DiffSide& trace2) {
  return DiffStatsWalk(merged, trace1, trace2).run();
}

void write_diff_stats_csv(const DiffStats& stats, const index::EventIndex& trace1,
                          const index::EventIndex& trace2,
                          const std::function<void(std::string_view)>& write) {
  // A row without an LCA makes pandas hold the id column as floats.
  const bool float_ids = std::any_of(stats.rows.begin(), stats.rows.end(),
                                     [](const DiffStatsRow& r) { return r.lca < 0; });
  constexpr std::size_t kChunk = 8192;
  text::CsvSheet sheet;
  sheet.columns = {"name",
                   "cpu_op_name",
                   "cpu_op_uid",
                   "source",
                   "Input Dims",
                   "Input Strides",
                   "Input type",
                   "Concrete Inputs",
                   "kernel_time",
                   "busy_time",
                   "lowest_common_ancestor_name",
                   "lowest_common_ancestor_id",
                   "gpu_op_uid",
                   "nn_module_stack",
                   "nn_module_parent"};
  ArgCells args1(trace1), args2(trace2);
  bool header = true;
  auto flush = [&] {
    const std::string csv = sheet.to_csv();
    write(header ? std::string_view(csv) : std::string_view(csv).substr(csv.find('\n') + 1));
    header = false;
    sheet.rows.clear();
  };
  for (const DiffStatsRow& r : stats.rows) {
    const index::EventIndex& index = r.source == 1 ? trace1 : trace2;
    ArgCells& args = r.source == 1 ? args1 : args2;
    const DiffStatsLca* lca = stats.lca_of(r);
    std::string id;
    if (lca)
      id = float_ids ? text::float_cell(static_cast<double>(lca->id))
                     : text::int_cell(static_cast<std::int64_t>(lca->id));
    sheet.rows.push_back(
        {std::string(index.name(r.gpu_event)), std::string(index.name(r.cpu_op)),
         text::int_cell(static_cast<std::int64_t>(r.cpu_op)), r.source == 1 ? "trace1" : "trace2",
         args.cell(r.cpu_op, &index::OpArgs::input_dims),
         args.cell(r.cpu_op, &index::OpArgs::input_strides),
         args.cell(r.cpu_op, &index::OpArgs::input_types),
         args.cell(r.cpu_op, &index::OpArgs::concrete_inputs), text::float_cell(r.kernel_time_us),
         text::float_cell(r.busy_time_us), lca ? lca->name : std::string(), id,
         text::int_cell(static_cast<std::int64_t>(r.gpu_event)),
         // The tree keeps no nn.Module stack without python frames: the
         // reference's empty stack.
         "root", "root"});
    if (sheet.rows.size() == kChunk) flush();
  }
  if (header || !sheet.rows.empty()) flush();
}

std::string diff_stats_csv(const DiffStats& stats, const index::EventIndex& trace1,
                           const index::EventIndex& trace2) {
  std::string out;
  write_diff_stats_csv(stats, trace1, trace2, [&](std::string_view chunk) { out += chunk; });
  return out;
}

void add_lca_columns(perf_report::UnifiedPerfTable& table, const DiffStats& stats) {
  // Dense arrays by GPU row and by merged id: a trace of millions of kernels has as many rows.
  std::vector<std::int32_t> group_of;
  for (std::size_t g = 0; g < table.groups.size(); ++g)
    for (Row e : table.groups[g].gpu_events) {
      if (e >= group_of.size()) group_of.resize(static_cast<std::size_t>(e) + 1, -1);
      group_of[e] = static_cast<std::int32_t>(g);
    }
  const bool float_ids = std::any_of(stats.rows.begin(), stats.rows.end(),
                                     [](const DiffStatsRow& r) { return r.lca < 0; });
  // Per LCA (ascending, as pandas groups): trace 1's rows in order, trace 2's busy time.
  std::uint32_t ids = 0;
  for (const DiffStatsLca& l : stats.lcas) ids = std::max(ids, l.id + 1);
  std::vector<std::uint32_t> begin(ids + 1, 0);
  std::vector<double> trace2_busy(ids, -1);
  for (const DiffStatsRow& r : stats.rows) {
    const DiffStatsLca* lca = stats.lca_of(r);
    if (!lca) continue;
    if (r.source == 1)
      ++begin[lca->id + 1];
    else if (trace2_busy[lca->id] < 0)
      trace2_busy[lca->id] = r.busy_time_us;
  }
  for (std::uint32_t i = 0; i < ids; ++i) begin[i + 1] += begin[i];
  std::vector<const DiffStatsRow*> by_lca(begin.back());
  {
    std::vector<std::uint32_t> next(begin.begin(), begin.end() - 1);
    for (const DiffStatsRow& r : stats.rows)
      if (const DiffStatsLca* lca = stats.lca_of(r); lca && r.source == 1)
        by_lca[next[lca->id]++] = &r;
  }
  struct Meta {
    std::vector<std::uint32_t> ids;
    std::vector<std::string> names;
    perf_report::LcaColumns columns;
  };
  std::map<std::size_t, Meta> meta;
  for (std::uint32_t lca = 0; lca < ids; ++lca) {
    if (begin[lca] == begin[lca + 1]) continue;
    const std::span<const DiffStatsRow* const> members(by_lca.data() + begin[lca],
                                                       begin[lca + 1] - begin[lca]);
    const bool in_trace2 = trace2_busy[lca] >= 0;
    const double t1_us = members.front()->busy_time_us;
    const double t2_us = in_trace2 ? trace2_busy[lca] : 0.0;
    const std::string& name = stats.lca_of(*members.front())->name;
    std::vector<std::int32_t> seen;
    for (const DiffStatsRow* r : members) {
      const std::int32_t g = r->gpu_event < group_of.size() ? group_of[r->gpu_event] : -1;
      if (g < 0 || std::find(seen.begin(), seen.end(), g) != seen.end()) continue;
      seen.push_back(g);
      Meta& m = meta[static_cast<std::size_t>(g)];
      if (std::find(m.ids.begin(), m.ids.end(), lca) != m.ids.end()) continue;
      m.ids.push_back(lca);
      if (!name.empty()) m.names.push_back(name);
      m.columns.trace1_us += t1_us;
      m.columns.trace2_us += t2_us;
      m.columns.count_trace2 += in_trace2 ? 1 : 0;
    }
  }
  for (auto& [g, m] : meta) {
    for (std::size_t k = 0; k < m.ids.size(); ++k) {
      if (k) m.columns.ids += "; ";
      m.columns.ids += float_ids ? text::float_cell(m.ids[k])
                                 : text::int_cell(static_cast<std::int64_t>(m.ids[k]));
    }
    for (std::size_t k = 0; k < m.names.size(); ++k)
      m.columns.names += (k ? "; " : "") + m.names[k];
    table.groups[g].lca = m.columns;
  }
  table.has_lca_columns = !meta.empty();
}

}  // namespace traceprism::comparison
