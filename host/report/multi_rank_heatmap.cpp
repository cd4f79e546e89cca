#include "report/multi_rank_heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <string_view>
#include <vector>

#include "report/svg_text.hpp"

namespace traceprism::report {
namespace {

using HeatRow = pipeline::MultiRankFacts::HeatRow;

// More rows than this: one row per node (and, past that many nodes, runs of nodes).
constexpr std::size_t kMaxRows = 64;

// The dark ends of the two scales (white is 0%): dark blue for computation, dark red for
// communication. Cells interpolate linearly in sRGB, as the legend's gradient does.
struct Rgb {
  int r, g, b;
};
constexpr Rgb kComputeEnd{0x1a, 0x52, 0x76};  // #1a5276
constexpr Rgb kCommEnd{0x7b, 0x24, 0x1c};     // #7b241c
constexpr const char* kNoDataColour = "#d5d8dc";
constexpr const char* kInkColour = "#333333";

// Layout in SVG user units. Each panel is at least kPanelMinWidth wide; a cell is at least
// kMinCellWidth wide, so many bins widen the panels instead of thinning the cells.
constexpr double kLeft = 260, kPanelMinWidth = 400, kMinCellWidth = 4, kPanelGap = 60;
constexpr double kRightMargin = 30, kRowHeight = 14, kGridTop = 96;
constexpr double kLegendWidth = 160, kLegendHeight = 10;

std::string num(double v, int decimals = 2) {
  return svg_number(v, decimals);
}

std::string hex(Rgb c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

// White at 0%, `end` at 100%; `percent` already within 0-100.
std::string shade(double percent, Rgb end) {
  const double t = percent / 100;
  const auto channel = [t](int to) { return static_cast<int>(std::lround(255 + (to - 255) * t)); };
  return hex({channel(end.r), channel(end.g), channel(end.b)});
}

bool has_steps(const HeatRow& r) {
  return !r.compute_percent.empty() || !r.comm_percent.empty();
}

// The per-bin mean over the members' values (NaN where no member has a value for the bin);
// empty when no member has any values.
std::vector<double> mean_values(const std::vector<const HeatRow*>& members, bool compute) {
  std::size_t bins = 0;
  for (const HeatRow* m : members)
    bins = std::max(bins, (compute ? m->compute_percent : m->comm_percent).size());
  std::vector<double> out;
  for (std::size_t b = 0; b < bins; ++b) {
    double sum = 0;
    std::size_t count = 0;
    for (const HeatRow* m : members) {
      const std::vector<double>& v = compute ? m->compute_percent : m->comm_percent;
      if (b >= v.size() || !std::isfinite(v[b])) continue;
      sum += std::clamp(v[b], 0.0, 100.0);
      ++count;
    }
    out.push_back(count > 0 ? sum / static_cast<double>(count)
                            : std::numeric_limits<double>::quiet_NaN());
  }
  return out;
}

struct Row {
  std::string label;
  bool slow = false;  // holds one of the slowest ranks
  std::vector<double> compute, comm;
};

bool any_slow(const std::vector<const HeatRow*>& members,
              const std::vector<std::int32_t>& slowest) {
  for (const HeatRow* m : members)
    if (std::find(slowest.begin(), slowest.end(), m->rank) != slowest.end()) return true;
  return false;
}

Row row_of(const std::vector<const HeatRow*>& members, std::string label,
           const std::vector<std::int32_t>& slowest) {
  return {std::move(label), any_slow(members, slowest), mean_values(members, true),
          mean_values(members, false)};
}

std::string ranks_suffix(const std::vector<const HeatRow*>& members) {
  std::size_t without = 0;
  for (const HeatRow* m : members)
    if (!has_steps(*m)) ++without;
  std::string s =
      " (" + std::to_string(members.size()) + (members.size() == 1 ? " rank" : " ranks");
  if (without > 0) s += ", " + std::to_string(without) + " without steps";
  return s + ")";
}

// One row per rank (ascending), or per node / run of nodes beyond kMaxRows ranks.
std::vector<Row> rows_of(const pipeline::MultiRankFacts& facts, bool& by_node) {
  std::vector<const HeatRow*> sorted;
  for (const HeatRow& r : facts.heat_rows) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const HeatRow* a, const HeatRow* b) { return a->rank < b->rank; });
  std::vector<Row> rows;
  by_node = sorted.size() > kMaxRows;
  if (!by_node) {
    for (const HeatRow* r : sorted) {
      std::string label = "rank " + std::to_string(r->rank);
      if (r->rank == facts.focus_rank) label += " (focus)";
      rows.push_back(row_of({r}, std::move(label), facts.slowest_ranks));
    }
    return rows;
  }
  std::map<std::int32_t, std::vector<const HeatRow*>> known;  // ascending node
  std::vector<const HeatRow*> unknown;                        // node < 0, one row, last
  for (const HeatRow* r : sorted) (r->node < 0 ? unknown : known[r->node]).push_back(r);
  const std::size_t limit = kMaxRows - (unknown.empty() ? 0 : 1);
  const std::size_t per_row = (known.size() + limit - 1) / limit;  // nodes merged per row
  std::vector<std::int32_t> run_nodes;
  std::vector<const HeatRow*> run;
  const auto flush = [&] {
    if (run_nodes.empty()) return;
    const std::string label = run_nodes.size() == 1
                                  ? "node " + std::to_string(run_nodes.front())
                                  : "nodes " + std::to_string(run_nodes.front()) + "\xE2\x80\x93" +
                                        std::to_string(run_nodes.back());
    rows.push_back(row_of(run, label + ranks_suffix(run), facts.slowest_ranks));
    run_nodes.clear();
    run.clear();
  };
  for (const auto& [node, members] : known) {
    run_nodes.push_back(node);
    run.insert(run.end(), members.begin(), members.end());
    if (run_nodes.size() == per_row) flush();
  }
  flush();
  if (!unknown.empty())
    rows.push_back(row_of(unknown, "node ?" + ranks_suffix(unknown), facts.slowest_ranks));
  return rows;
}

std::string title_of(const pipeline::MultiRankFacts& facts) {
  const std::size_t n = facts.ranks_analyzed > 0 ? facts.ranks_analyzed : facts.heat_rows.size();
  std::string t = "Per-rank GPU activity across the step (" + std::to_string(n);
  if (facts.world_size > 0 && static_cast<std::size_t>(facts.world_size) > n)
    t += " of " + std::to_string(facts.world_size);
  t += n == 1 ? " rank" : " ranks";
  if (facts.focus_rank >= 0) t += "; focus rank " + std::to_string(facts.focus_rank);
  return t + ")";
}

struct Panel {
  const char* title;
  const char* gradient_id;
  Rgb end;
  bool compute;
  double left;
};

void write_panel(std::string& svg, const Panel& p, const std::vector<Row>& rows, std::size_t bins,
                 double panel_width, double cell_width) {
  const double grid_bottom = kGridTop + static_cast<double>(rows.size()) * kRowHeight;
  const double centre = p.left + panel_width / 2;
  svg += "<text x=\"" + num(centre) + "\" y=\"" + num(kGridTop - 10) +
         "\" font-size=\"14\" text-anchor=\"middle\">" + xml_escape(p.title) + "</text>\n";
  svg += "<g shape-rendering=\"crispEdges\">\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double y = kGridTop + static_cast<double>(i) * kRowHeight;
    const std::vector<double>& values = p.compute ? rows[i].compute : rows[i].comm;
    if (values.empty()) {
      svg += "<rect class=\"nosteps\" x=\"" + num(p.left) + "\" y=\"" + num(y) + "\" width=\"" +
             num(panel_width) + "\" height=\"" + num(kRowHeight) + "\" fill=\"" + kNoDataColour +
             "\"/>\n";
      svg += "<text x=\"" + num(centre) + "\" y=\"" + num(y + 10.5) +
             "\" font-size=\"10\" text-anchor=\"middle\" fill=\"#555555\">no steps</text>\n";
      continue;
    }
    for (std::size_t b = 0; b < bins; ++b) {
      const double x = p.left + static_cast<double>(b) * cell_width;
      const bool known = b < values.size() && std::isfinite(values[b]);
      svg += std::string("<rect class=\"") + (known ? "cell" : "gap") + "\" x=\"" + num(x) +
             "\" y=\"" + num(y) + "\" width=\"" + num(cell_width) + "\" height=\"" +
             num(kRowHeight) + "\" fill=\"" +
             (known ? shade(std::clamp(values[b], 0.0, 100.0), p.end) : kNoDataColour) + "\"/>\n";
    }
  }
  svg += "</g>\n";
  svg += "<rect x=\"" + num(p.left) + "\" y=\"" + num(kGridTop) + "\" width=\"" + num(panel_width) +
         "\" height=\"" + num(grid_bottom - kGridTop) + "\" fill=\"none\" stroke=\"" + kInkColour +
         "\" stroke-width=\"1\"/>\n";
  // The x axis: step progress at quarters.
  for (int q = 0; q <= 4; ++q) {
    const double x = p.left + panel_width * q / 4;
    svg += "<line x1=\"" + num(x) + "\" y1=\"" + num(grid_bottom) + "\" x2=\"" + num(x) +
           "\" y2=\"" + num(grid_bottom + 5) + "\" stroke=\"" + kInkColour +
           "\" stroke-width=\"1\"/>\n";
    svg += "<text x=\"" + num(x) + "\" y=\"" + num(grid_bottom + 18) +
           "\" font-size=\"11\" text-anchor=\"middle\">" + std::to_string(q * 25) + "%</text>\n";
  }
  svg += "<text x=\"" + num(centre) + "\" y=\"" + num(grid_bottom + 34) +
         "\" font-size=\"12\" text-anchor=\"middle\">step progress, 0\xE2\x80\x93" + "100% (" +
         std::to_string(bins) + (bins == 1 ? " bin" : " bins") + ")</text>\n";
  // The colour legend: the scale's gradient with 0, 50 and 100% marks.
  const double legend_top = grid_bottom + 50;
  const double legend_width = std::min(kLegendWidth, panel_width);
  svg += "<rect x=\"" + num(p.left) + "\" y=\"" + num(legend_top) + "\" width=\"" +
         num(legend_width) + "\" height=\"" + num(kLegendHeight) + "\" fill=\"url(#" +
         p.gradient_id + ")\" stroke=\"" + kInkColour + "\" stroke-width=\"0.5\"/>\n";
  for (int h = 0; h <= 2; ++h) {
    const double x = p.left + legend_width * h / 2;
    svg += "<line x1=\"" + num(x) + "\" y1=\"" + num(legend_top + kLegendHeight) + "\" x2=\"" +
           num(x) + "\" y2=\"" + num(legend_top + kLegendHeight + 4) + "\" stroke=\"" + kInkColour +
           "\" stroke-width=\"1\"/>\n";
    svg += "<text x=\"" + num(x) + "\" y=\"" + num(legend_top + kLegendHeight + 16) +
           "\" font-size=\"11\" text-anchor=\"middle\">" + std::to_string(h * 50) + "%</text>\n";
  }
  svg += "<text x=\"" + num(p.left + legend_width + 10) + "\" y=\"" +
         num(legend_top + kLegendHeight - 1) + "\" font-size=\"11\">" +
         (p.compute ? "% of the bin computing" : "% of the bin communicating") + "</text>\n";
}

}  // namespace

std::string multi_rank_heatmap_svg(const pipeline::MultiRankFacts& facts) {
  bool by_node = false;
  const std::vector<Row> rows = rows_of(facts, by_node);
  std::size_t bins = 0;
  bool any_slow_row = false;
  for (const Row& r : rows) {
    bins = std::max({bins, r.compute.size(), r.comm.size()});
    any_slow_row = any_slow_row || r.slow;
  }
  const double cell_width =
      bins > 0 ? std::max(kMinCellWidth, kPanelMinWidth / static_cast<double>(bins)) : 0;
  const double panel_width = bins > 0 ? cell_width * static_cast<double>(bins) : kPanelMinWidth;
  const double width = kLeft + 2 * panel_width + kPanelGap + kRightMargin;
  const double grid_bottom = kGridTop + static_cast<double>(rows.size()) * kRowHeight;
  const double note_y = grid_bottom + 102;
  const double height = any_slow_row || rows.empty() ? note_y + 12 : grid_bottom + 92;

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width, 0) +
                    "\" height=\"" + num(height, 0) + "\" viewBox=\"0 0 " + num(width, 0) + " " +
                    num(height, 0) + "\" font-family=\"sans-serif\">\n";
  svg += "<defs>\n";
  for (const auto& [id, end] :
       {std::pair{"tp-heat-compute", kComputeEnd}, std::pair{"tp-heat-comm", kCommEnd}})
    svg += std::string("<linearGradient id=\"") + id +
           "\" x1=\"0\" y1=\"0\" x2=\"1\" y2=\"0\"><stop offset=\"0\" stop-color=\"#ffffff\"/>" +
           "<stop offset=\"1\" stop-color=\"" + hex(end) + "\"/></linearGradient>\n";
  svg += "</defs>\n";
  svg += "<rect x=\"0\" y=\"0\" width=\"" + num(width, 0) + "\" height=\"" + num(height, 0) +
         "\" fill=\"#ffffff\"/>\n";
  svg += "<text x=\"" + num(width / 2) + "\" y=\"30\" font-size=\"18\" text-anchor=\"middle\">" +
         xml_escape(title_of(facts)) + "</text>\n";
  const std::string subtitle =
      std::string(by_node ? "Rows: nodes (mean of their ranks; more than 64 ranks)"
                          : "Rows: ranks") +
      "; columns: equal bins of each profiler step's GPU span; cells: % of the bin the kernels "
      "covered, mean over the steps";
  svg += "<text x=\"" + num(width / 2) + "\" y=\"52\" font-size=\"12\" text-anchor=\"middle\" " +
         "fill=\"#555555\">" + xml_escape(subtitle) + "</text>\n";

  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double y = kGridTop + static_cast<double>(i) * kRowHeight;
    const std::string label = (rows[i].slow ? "\xE2\x96\xB2 " : "") + rows[i].label;
    svg += "<text x=\"" + num(kLeft - 8) + "\" y=\"" + num(y + 10.5) +
           "\" font-size=\"11\" text-anchor=\"end\"" +
           (rows[i].slow ? " font-weight=\"bold\"" : "") + ">" + xml_escape(label) + "</text>\n";
  }
  const Panel compute{"Computation % of each step bin", "tp-heat-compute", kComputeEnd, true,
                      kLeft};
  const Panel comm{"Communication % of each step bin", "tp-heat-comm", kCommEnd, false,
                   kLeft + panel_width + kPanelGap};
  write_panel(svg, compute, rows, bins, panel_width, cell_width);
  write_panel(svg, comm, rows, bins, panel_width, cell_width);
  if (rows.empty())
    svg += "<text x=\"20\" y=\"" + num(note_y) + "\" font-size=\"12\">No ranks with step data." +
           "</text>\n";
  else if (any_slow_row)
    svg += "<text x=\"20\" y=\"" + num(note_y) + "\" font-size=\"12\">\xE2\x96\xB2 bold: " +
           (by_node ? "nodes holding one of the slowest ranks" : "the slowest ranks") +
           " (the executive summary&apos;s Slowest Rank(s))</text>\n";
  svg += "</svg>\n";
  return svg;
}

}  // namespace traceprism::report
