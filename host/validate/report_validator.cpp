#include "validate/report_validator.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <tuple>

#include <traceprism/shape_args.hpp>
#include "io/report_manifest.hpp"
#include "io/small_file.hpp"
#include "text/csv_parse.hpp"
#include "validate/findings_invariants.hpp"
#include "validate/markdown_lines.hpp"
#include "validate/markdown_patterns.hpp"

namespace traceprism::validate {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

constexpr const char* kReport = "analysis.md";

// The six `## ` headers of analysis-rules.md §10.1, in order.
constexpr const char* kHeaders[] = {"## Executive Summary",
                                    "## Compute Kernel Optimizations",
                                    "## Kernel Fusion Opportunities (Experimental)",
                                    "## System-Level Optimizations",
                                    "## Detailed Analysis",
                                    "## Appendix"};

// Where each tier's cards and detailed blocks live.
struct TierLayout {
  const char* tier;
  const char* cards;   // `## ` section of the cards
  const char* detail;  // `### ` subsection of ## Detailed Analysis
};
constexpr TierLayout kTiers[] = {
    {"compute", "## Compute Kernel Optimizations", "### Compute Kernel Insights"},
    {"fusion", "## Kernel Fusion Opportunities (Experimental)", "### Kernel Fusion Insights"},
    {"system", "## System-Level Optimizations", "### System-Level Insights"}};

constexpr const char* kCanonicalDataColumns[] = {"Operation",  "Args", "Kernel Path", "Kernel Name",
                                                 "Time (ms)",  "%E2E", "Count",       "FLOPS/Byte",
                                                 "Efficiency", "Bound"};

// analysis-rules.md §10.6, comparative reports.
constexpr const char* kComparativeDataColumns[] = {
    "Operation",         "Args (T1)",     "Kernel Path",     "Kernel Name",     "Trace 1 Time (ms)",
    "Trace 2 Time (ms)", "Count (T1/T2)", "Difference (ms)", "FLOPS/Byte (T1)", "Bound (T1)"};
static_assert(std::size(kComparativeDataColumns) == std::size(kCanonicalDataColumns));

constexpr const char* kPlaceholders[] = {"<Brief Title>",  "<Library>", "<platform>", "<model>",
                                         "<architecture>", "<scale>",   "<precision>"};

constexpr double kImpactTolerance = 0.005;

std::optional<std::string> read_file(const fs::path& p) {
  io::SmallFile file = io::read_small_file(p.string());
  if (file.status != io::SmallFile::Status::kOk) return std::nullopt;
  return std::move(file.text);
}

std::optional<double> parse_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool starts_with_heading(const std::string& line, std::string_view hashes) {
  return line.starts_with(hashes) && line.size() > hashes.size() && line[hashes.size()] == ' ';
}

// A P-item heading: "### 🔴 P1: ..." (cards) or "#### 🔴 P1: ..." (detailed blocks).
bool is_p_heading(const std::string& line, std::string_view hashes) {
  return starts_with_heading(line, hashes) && has_p_number(line);
}

// One finding of findings.json as the checks need it.
struct ExpectedItem {
  std::string category;
  bool quantified = false;
  double low = 0, mid = 0, high = 0;
};

class Validator {
 public:
  explicit Validator(fs::path dir) : dir_(std::move(dir)) {}

  std::vector<ReportProblem> run() {
    const auto text = read_file(dir_ / kReport);
    if (!text) {
      file_problem(kReport, "missing or unreadable; run `traceprism analyze TRACE -o DIR` first");
      return std::move(problems_);
    }
    if (trim(*text).size() < 100) {
      file_problem(kReport, "shorter than 100 characters; not a report");
      return std::move(problems_);
    }
    md_ = MarkdownLines::split(*text);
    whole_ = {0, md_.size()};
    comparative_ = md_.lines.front().find(" - Comparative Analysis: ") != std::string::npos;
    check_title();
    check_headers();
    check_executive_summary();
    check_placeholders();
    check_markers();
    check_top_operations();
    check_anchors();
    for (const TierLayout& t : kTiers) check_tier(t);
    check_args_cells();
    check_against_findings();
    check_images();
    if (comparative_) check_comparison_files();
    check_manifest();
    // analysis.md first, then the other files; each in line order.
    std::stable_sort(problems_.begin(), problems_.end(), [](const auto& a, const auto& b) {
      return std::make_tuple(a.file != kReport, a.file, a.line) <
             std::make_tuple(b.file != kReport, b.file, b.line);
    });
    return std::move(problems_);
  }

 private:
  void problem(std::size_t index, std::string message) {
    problems_.push_back({kReport, index + 1, std::move(message)});
  }
  void file_problem(std::string file, std::string message) {
    problems_.push_back({std::move(file), 0, std::move(message)});
  }

  std::optional<LineRange> top_section(const char* header) const {
    return section(md_, header, whole_);
  }

  // ---- Structure ----

  void check_title() {
    if (!starts_with_heading(md_.lines.front(), "#"))
      problem(0, "the first line is not the `# <Model> - <Platform> Standalone Analysis` title");
  }

  void check_headers() {
    std::size_t previous = 0;
    const char* previous_header = nullptr;
    for (const char* h : kHeaders) {
      auto s = top_section(h);
      if (!s) {
        file_problem(kReport, std::string("the `") + h + "` header is missing");
        continue;
      }
      if (previous_header && s->begin < previous)
        problem(s->begin - 1, std::string("`") + h + "` comes before `" + previous_header +
                                  "`; the six sections must be in the order of the template");
      previous = s->begin;
      previous_header = h;
    }
  }

  void check_executive_summary() {
    auto s = top_section("## Executive Summary");
    if (!s) return;
    bool table = false;
    std::set<std::string> labels;
    static const char* const kLabels[] = {"Total Time", "Compute", "Idle", "Exposed Communication",
                                          "Top Bottleneck"};
    for (std::size_t i = s->begin; i < s->end; ++i) {
      const std::string& line = md_.lines[i];
      if (!is_table_row(line)) continue;
      table = true;
      const auto cells = table_cells(line);
      if (!cells.empty())
        for (const char* label : kLabels)
          if (cells.front().find(label) != std::string::npos) labels.insert(label);
      if (has_placeholder_cell(line))
        problem(i, "the Executive Summary table has a placeholder cell: " + trim(line));
    }
    if (!table) {
      problem(s->begin - 1, comparative_
                                ? "the Executive Summary has no `| Metric | Trace 1 - "
                                  "(...) | Trace 2 - (...) | Difference |` table"
                                : "the Executive Summary has no `| Metric | Value |` table");
      return;
    }
    if (comparative_) check_comparative_differences(*s);
    for (const char* label : kLabels)
      if (!labels.contains(label))
        problem(s->begin - 1,
                std::string("the Executive Summary table has no `") + label + "` row");
  }

  // analysis-rules.md §10.2: Difference = trace 2 - trace 1, within 1% of the larger value.
  void check_comparative_differences(const LineRange& s) {
    auto leading_number = [](const std::string& cell) -> std::optional<double> {
      const auto number = first_number(cell);
      if (!number) return std::nullopt;
      return parse_number(std::string(*number));
    };
    for (std::size_t i = s.begin; i < s.end; ++i) {
      if (!is_table_row(md_.lines[i]) || is_separator_row(md_.lines[i])) continue;
      const auto cells = table_cells(md_.lines[i]);
      if (cells.size() != 4) {
        problem(i,
                "a comparative Executive Summary row needs 4 cells (Metric, Trace 1, Trace 2, "
                "Difference), this one has " +
                    std::to_string(cells.size()));
        continue;
      }
      if (cells[0] == "Metric" || cells[0].find("Top Bottleneck") != std::string::npos) continue;
      const auto t1 = leading_number(cells[1]), t2 = leading_number(cells[2]),
                 d = leading_number(cells[3]);
      if (!t1 || !t2 || !d) continue;
      const double scale = std::max({std::fabs(*t1), std::fabs(*t2), 1.0});
      if (std::fabs(std::fabs(*d) - std::fabs(*t1 - *t2)) > 0.01 * scale)
        problem(i, "`" + cells[0] + "` Difference " + cells[3] + " is not Trace 2 - Trace 1 (" +
                       cells[2] + " - " + cells[1] + ")");
    }
  }

  // A comparative report folder holds both perf reports and the kernel diff (issue 16).
  void check_comparison_files() {
    for (const char* sheet :
         {"perf_report_trace1_csvs/gpu_timeline.csv", "perf_report_trace2_csvs/gpu_timeline.csv"})
      if (!fs::is_regular_file(dir_ / sheet))
        file_problem(sheet, "missing in a comparative report");
    const auto csv = read_file(dir_ / "kernel_diff.csv");
    if (!csv) {
      file_problem("kernel_diff.csv", "missing in a comparative report");
      return;
    }
    if (!csv->starts_with("name,count_trace1,count_trace2,count_diff,time_ms_trace1,"
                          "time_ms_trace2,time_ms_diff\n"))
      file_problem("kernel_diff.csv",
                   "does not start with the header `name,count_trace1,count_trace2,count_diff,"
                   "time_ms_trace1,time_ms_trace2,time_ms_diff`");
  }

  void check_placeholders() {
    for (std::size_t i = 0; i < md_.size(); ++i)
      for (const char* p : kPlaceholders)
        if (md_.lines[i].find(p) != std::string::npos)
          problem(i, std::string("unfilled template placeholder `") + p + "`");
  }

  // ---- Impact markers (§12.1 item 5) ----

  void check_marker_values(const ImpactMarker& m, std::initializer_list<const char*> keys) {
    bool null = false, number = false;
    for (const char* k : keys) {
      const std::string v = m.attribute(k);
      if (v.empty()) {
        problem(m.line, "kind=" + m.attribute("kind") + " marker has no `" + k + "=` attribute");
      } else if (v == "null") {
        null = true;
      } else if (parse_number(v)) {
        number = true;
      } else {
        problem(m.line,
                std::string("marker attribute `") + k + "=" + v + "` is neither a number nor null");
      }
    }
    if (null && number) problem(m.line, "marker mixes null and numeric impact values");
  }

  void check_markers() {
    std::optional<std::size_t> open;
    for (std::size_t i = 0; i < md_.size(); ++i) {
      const std::string& line = md_.lines[i];
      if (is_impact_begin(line)) {
        if (open)
          problem(*open, "impact-begin marker is not closed by an impact-end before line " +
                             std::to_string(i + 1));
        open = i;
        ImpactMarker m = parse_impact_begin(line, i);
        for (const std::string& t : m.tokens) {
          const std::size_t eq = t.find('=');
          const bool word = eq != std::string::npos && eq > 0 && eq + 1 < t.size() &&
                            std::all_of(t.begin(), t.begin() + static_cast<long>(eq), [](char c) {
                              return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                            });
          if (!word) problem(i, "marker attribute `" + t + "` is not a `name=value` token");
        }
        const std::string kind = m.attribute("kind");
        if (kind.empty())
          problem(i, "impact-begin marker has no `kind=` attribute");
        else if (kind == "p_item")
          check_marker_values(m, {"low", "mid", "high"});
        else if (kind == "detail_estimate")
          check_marker_values(m, {"low", "high"});
        else if (kind != "top_ops")
          problem(i, "unknown marker kind `" + kind + "` (p_item, detail_estimate or top_ops)");
        markers_.push_back(std::move(m));
      } else if (is_impact_end(line)) {
        if (!open) problem(i, "impact-end marker without an impact-begin");
        open.reset();
      }
    }
    if (open) problem(*open, "impact-begin marker is never closed by an impact-end");
  }

  void check_top_operations() {
    std::vector<const ImpactMarker*> blocks;
    for (const ImpactMarker& m : markers_)
      if (m.attribute("kind") == "top_ops") blocks.push_back(&m);
    if (blocks.empty()) {
      file_problem(kReport, "no `<!-- impact-begin kind=top_ops -->` block (### Top Operations)");
      return;
    }
    for (std::size_t b = 1; b < blocks.size(); ++b)
      problem(blocks[b]->line, "a second kind=top_ops block; there must be exactly one");
    bool header = false;
    for (std::size_t i = blocks[0]->line + 1; i < md_.size() && !is_impact_end(md_.lines[i]); ++i) {
      const std::string& line = md_.lines[i];
      if (!is_table_row(line) || is_separator_row(line)) continue;
      if (!header) {
        header = true;
        continue;
      }
      const auto row_attributes = top_ops_row_attributes(line);
      if (!row_attributes) {
        problem(i, "Top Operations row has no `<!-- top-ops-row low=... high=... -->` marker");
        continue;
      }
      const ImpactMarker attrs =
          parse_impact_begin("<!-- impact-begin " + std::string(*row_attributes) + "-->", i);
      for (const char* k : {"low", "high"}) {
        const std::string v = attrs.attribute(k);
        if (v.empty() || (v != "null" && !parse_number(v)))
          problem(i, std::string("top-ops-row marker needs `") + k + "=<number|null>`");
      }
    }
  }

  // ---- Tiers: cards, detailed blocks, links (R1, R5, marker evals 2-4) ----

  void check_anchors() {
    for (const std::string& line : md_.lines)
      for (std::string_view id : anchor_ids(line)) anchors_.emplace(id);
  }

  void check_links(const LineRange& cards) {
    for (std::size_t i = cards.begin; i < cards.end; ++i)
      for (std::string_view view : anchor_link_targets(md_.lines[i])) {
        const std::string target(view);
        if (!anchors_.contains(target))
          problem(i, "link to #" + target + " has no `<a id=\"" + target + "\">` target");
      }
  }

  // The lines of one detailed block: from its reasoning-candidate marker to the next block's
  // anchor or marker, or the next `###`/`##` heading.
  std::size_t block_end(std::size_t start, const LineRange& detail) const {
    for (std::size_t i = start + 1; i < detail.end; ++i) {
      const std::string& line = md_.lines[i];
      if (parse_reasoning_candidate(line) || line.starts_with("<a id=") ||
          starts_with_heading(line, "###") || starts_with_heading(line, "##"))
        return i;
    }
    return detail.end;
  }

  void check_tier(const TierLayout& t) {
    auto cards = top_section(t.cards);
    auto detailed = top_section("## Detailed Analysis");
    std::optional<LineRange> detail;
    if (detailed) detail = section(md_, t.detail, *detailed);
    if (detailed && !detail)
      file_problem(kReport, std::string("`") + t.detail + "` subsection is missing");
    if (!cards) return;
    check_links(*cards);
    std::size_t headings = 0;
    for (std::size_t i = cards->begin; i < cards->end; ++i)
      if (is_p_heading(md_.lines[i], "###")) ++headings;
    std::vector<const ImpactMarker*>& items = p_items_[t.tier];
    for (const ImpactMarker& m : markers_)
      if (cards->contains(m.line) && m.attribute("kind") == "p_item") items.push_back(&m);
    if (headings != items.size())
      problem(cards->begin - 1, std::to_string(headings) + " " + t.tier +
                                    " P-item heading(s) but " + std::to_string(items.size()) +
                                    " kind=p_item marker(s)");
    if (std::string_view(t.tier) == "fusion") check_fusion_impact_lines(*cards);
    if (!detail) return;
    std::size_t detail_headings = 0, candidates = 0;
    for (std::size_t i = detail->begin; i < detail->end; ++i) {
      if (is_p_heading(md_.lines[i], "####")) ++detail_headings;
      auto c = parse_reasoning_candidate(md_.lines[i]);
      if (!c) continue;
      ++candidates;
      if (c->tier != t.tier)
        problem(i, "reasoning-candidate tier=" + c->tier + " inside `" + t.detail +
                       "` (expected tier=" + t.tier + ")");
      check_block(i, block_end(i, *detail), t);
    }
    if (detail_headings != candidates)
      problem(detail->begin - 1, std::to_string(detail_headings) + " `####` P heading(s) but " +
                                     std::to_string(candidates) + " reasoning-candidate marker(s)");
    if (detail_headings != headings)
      problem(detail->begin - 1, std::to_string(headings) + " " + t.tier + " card(s) but " +
                                     std::to_string(detail_headings) + " detailed block(s)");
  }

  void check_block(std::size_t start, std::size_t end, const TierLayout& t) {
    bool estimate = false;
    for (std::size_t i = start; i < end; ++i) {
      if (lower(md_.lines[i]).find("not quantifiable from trace data") != std::string::npos)
        estimate = true;
      if (is_impact_begin(md_.lines[i]) &&
          parse_impact_begin(md_.lines[i], i).attribute("kind") == "detail_estimate")
        estimate = true;
    }
    if (!estimate)
      problem(start,
              "detailed block has neither a kind=detail_estimate marker nor the sentence "
              "\"not quantifiable from trace data\"");
    if (std::string_view(t.tier) == "compute") check_compute_data(start, end);
  }

  // `**Data:**` alone on its line, then a table starting with the 10 canonical columns.
  void check_compute_data(std::size_t start, std::size_t end) {
    std::optional<std::size_t> data;
    bool inline_data = false;
    for (std::size_t i = start; i < end && !data; ++i) {
      const std::string line = trim(md_.lines[i]);
      if (line == "**Data:**") {
        data = i;
      } else if (line.starts_with("**Data:**")) {
        problem(i, "`**Data:**` must be alone on its line (the table follows it)");
        inline_data = true;
      }
    }
    if (!data) {
      if (!inline_data) problem(start, "compute block has no `**Data:**` line");
      return;
    }
    for (std::size_t i = *data + 1; i < end; ++i) {
      if (!is_table_row(md_.lines[i])) continue;
      const auto header = table_cells(md_.lines[i]);
      // A comparative report's items about trace 1 alone (precision, layout, recompute) keep
      // the standalone columns; its per-op comparisons have the comparative ones.
      const bool comparative_columns =
          comparative_ && header.size() > 1 && header[1] == kComparativeDataColumns[1];
      const char* const* columns =
          comparative_columns ? kComparativeDataColumns : kCanonicalDataColumns;
      for (std::size_t c = 0; c < std::size(kCanonicalDataColumns); ++c)
        if (c >= header.size() || header[c] != columns[c]) {
          problem(i, std::string("compute Data table must start with the 10 columns `") +
                         columns[0] + " | " + columns[1] + " | ... | " + columns[9] + "`; column " +
                         std::to_string(c + 1) + " is `" + (c < header.size() ? header[c] : "") +
                         "`, expected `" + columns[c] + "`");
          break;
        }
      return;
    }
    problem(*data, "no table after `**Data:**`");
  }

  void check_fusion_impact_lines(const LineRange& cards) {
    for (std::size_t i = cards.begin; i < cards.end; ++i) {
      const std::string& line = md_.lines[i];
      if (!line.starts_with("**Impact**")) continue;
      if (comparative_ && !has_comparative_fusion_impact(line))
        problem(i, "comparative fusion Impact line must read `impact_score: X` (no coverage)");
      else if (!comparative_ && !has_standalone_fusion_impact(line))
        problem(i,
                "fusion Impact line must read `impact_score: X (perf-model coverage M/N "
                "kernels)`");
    }
  }

  // ---- Args cells against the perf report (§4.3) ----

  // A comparative report's Args cells are trace 1's.
  std::string unified_sheet_path() const {
    return std::string(comparative_ ? "perf_report_trace1_csvs" : "perf_report_csvs") +
           "/unified_perf_summary.csv";
  }

  const std::set<std::string>* known_args() {
    if (args_loaded_) return args_ ? &*args_ : nullptr;
    args_loaded_ = true;
    const std::string sheet_path = unified_sheet_path();
    const auto csv = read_file(dir_ / sheet_path);
    if (!csv) {
      file_problem(sheet_path,
                   "missing; the Args cells of analysis.md cannot be traced to the perf report");
      return nullptr;
    }
    const text::CsvSheet sheet = text::parse_csv_sheet(*csv);
    const std::size_t dims = sheet.column_index("Input Dims"),
                      types = sheet.column_index("Input type");
    args_.emplace();
    for (const auto& row : sheet.rows)
      args_->insert(render_shape_args(dims < row.size() ? row[dims] : "",
                                      types < row.size() ? row[types] : ""));
    return &*args_;
  }

  void check_args_cells() {
    // A sentinel rather than std::optional: GCC 12 -O2 warns maybe-uninitialized on the latter.
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::size_t args_column = kNone;
    for (std::size_t i = 0; i < md_.size(); ++i) {
      const std::string& line = md_.lines[i];
      if (!is_table_row(line)) {
        args_column = kNone;
        continue;
      }
      const auto cells = table_cells(line);
      const bool first_row = i == 0 || !is_table_row(md_.lines[i - 1]);
      if (first_row) {
        args_column = kNone;
        for (std::size_t c = 0; c < cells.size(); ++c)
          if (cells[c] == "Args" || cells[c] == "Args (T1)") args_column = c;
        continue;
      }
      if (args_column == kNone || is_separator_row(line)) continue;
      const std::set<std::string>* known = known_args();
      if (!known) return;
      // A row without shapes renders as "" and is printed as an em dash.
      std::string cell = args_column < cells.size() ? cells[args_column] : "";
      if (cell == "—") cell.clear();
      if (!known->contains(cell))
        problem(i, "Args cell `" + cell + "` matches no Input Dims / Input type row of " +
                       unified_sheet_path());
    }
  }

  // ---- findings.json (R1-R3) ----

  // The findings of each tier in rank order; nullopt (and a problem) when unreadable.
  std::optional<std::map<std::string, std::vector<ExpectedItem>>> expected_items() {
    std::map<std::string, std::vector<ExpectedItem>> out;
    const auto text = read_file(dir_ / "findings.json");
    if (!text) {
      file_problem("findings.json", "missing; the P-items cannot be checked against the findings");
      return std::nullopt;
    }
    json::error_code ec;
    json::value root = json::parse(*text, ec);
    if (ec || !root.is_object() || !root.as_object().contains("findings") ||
        !root.at("findings").is_array()) {
      file_problem("findings.json", "not a findings.json object with a `findings` array");
      return std::nullopt;
    }
    for (std::string& p : findings_invariant_problems(root.as_object()))
      file_problem("findings.json", std::move(p));
    std::map<std::string, std::vector<std::pair<std::int64_t, ExpectedItem>>> ranked;
    for (const json::value& v : root.at("findings").as_array()) {
      if (!v.is_object()) continue;
      const json::object& f = v.as_object();
      auto text_of = [&](const char* k) {
        const json::value* x = f.if_contains(k);
        return x && x->is_string() ? std::string(x->as_string()) : std::string();
      };
      auto number_of = [](const json::object& o, const char* k) {
        const json::value* x = o.if_contains(k);
        return x && x->is_number() ? x->to_number<double>() : 0.0;
      };
      ExpectedItem item;
      item.category = text_of("category");
      if (const json::value* impact = f.if_contains("impact"); impact && impact->is_object()) {
        const json::object& o = impact->as_object();
        const json::value* kind = o.if_contains("kind");
        item.quantified = kind && kind->is_string() && kind->as_string() != "not_quantifiable";
        item.low = number_of(o, "low");
        item.mid = number_of(o, "mid");
        item.high = number_of(o, "high");
      }
      const json::value* rank = f.if_contains("rank");
      ranked[text_of("tier")].emplace_back(rank && rank->is_int64() ? rank->as_int64() : 0, item);
    }
    for (auto& [tier, items] : ranked) {
      std::stable_sort(items.begin(), items.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (auto& [rank, item] : items) out[tier].push_back(item);
    }
    return out;
  }

  void check_against_findings() {
    const auto expected_or = expected_items();
    if (!expected_or) return;
    const auto& expected = *expected_or;
    for (const TierLayout& t : kTiers) {
      const auto it = expected.find(t.tier);
      const std::size_t want = it == expected.end() ? 0 : it->second.size();
      const auto& items = p_items_[t.tier];
      auto cards = top_section(t.cards);
      if (!cards) continue;
      if (items.size() != want) {
        problem(cards->begin - 1, std::to_string(items.size()) + " " + t.tier +
                                      " P-item(s) but findings.json has " + std::to_string(want));
        continue;
      }
      for (std::size_t n = 0; n < want; ++n) check_item(*items[n], it->second[n], t, n + 1);
    }
  }

  void check_item(const ImpactMarker& m, const ExpectedItem& e, const TierLayout& t,
                  std::size_t rank) {
    const std::string where = std::string(t.tier) + " P" + std::to_string(rank);
    if (std::string_view(t.tier) == "compute" && m.attribute("category") != e.category)
      problem(m.line, where + " marker category=" + m.attribute("category") +
                          " but findings.json has `" + e.category + "`");
    const std::pair<const char*, double> values[] = {
        {"low", e.low}, {"mid", e.mid}, {"high", e.high}};
    for (const auto& [key, want] : values) {
      const std::string v = m.attribute(key);
      const auto got = parse_number(v);
      if (!e.quantified) {
        if (v != "null")
          problem(m.line, where + " is not quantified in findings.json, but its marker has " + key +
                              "=" + v);
      } else if (!got || std::fabs(*got - want) > kImpactTolerance) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.4g", want);
        problem(m.line,
                where + " marker " + key + "=" + v + " differs from findings.json (" + buf + ")");
      }
    }
  }

  // ---- Linked files ----

  // Files of several runs in one folder (a run of an earlier version killed mid-write, files
  // copied in by hand): the manifest lists what the run that wrote analysis.md wrote.
  void check_manifest() {
    for (const io::ManifestProblem& p : io::check_report_manifest(dir_))
      file_problem(p.file, p.message);
  }

  void check_images() {
    for (std::size_t i = 0; i < md_.size(); ++i) {
      for (std::string_view view : image_targets(md_.lines[i])) {
        const std::string target(view);
        if (target.starts_with("data:") || target.find("://") != std::string::npos) continue;
        std::error_code ec;  // a path the file system refuses (too long, ...) exists no more
        if (!fs::is_regular_file(dir_ / target, ec))
          problem(i, "image `" + target + "` does not exist in the report folder");
      }
    }
  }

  fs::path dir_;
  MarkdownLines md_;
  LineRange whole_;
  std::vector<ReportProblem> problems_;
  std::vector<ImpactMarker> markers_;
  std::map<std::string, std::vector<const ImpactMarker*>> p_items_;
  std::set<std::string> anchors_;
  std::optional<std::set<std::string>> args_;
  bool args_loaded_ = false;
  bool comparative_ = false;  // `# ... - Comparative Analysis: P1 vs P2`
};

}  // namespace

std::string ReportProblem::to_string() const {
  return file + ":" + std::to_string(line) + ": " + message;
}

std::vector<ReportProblem> validate_report(const std::filesystem::path& dir) {
  return Validator(dir).run();
}

}  // namespace traceprism::validate
