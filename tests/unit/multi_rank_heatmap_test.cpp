// The multi-rank heat map SVG (multi-rank.md §9.3): cells per rank and bin, the white-to-dark
// scale, "no steps" rows, node rows beyond 64 ranks, well-formed escaped text and deterministic
// bytes. Expected coordinates follow from the layout: label column 260 wide, panels 400 wide
// (cells 400 / bins, at least 4), 60 between them, rows 14 high from y = 96.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "report/multi_rank_heatmap.hpp"

namespace traceprism::report {
namespace {

using Facts = pipeline::MultiRankFacts;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Every '<' opens a tag (<name ...>, </name>, <name .../>), tags nest properly, and every '&'
// starts one of XML's five entities: the text carries no raw markup characters.
bool well_formed(const std::string& svg, std::string* why) {
  const auto fail = [why](const std::string& reason) {
    *why = reason;
    return false;
  };
  std::vector<std::string> open;
  for (std::size_t i = 0; i < svg.size(); ++i) {
    if (svg[i] == '&') {
      bool entity = false;
      for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
        entity = entity || svg.compare(i, std::string(e).size(), e) == 0;
      if (!entity) return fail("bare & at " + std::to_string(i));
      continue;
    }
    if (svg[i] == '>') return fail("bare > at " + std::to_string(i));
    if (svg[i] != '<') continue;
    const std::size_t end = svg.find('>', i);
    if (end == std::string::npos) return fail("unclosed tag");
    std::string tag = svg.substr(i + 1, end - i - 1);
    if (tag.find('<') != std::string::npos) return fail("< inside a tag");
    i = end;
    if (!tag.empty() && tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1))
        return fail("mismatched </" + tag.substr(1) + ">");
      open.pop_back();
      continue;
    }
    if (tag.empty() || !std::isalpha(static_cast<unsigned char>(tag[0])))
      return fail("bad tag <" + tag + ">");
    const bool self_closing = tag.back() == '/';
    const std::string name = tag.substr(0, tag.find_first_of(" /"));
    if (!self_closing) open.push_back(name);
  }
  if (!open.empty()) return fail("unclosed <" + open.back() + ">");
  return true;
}

Facts::HeatRow row(std::int32_t rank, std::int32_t node, std::vector<double> compute,
                   std::vector<double> comm) {
  return {rank, node, std::move(compute), std::move(comm)};
}

// 3 ranks x 4 bins; rank 2 is the slowest, rank 0 the focus.
Facts three_ranks() {
  Facts f;
  f.ranks_analyzed = 3;
  f.world_size = 3;
  f.focus_rank = 0;
  f.slowest_ranks = {2};
  f.heat_rows = {row(0, 0, {0, 25, 50, 100}, {100, 0, 0, 0}),
                 row(1, 0, {10, 20, 30, 40}, {0, 100, 0, 0}),
                 row(2, 1, {100, 100, 100, 100}, {50, 50, 50, 50})};
  return f;
}

// `ranks` ranks, rank r on node r / 8; compute bin 0 is 100% on odd ranks, 0% on even ones.
Facts spread(std::int32_t ranks) {
  Facts f;
  f.ranks_analyzed = static_cast<std::size_t>(ranks);
  f.world_size = ranks;
  f.focus_rank = 0;
  for (std::int32_t r = 0; r < ranks; ++r)
    f.heat_rows.push_back(row(r, r / 8, {r % 2 == 1 ? 100.0 : 0.0, 10, 10, 10}, {5, 5, 5, 5}));
  return f;
}

TEST(MultiRankHeatmap, OneCellPerRankAndBinInEachPanel) {
  const std::string svg = multi_rank_heatmap_svg(three_ranks());
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_EQ(count(svg, "class=\"cell\""), 2u * 3u * 4u);
  EXPECT_EQ(count(svg, "class=\"nosteps\""), 0u);
  EXPECT_EQ(count(svg, "class=\"gap\""), 0u);
  EXPECT_TRUE(contains(svg, ">Per-rank GPU activity across the step (3 ranks; focus rank 0)<"));
  EXPECT_TRUE(contains(svg, ">Computation % of each step bin</text>"));
  EXPECT_TRUE(contains(svg, ">Communication % of each step bin</text>"));
  EXPECT_EQ(count(svg,
                  ">step progress, 0\xE2\x80\x93"
                  "100% (4 bins)</text>"),
            2u);
  // Width 260 + 400 + 60 + 400 + 30; height 96 + 3 rows * 14 + 102 + 12 (the note on the
  // slowest ranks' marker ends the chart).
  EXPECT_TRUE(contains(svg, "width=\"1150\" height=\"252\" viewBox=\"0 0 1150 252\""));
}

TEST(MultiRankHeatmap, ScaleRunsFromWhiteToTheDarkEnd) {
  const std::string svg = multi_rank_heatmap_svg(three_ranks());
  // Rank 0 (first row, y 96): computation 0% in bin 0 is white, 100% in bin 3 the dark blue.
  EXPECT_TRUE(
      contains(svg,
               "<rect class=\"cell\" x=\"260.00\" y=\"96.00\" width=\"100.00\" height=\"14.00\" "
               "fill=\"#ffffff\"/>"));
  EXPECT_TRUE(
      contains(svg,
               "<rect class=\"cell\" x=\"560.00\" y=\"96.00\" width=\"100.00\" height=\"14.00\" "
               "fill=\"#1a5276\"/>"));
  // 50%: each channel halfway from 255, rounded half away from zero: 26 -> 140.5 -> 141 (8d),
  // 82 -> 168.5 -> 169 (a9), 118 -> 186.5 -> 187 (bb).
  EXPECT_TRUE(contains(svg,
                       "x=\"460.00\" y=\"96.00\" width=\"100.00\" height=\"14.00\" "
                       "fill=\"#8da9bb\"/>"));
  // Communication panel starts at 260 + 400 + 60 = 720: rank 1 (y 110), bin 1, 100% dark red.
  EXPECT_TRUE(contains(svg,
                       "<rect class=\"cell\" x=\"820.00\" y=\"110.00\" width=\"100.00\" "
                       "height=\"14.00\" fill=\"#7b241c\"/>"));
  // The legend: gradients to each end colour, marks at 0, 50 and 100%.
  EXPECT_TRUE(contains(svg, "<linearGradient id=\"tp-heat-compute\""));
  EXPECT_TRUE(contains(svg, "<stop offset=\"1\" stop-color=\"#1a5276\"/>"));
  EXPECT_TRUE(contains(svg, "<stop offset=\"1\" stop-color=\"#7b241c\"/>"));
  EXPECT_EQ(count(svg, "fill=\"url(#tp-heat-"), 2u);
  EXPECT_EQ(count(svg, "text-anchor=\"middle\">50%</text>"), 4u);  // 2 axes + 2 legends
  EXPECT_EQ(count(svg, "text-anchor=\"middle\">100%</text>"), 4u);
}

TEST(MultiRankHeatmap, RankLabelsMarkTheSlowestAndTheFocus) {
  const std::string svg = multi_rank_heatmap_svg(three_ranks());
  EXPECT_TRUE(contains(svg, "text-anchor=\"end\">rank 0 (focus)</text>"));
  EXPECT_TRUE(contains(svg, "text-anchor=\"end\">rank 1</text>"));
  EXPECT_TRUE(contains(svg, "text-anchor=\"end\" font-weight=\"bold\">\xE2\x96\xB2 rank 2</text>"));
  EXPECT_EQ(count(svg, "font-weight=\"bold\""), 1u);
  EXPECT_TRUE(contains(svg,
                       ">\xE2\x96\xB2 bold: the slowest ranks (the executive summary&apos;s "
                       "Slowest Rank(s))</text>"));
  // Rows in rank order, whatever the input order.
  Facts shuffled = three_ranks();
  std::swap(shuffled.heat_rows[0], shuffled.heat_rows[2]);
  EXPECT_EQ(multi_rank_heatmap_svg(shuffled), svg);
}

TEST(MultiRankHeatmap, RankWithoutStepsIsAGreyRow) {
  Facts f = three_ranks();
  f.heat_rows[1].compute_percent.clear();
  f.heat_rows[1].comm_percent.clear();
  const std::string svg = multi_rank_heatmap_svg(f);
  EXPECT_EQ(count(svg, "class=\"cell\""), 2u * 2u * 4u);
  EXPECT_EQ(count(svg, "class=\"nosteps\""), 2u);
  EXPECT_EQ(count(svg, ">no steps</text>"), 2u);
  // The second row (y 110) spans each whole panel.
  EXPECT_TRUE(contains(svg,
                       "<rect class=\"nosteps\" x=\"260.00\" y=\"110.00\" width=\"400.00\" "
                       "height=\"14.00\" fill=\"#d5d8dc\"/>"));
  EXPECT_TRUE(contains(svg, "<rect class=\"nosteps\" x=\"720.00\" y=\"110.00\" width=\"400.00\""));
}

TEST(MultiRankHeatmap, OutOfRangeMissingAndNanValues) {
  Facts f = three_ranks();
  f.heat_rows[0].compute_percent = {-5, 150, std::numeric_limits<double>::quiet_NaN()};  // 3 of 4
  const std::string svg = multi_rank_heatmap_svg(f);
  EXPECT_TRUE(contains(svg,
                       "x=\"260.00\" y=\"96.00\" width=\"100.00\" height=\"14.00\" "
                       "fill=\"#ffffff\"/>"));  // clamped to 0
  EXPECT_TRUE(contains(svg,
                       "x=\"360.00\" y=\"96.00\" width=\"100.00\" height=\"14.00\" "
                       "fill=\"#1a5276\"/>"));                                 // clamped to 100
  EXPECT_TRUE(contains(svg, "<rect class=\"gap\" x=\"460.00\" y=\"96.00\""));  // NaN
  EXPECT_TRUE(contains(svg, "<rect class=\"gap\" x=\"560.00\" y=\"96.00\""));  // absent
  EXPECT_EQ(count(svg, "class=\"cell\""), 2u * 3u * 4u - 2u);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
}

TEST(MultiRankHeatmap, TextIsEscapedAndWellFormed) {
  std::string why;
  for (const Facts& f : {three_ranks(), spread(70), spread(1000), Facts{}}) {
    const std::string svg = multi_rank_heatmap_svg(f);
    EXPECT_TRUE(well_formed(svg, &why)) << why;
  }
  // Text with markup characters is escaped: the subtitle's apostrophe.
  const std::string svg = multi_rank_heatmap_svg(three_ranks());
  EXPECT_TRUE(contains(svg, "each profiler step&apos;s GPU span"));
  EXPECT_FALSE(contains(svg, "step's"));
  EXPECT_FALSE(contains(svg, "<script"));
  EXPECT_FALSE(contains(svg, "@font-face"));
}

TEST(MultiRankHeatmap, MoreThan64RanksBecomeNodeRows) {
  Facts f = spread(70);  // nodes 0-7 with 8 ranks, node 8 with ranks 64-69
  f.slowest_ranks = {65};
  f.heat_rows[9].compute_percent.clear();  // rank 9 on node 1 has no steps
  f.heat_rows[9].comm_percent.clear();
  const std::string svg = multi_rank_heatmap_svg(f);
  EXPECT_EQ(count(svg, "class=\"cell\""), 2u * 9u * 4u);
  EXPECT_EQ(count(svg, "text-anchor=\"end\""), 9u);
  EXPECT_FALSE(contains(svg, ">rank "));
  EXPECT_TRUE(contains(svg, "text-anchor=\"end\">node 0 (8 ranks)</text>"));
  EXPECT_TRUE(contains(svg, "text-anchor=\"end\">node 1 (8 ranks, 1 without steps)</text>"));
  EXPECT_TRUE(contains(svg, "font-weight=\"bold\">\xE2\x96\xB2 node 8 (6 ranks)</text>"));
  EXPECT_TRUE(contains(svg, "nodes holding one of the slowest ranks"));
  EXPECT_TRUE(contains(svg, "Rows: nodes (mean of their ranks; more than 64 ranks)"));
  EXPECT_TRUE(contains(svg, ">Per-rank GPU activity across the step (70 ranks; focus rank 0)<"));
  // Node 0: four ranks at 100% and four at 0% in bin 0 -> 50%.
  EXPECT_TRUE(contains(svg,
                       "<rect class=\"cell\" x=\"260.00\" y=\"96.00\" width=\"100.00\" "
                       "height=\"14.00\" fill=\"#8da9bb\"/>"));
  // Node 1 (y 110) without rank 9: ranks 8, 10, 12, 14 at 0%, 11, 13, 15 at 100% -> 3/7.
  // 255 - 229 * 3/7 = 156.86 -> 157 (9d); 255 - 173 * 3/7 = 180.86 -> 181 (b5);
  // 255 - 137 * 3/7 = 196.29 -> 196 (c4).
  EXPECT_TRUE(contains(svg,
                       "<rect class=\"cell\" x=\"260.00\" y=\"110.00\" width=\"100.00\" "
                       "height=\"14.00\" fill=\"#9db5c4\"/>"));
}

TEST(MultiRankHeatmap, MoreThan64NodesMergeRunsOfNodes) {
  Facts f;
  f.ranks_analyzed = 131;
  f.focus_rank = 3;
  for (std::int32_t r = 0; r < 130; ++r) f.heat_rows.push_back(row(r, r, {20}, {30}));
  f.heat_rows.push_back(row(130, -1, {20}, {30}));  // node unknown: its own row, last
  const std::string svg = multi_rank_heatmap_svg(f);
  // 130 known nodes into at most 63 rows (one kept for the unknown node): 3 per row, 44 rows,
  // the last holding node 129 alone; then the unknown node: 45 rows of one bin.
  EXPECT_EQ(count(svg, "text-anchor=\"end\""), 45u);
  EXPECT_EQ(count(svg, "class=\"cell\""), 2u * 45u);
  EXPECT_TRUE(contains(svg,
                       ">nodes 0\xE2\x80\x93"
                       "2 (3 ranks)</text>"));
  EXPECT_TRUE(contains(svg, ">node 129 (1 rank)</text>"));
  EXPECT_TRUE(contains(svg, ">node ? (1 rank)</text>"));
  EXPECT_LT(svg.find(">node 129 "), svg.find(">node ? "));
  // One bin: a single 400-wide cell per row.
  EXPECT_TRUE(contains(svg, "width=\"400.00\" height=\"14.00\" fill=\""));
}

TEST(MultiRankHeatmap, ManyBinsKeepCellsAtLeast4Wide) {
  Facts f;
  f.ranks_analyzed = 1;
  f.focus_rank = 0;
  f.heat_rows.push_back(row(0, 0, std::vector<double>(200, 40), std::vector<double>(200, 60)));
  const std::string svg = multi_rank_heatmap_svg(f);
  EXPECT_EQ(count(svg, "class=\"cell\""), 400u);
  EXPECT_EQ(count(svg, "width=\"4.00\" height=\"14.00\""), 400u);
  // Panels 800 wide: 260 + 800 + 60 + 800 + 30.
  EXPECT_TRUE(contains(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1950\""));
  EXPECT_TRUE(contains(svg, "(1 rank; focus rank 0)"));
}

TEST(MultiRankHeatmap, EmptyFactsStillGiveAChart) {
  const std::string svg = multi_rank_heatmap_svg(Facts{});
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_EQ(count(svg, "class=\"cell\""), 0u);
  EXPECT_TRUE(contains(svg, ">No ranks with step data.</text>"));
  EXPECT_TRUE(contains(svg, ">Per-rank GPU activity across the step (0 ranks)<"));
}

TEST(MultiRankHeatmap, SameInputSameBytes) {
  EXPECT_EQ(multi_rank_heatmap_svg(three_ranks()), multi_rank_heatmap_svg(three_ranks()));
  EXPECT_EQ(multi_rank_heatmap_svg(spread(70)), multi_rank_heatmap_svg(spread(70)));
  EXPECT_STREQ(kMultiRankHeatmapFile, "multi_rank_heatmap.svg");
}

TEST(MultiRankHeatmap, TitleCountsMissingRanks) {
  Facts f = three_ranks();
  f.world_size = 4;
  EXPECT_TRUE(contains(multi_rank_heatmap_svg(f), "(3 of 4 ranks; focus rank 0)"));
}

}  // namespace
}  // namespace traceprism::report
