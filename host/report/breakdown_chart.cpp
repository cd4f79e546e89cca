#include "report/breakdown_chart.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "report/svg_text.hpp"

namespace traceprism::report {
namespace {

// The reference's colours first, then more distinct hues: one colour per category up to 16
// categories; beyond that, generated hues (golden-angle steps) keep neighbours apart.
constexpr const char* kPalette[] = {
    "#e74c3c", "#e67e22", "#f1c40f", "#2ecc71", "#9b59b6", "#1abc9c", "#e84393", "#3498db",
    "#8e44ad", "#16a085", "#d35400", "#27ae60", "#c0392b", "#2980b9", "#f39c12", "#6c5ce7"};
// The non-computing segments: dark slate, light slate and grey, none used by a category.
constexpr const char* kCommunicationColour = "#34495e";
constexpr const char* kMemcpyColour = "#7f8c8d";
constexpr const char* kNonComputingColour = "#aab7c4";

// Layout in SVG user units (the reference's 12 x 3 in figure at 100 units per inch).
constexpr double kWidth = 1200, kLeft = 60, kRight = 1140, kBarTop = 70, kBarHeight = 70;
constexpr double kAxisY = kBarTop + kBarHeight, kLegendTop = kAxisY + 70, kLegendRow = 26;
constexpr std::size_t kLegendColumns = 4;

std::string num(double v, int decimals = 2) {
  return svg_number(v, decimals);
}

std::string capitalized(std::string name) {
  if (!name.empty()) name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  return name;
}

struct Segment {
  std::string label;
  double time_ms;
  std::string colour;
};

std::string category_colour(std::size_t i) {
  if (i < std::size(kPalette)) return kPalette[i];
  const double hue = std::fmod(static_cast<double>(i) * 137.508, 360.0);
  char buf[48];
  std::snprintf(buf, sizeof buf, "hsl(%.0f,65%%,45%%)", hue);
  return buf;
}

std::vector<Segment> segments_of(const BreakdownChart& chart) {
  std::vector<ChartSegment> cats;
  for (const auto& c : chart.categories)
    if (c.time_ms > 0) cats.push_back(c);
  std::stable_sort(cats.begin(), cats.end(),
                   [](const auto& a, const auto& b) { return a.time_ms > b.time_ms; });
  std::vector<Segment> out;
  double sum = 0;
  for (std::size_t i = 0; i < cats.size(); ++i) {
    out.push_back({capitalized(cats[i].name), cats[i].time_ms, category_colour(i)});
    sum += cats[i].time_ms;
  }
  if (chart.exposed_comm_ms <= 0 && chart.exposed_memcpy_ms <= 0 && chart.idle_ms <= 0) {
    out.push_back({"Non-computing", std::max(0.0, chart.e2e_ms - sum), kNonComputingColour});
    return out;
  }
  if (chart.exposed_comm_ms > 0)
    out.push_back({"Exposed communication", chart.exposed_comm_ms, kCommunicationColour});
  if (chart.exposed_memcpy_ms > 0)
    out.push_back({"Exposed memory copies", chart.exposed_memcpy_ms, kMemcpyColour});
  out.push_back({"Idle", std::max(0.0, chart.idle_ms), kNonComputingColour});
  return out;
}

// Axis ticks at 1, 2 or 5 times a power of ten, five to ten of them over the range.
double tick_step(double range) {
  const double raw = range / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

void write_axis(std::string& svg, double range) {
  const double plot = kRight - kLeft;
  svg += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(kAxisY) + "\" x2=\"" + num(kRight) +
         "\" y2=\"" + num(kAxisY) + "\" stroke=\"#333333\" stroke-width=\"1\"/>\n";
  if (range > 0) {
    const double step = tick_step(range);
    const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step))));
    for (int i = 0;; ++i) {
      const double v = i * step;
      if (v > range * (1 + 1e-9)) break;
      const double x = kLeft + v / range * plot;
      svg += "<line x1=\"" + num(x) + "\" y1=\"" + num(kAxisY) + "\" x2=\"" + num(x) + "\" y2=\"" +
             num(kAxisY + 6) + "\" stroke=\"#333333\" stroke-width=\"1\"/>\n";
      svg += "<text x=\"" + num(x) + "\" y=\"" + num(kAxisY + 22) +
             "\" font-size=\"13\" text-anchor=\"middle\">" + num(v, decimals) + "</text>\n";
    }
  }
  svg += "<text x=\"" + num((kLeft + kRight) / 2) + "\" y=\"" + num(kAxisY + 48) +
         "\" font-size=\"14\" text-anchor=\"middle\">GPU time (ms)</text>\n";
}

}  // namespace

std::string breakdown_chart_svg(const BreakdownChart& chart) {
  const std::vector<Segment> segments = segments_of(chart);
  double sum = 0;
  for (const auto& s : segments) sum += s.time_ms;
  // Overlapping kernels can sum past E2E; the axis then spans the sum so the bar fits.
  const double range = std::max(chart.e2e_ms, sum);
  const std::size_t columns = std::min(segments.size(), kLegendColumns);
  const std::size_t legend_rows = (segments.size() + columns - 1) / columns;
  const double height = kLegendTop + legend_rows * kLegendRow + 20;

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth, 0) +
                    "\" height=\"" + num(height, 0) + "\" viewBox=\"0 0 " + num(kWidth, 0) + " " +
                    num(height, 0) + "\" font-family=\"sans-serif\">\n";
  svg += "<rect x=\"0\" y=\"0\" width=\"" + num(kWidth, 0) + "\" height=\"" + num(height, 0) +
         "\" fill=\"#ffffff\"/>\n";
  svg += "<text x=\"" + num(kWidth / 2) + "\" y=\"36\" font-size=\"18\" text-anchor=\"middle\">" +
         xml_escape(chart.title) + "</text>\n";
  double x = kLeft;
  for (const auto& s : segments) {
    const double w = range > 0 ? s.time_ms / range * (kRight - kLeft) : 0;
    if (w > 0)
      svg += "<rect x=\"" + num(x) + "\" y=\"" + num(kBarTop) + "\" width=\"" + num(w) +
             "\" height=\"" + num(kBarHeight) + "\" fill=\"" + s.colour + "\"/>\n";
    x += w;
  }
  write_axis(svg, range);
  const double column_width = (kRight - kLeft) / static_cast<double>(columns);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::size_t column = i % columns, row = i / columns;  // the legend's grid cell
    const double lx = kLeft + static_cast<double>(column) * column_width;
    const double ly = kLegendTop + static_cast<double>(row) * kLegendRow;
    const double pct = chart.e2e_ms > 0 ? segments[i].time_ms / chart.e2e_ms * 100 : 0.0;
    svg += "<rect x=\"" + num(lx) + "\" y=\"" + num(ly) + "\" width=\"14\" height=\"14\" fill=\"" +
           segments[i].colour + "\"/>\n";
    svg += "<text x=\"" + num(lx + 20) + "\" y=\"" + num(ly + 12) + "\" font-size=\"13\">" +
           xml_escape(segments[i].label) + " \xE2\x80\x94 " + num(segments[i].time_ms, 1) +
           " ms (" + num(pct, 1) + "%)</text>\n";
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace traceprism::report
