// The performance breakdown SVG (analysis-rules.md §10.8): segment order, palette,
// Non-computing remainder, legend text, escaping and deterministic bytes.
#include <gtest/gtest.h>

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
