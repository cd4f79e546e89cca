// The performance breakdown SVG (analysis-rules.md §10.8): segment order, palette,
// Non-computing remainder, legend text, escaping and deterministic bytes.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "report/breakdown_chart.hpp"

namespace traceprism::report {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

BreakdownChart sample() {
  return {"Qwen2 on MI300X \xE2\x80\x94 Performance Breakdown",
          10.0,
          {{"elementwise", 1.0}, {"GEMM", 6.0}, {"reduce", 0.0}, {"SDPA_fwd", 2.0}}};
}

TEST(BreakdownChart, SegmentsSortedWithPaletteThenNonComputing) {
  const std::string svg = breakdown_chart_svg(sample());
  const auto gemm = svg.find("fill=\"#e74c3c\"/>\n<text x=\"80.00\" y=\"");
  EXPECT_NE(gemm, std::string::npos) << svg;
  EXPECT_TRUE(contains(svg, ">GEMM \xE2\x80\x94 6.0 ms (60.0%)</text>"));
  EXPECT_TRUE(contains(svg, ">SDPA_fwd \xE2\x80\x94 2.0 ms (20.0%)</text>"));
  EXPECT_TRUE(contains(svg, ">Elementwise \xE2\x80\x94 1.0 ms (10.0%)</text>"));  // capitalized
  EXPECT_TRUE(contains(svg, ">Non-computing \xE2\x80\x94 1.0 ms (10.0%)</text>"));
  EXPECT_FALSE(contains(svg, "Reduce"));  // zero-time categories are left out
  EXPECT_LT(svg.find("#e74c3c"), svg.find("#e67e22"));
  EXPECT_LT(svg.find("#e67e22"), svg.find("#f1c40f"));
  EXPECT_TRUE(contains(svg, "fill=\"#aab7c4\""));
  EXPECT_TRUE(contains(svg, ">GPU time (ms)</text>"));
  EXPECT_TRUE(contains(svg, ">Qwen2 on MI300X \xE2\x80\x94 Performance Breakdown</text>"));
  // The bar: GEMM spans 60% of the 1080-unit plot.
  EXPECT_TRUE(contains(svg, "<rect x=\"60.00\" y=\"70.00\" width=\"648.00\""));
}

// Issue 15: exposed communication, exposed copies and idle are segments of their own (not one
// grey remainder), and every category keeps a colour of its own past the reference's eight.
TEST(BreakdownChart, CommunicationCopiesAndIdleAreOwnSegmentsAndColoursAreDistinct) {
  BreakdownChart chart{"t", 100.0, {}, 20.0, 5.0, 15.0};
  for (int i = 0; i < 20; ++i) chart.categories.push_back({"cat" + std::to_string(i), 3.0});
  const std::string svg = breakdown_chart_svg(chart);
  EXPECT_TRUE(contains(svg, ">Exposed communication \xE2\x80\x94 20.0 ms (20.0%)</text>")) << svg;
  EXPECT_TRUE(contains(svg, ">Exposed memory copies \xE2\x80\x94 5.0 ms (5.0%)</text>"));
  EXPECT_TRUE(contains(svg, ">Idle \xE2\x80\x94 15.0 ms (15.0%)</text>"));
  EXPECT_FALSE(contains(svg, "Non-computing"));
  std::set<std::string> colours;
  std::size_t legend_boxes = 0;
  for (auto at = svg.find("width=\"14\" height=\"14\" fill=\""); at != std::string::npos;
       at = svg.find("width=\"14\" height=\"14\" fill=\"", at + 1)) {
    const auto from = at + std::string("width=\"14\" height=\"14\" fill=\"").size();
    colours.insert(svg.substr(from, svg.find('"', from) - from));
    ++legend_boxes;
  }
  EXPECT_EQ(legend_boxes, 23u);
  EXPECT_EQ(colours.size(), 23u) << "two segments share a colour";
}

TEST(BreakdownChart, SameInputSameBytes) {
  EXPECT_EQ(breakdown_chart_svg(sample()), breakdown_chart_svg(sample()));
}

TEST(BreakdownChart, TextIsEscaped) {
  BreakdownChart c = sample();
  c.title = "A<B & \"C\"";
  c.categories = {{"x<y", 1.0}};
  const std::string svg = breakdown_chart_svg(c);
  EXPECT_TRUE(contains(svg, ">A&lt;B &amp; &quot;C&quot;</text>"));
  EXPECT_TRUE(contains(svg, ">X&lt;y \xE2\x80\x94 1.0 ms (10.0%)</text>"));
}

TEST(BreakdownChart, NoGpuTimeStillWritesAChart) {
  const std::string svg =
      breakdown_chart_svg({"Workload on GPU \xE2\x80\x94 Performance Breakdown", 0, {}});
  EXPECT_TRUE(contains(svg, ">Non-computing \xE2\x80\x94 0.0 ms (0.0%)</text>"));
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
}

}  // namespace
}  // namespace traceprism::report
