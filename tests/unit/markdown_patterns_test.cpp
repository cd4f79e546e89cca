// validate/markdown_patterns: each hand-written scanner against the std::regex it replaces, as
// the oracle, on random short lines built from the pieces its pattern cares about; then each on
// a line of a million characters, which overflowed the stack of libstdc++'s recursive matcher.
#include "validate/markdown_patterns.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace traceprism::validate {
namespace {

constexpr int kRandomLines = 20000;
constexpr std::size_t kLong = 1000000;

// Random lines of two kinds, in turn: up to `max_pieces` pieces drawn from `pieces` (plus the
// pieces every pattern shares: blanks, line breaks, a letter, a digit, a pipe), and, when a
// shape is given, one option of each of its slots in order (the first option four times in
// five, otherwise any; now and then a random piece in between), so that whole matches are
// common too.
class LineMaker {
 public:
  using Shape = std::vector<std::vector<std::string>>;

  LineMaker(std::initializer_list<std::string> pieces, unsigned seed, Shape shape = {},
            int max_pieces = 10)
      : pieces_(pieces), shape_(std::move(shape)), random_(seed), max_pieces_(max_pieces) {
    for (const char* common : {" ", "\t", "\n", "\r", "a", "1", "_", "|"})
      pieces_.emplace_back(common);
  }

  std::string operator()() {
    shaped_ = !shaped_ && !shape_.empty();
    return shaped_ ? shaped() : pieces();
  }

 private:
  const std::string& any_of(const std::vector<std::string>& options) {
    return options[std::uniform_int_distribution<std::size_t>(0, options.size() - 1)(random_)];
  }

  bool chance(double p) { return std::bernoulli_distribution(p)(random_); }

  std::string pieces() {
    std::string out;
    const int n = std::uniform_int_distribution<int>(0, max_pieces_)(random_);
    for (int i = 0; i < n; ++i) out += any_of(pieces_);
    return out;
  }

  std::string shaped() {
    std::string out;
    for (const std::vector<std::string>& slot : shape_) {
      if (chance(0.1)) out += any_of(pieces_);
      out += chance(0.8) ? slot.front() : any_of(slot);
    }
    return out;
  }

  std::vector<std::string> pieces_;
  Shape shape_;
  std::mt19937 random_;
  int max_pieces_;
  bool shaped_ = false;
};

std::optional<std::string> text(std::optional<std::string_view> v) {
  return v ? std::optional<std::string>(*v) : std::nullopt;
}

std::vector<std::string> texts(const std::vector<std::string_view>& v) {
  return {v.begin(), v.end()};
}

// What the validator read with std::regex_search.
bool regex_found(const std::string& line, const std::regex& re) {
  return std::regex_search(line, re);
}

// Group `group` of the leftmost match, as the validator read it.
std::optional<std::string> regex_group(const std::string& line, const std::regex& re, int group) {
  std::smatch m;
  if (!std::regex_search(line, m, re)) return std::nullopt;
  return m[group].str();
}

// Group 1 of every match, as the validator's std::sregex_iterator loops read them.
std::vector<std::string> regex_groups(const std::string& line, const std::regex& re) {
  std::vector<std::string> out;
  for (std::sregex_iterator it(line.begin(), line.end(), re), end; it != end; ++it)
    out.push_back((*it)[1].str());
  return out;
}

// ---- Differential tests: the scanner answers as the regex does ----

// Each test asserts on kRandomLines lines and counts those where the regex found something:
// both answers must be common, or the lines would not exercise the pattern.
void expect_both_answers_common(int found) {
  EXPECT_GT(found, kRandomLines / 50) << "the regex found something in too few lines";
  EXPECT_LT(found, kRandomLines - kRandomLines / 50) << "the regex found nothing in too few lines";
}

TEST(MarkdownPatterns, PNumberAsTheRegex) {
  const std::regex re(R"(\bP\d+:)");
  LineMaker make({"P", "P1", "2", ":", "x", "#", "### ", "🔴", "-", "P12:"}, 1);
  int found = 0;
  for (int n = 0; n < kRandomLines; ++n) {
    const std::string line = make();
    const bool expected = regex_found(line, re);
    found += expected;
    ASSERT_EQ(has_p_number(line), expected) << "line: [" << line << "]";
  }
  expect_both_answers_common(found);
}

TEST(MarkdownPatterns, PlaceholderCellAsTheRegex) {
  const std::regex re(R"(\|\s*(X ms|Y%|Z%|W%)\s*(\||$))");
  LineMaker make({"X ms", "X", " ms", "Y%", "Z%", "W%", "Y", "%", "| ", " |", "\v", "\f"}, 2,
                 {{"| Idle ", ""},
                  {"|", "", "||"},
                  {" ", "", "\t", "\n", "x"},
                  {"X ms", "X  ms", "Y%", "Z%", "W%", "x ms", "Y"},
                  {" ", "", "\v", "a"},
                  {"|", "", "| x |", "\n|"}});
  int found = 0;
  for (int n = 0; n < kRandomLines; ++n) {
    const std::string line = make();
    const bool expected = regex_found(line, re);
    found += expected;
    ASSERT_EQ(has_placeholder_cell(line), expected) << "line: [" << line << "]";
  }
  expect_both_answers_common(found);
}

TEST(MarkdownPatterns, FirstNumberAsTheRegex) {
  const std::regex re(R"([-+]?\d+(\.\d+)?)");
  LineMaker make({"-", "+", ".", "0.5", "12", "3", " ms", "%", "e", "x", "--", "+."}, 3);
  int found = 0;
  for (int n = 0; n < kRandomLines; ++n) {
    const std::string line = make();
    const std::optional<std::string> expected = regex_group(line, re, 0);
    found += expected.has_value();
    ASSERT_EQ(text(first_number(line)), expected) << "line: [" << line << "]";
  }
  expect_both_answers_common(found);
}

TEST(MarkdownPatterns, TopOpsRowAttributesAsTheRegex) {
  const std::regex re(R"(<!--\s*top-ops-row\s+(.*?)-->)");
  LineMaker make({"<!--", "<!-- ", "top-ops-row", "top-ops-row ", "-->", "--", ">", "-", "<!",
                  "low=1", "high=null", "=", "\v"},
                 4,
                 {{"| x | ", "", "<!-- top-ops-row -->", "-->"},
                  {"<!--", "<!-", "<--", "<!-- <!--"},
                  {" ", "", "  ", "\n", "\v", "x"},
                  {"top-ops-row", "top-ops-ro", "top-ops-row-->"},
                  {" ", "", "\t", "\r\n", " \n", "\n "},
                  {"low=1 high=2 ", "", "low=1\nhigh=2", "-", "--", "->", "<!--"},
                  {"-->", "->", "--", " -->"},
                  {"", " |", "-->", "\n-->"}},
                 12);
  int found = 0;
  for (int n = 0; n < kRandomLines; ++n) {
    const std::string line = make();
    const std::optional<std::string> expected = regex_group(line, re, 1);
    found += expected.has_value();
    ASSERT_EQ(text(top_ops_row_attributes(line)), expected) << "line: [" << line << "]";
  }
  expect_both_answers_common(found);
}

TEST(MarkdownPatterns, AnchorIdsAsTheRegex) {
  const std::regex re(R"re(<a id="([^"]+)")re");
  LineMaker make({"<a id=\"", "<a id=", "\"", "\">", "</a>", "<a", "p1", "-", "<"}, 5,
                 {{"", "x"},
                  {"<a id=\"", "<a id=", "<a  id=\""},
                  {"p1", "", "p\"1", "\n"},
                  {"\"", "", "\"\""},
                  {"></a>", "", "<a id=\"q\""}});
  int found = 0;
  for (int n = 0; n < kRandomLines; ++n) {
    const std::string line = make();
    const std::vector<std::string> expected = regex_groups(line, re);
    found += !expected.empty();
    ASSERT_EQ(texts(anchor_ids(line)), expected) << "line: [" << line << "]";
  }
  expect_both_answers_common(found);
}

TEST(MarkdownPatterns, AnchorLinkTargetsAsTheRegex) {
  const std::regex re(R"(\]\(#([^)\s]+)\))");
  LineMaker make({"](#", "]", "(", "#", ")", "[", "p1", "-", "\v", "[x](#p1)"}, 6,
                 {{"", "[P1"},
                  {"](#", "](", "]( #", "](#](#"},
                  {"p1", "", "p 1", "p\n1", "p)"},
                  {")", "", " )"},
                  {"", " [x](#y)"}});
  int found = 0;
  for (int n = 0; n < kRandomLines; ++n) {
    const std::string line = make();
    const std::vector<std::string> expected = regex_groups(line, re);
    found += !expected.empty();
    ASSERT_EQ(texts(anchor_link_targets(line)), expected) << "line: [" << line << "]";
  }
  expect_both_answers_common(found);
}

TEST(MarkdownPatterns, ImageTargetsAsTheRegex) {
  const std::regex re(R"(!\[[^\]]*\]\(([^)\s]+)\))");
  LineMaker make({"![", "!", "[", "]", "(", ")", "](", "x.png", "/", "\v", "![a](b.png)"}, 7,
                 {{"", "x ", "![", "](#a)"},
                  {"![", "!", "[", "![!["},
                  {"alt", "", "a]b", "\n", "a b"},
                  {"](", "]", "] (", "]]("},
                  {"b.png", "", "a b", "x)", "/p/q.png", "\t"},
                  {")", "", " )", "))"},
                  {"", " ![c](d.png)", "(e)"}});
  int found = 0;
  for (int n = 0; n < kRandomLines; ++n) {
    const std::string line = make();
    const std::vector<std::string> expected = regex_groups(line, re);
    found += !expected.empty();
    ASSERT_EQ(texts(image_targets(line)), expected) << "line: [" << line << "]";
  }
  expect_both_answers_common(found);
}

TEST(MarkdownPatterns, StandaloneFusionImpactAsTheRegex) {
  const std::regex re(R"(impact_score:\s*[\d.]+\s*\(perf-model coverage \d+/\d+ kernels\))");
  LineMaker make({"impact_score:", "impact_score: ", "0.5", ".", "3", "(perf-model coverage ",
                  "3/4", "/", " kernels)", " kernels", ")", "(", "**Impact** "},
                 8,
                 {{"**Impact** ", "", "impact_score: 1 "},
                  {"impact_score:", "impact_score", "impact_score: 0.1 impact_score:"},
                  {" ", "", "  ", "\t", "\n", "x"},
                  {"0.5", ".", "3", "", "a", "1.2.3", "-1"},
                  {" ", "", "\n", "\r", "\v "},
                  {"(perf-model coverage ", "(perf-model coverage", "perf-model coverage ",
                   "(perf-model  coverage "},
                  {"3", "12", "", "x", " 3"},
                  {"/", "", "//"},
                  {"4", "", "45", "a"},
                  {" kernels)", " kernels", "kernels)", " kernels) tail", " kernels)\n"}},
                 12);
  int found = 0;
  for (int n = 0; n < kRandomLines; ++n) {
    const std::string line = make();
    const bool expected = regex_found(line, re);
    found += expected;
    ASSERT_EQ(has_standalone_fusion_impact(line), expected) << "line: [" << line << "]";
  }
  expect_both_answers_common(found);
}

TEST(MarkdownPatterns, ComparativeFusionImpactAsTheRegex) {
  const std::regex re(R"(impact_score:\s*[\d.]+\s*$)");
  LineMaker make({"impact_score:", "impact_score: ", "0.5", ".", "3", "(perf-model coverage ",
                  "3/4", " kernels)", "**Impact** ", "\v"},
                 9,
                 {{"**Impact** ", "", "impact_score: 1 "},
                  {"impact_score:", "impact_score", "impact_score: 0.1 impact_score:"},
                  {" ", "", "  ", "\t", "\n", "x"},
                  {"0.5", ".", "3", "", "a", "1.2.3", "-1"},
                  {"", " ", "\n", "\r", "\v ", " x", " (perf-model coverage 3/4 kernels)"}});
  int found = 0;
  for (int n = 0; n < kRandomLines; ++n) {
    const std::string line = make();
    const bool expected = regex_found(line, re);
    found += expected;
    ASSERT_EQ(has_comparative_fusion_impact(line), expected) << "line: [" << line << "]";
  }
  expect_both_answers_common(found);
}

// ---- A million characters: the regexes recursed once per character here ----

TEST(MarkdownPatterns, PNumberOnAMillionCharacters) {
  EXPECT_TRUE(has_p_number("### P" + std::string(kLong, '7') + ": x"));
  EXPECT_FALSE(has_p_number("### P" + std::string(kLong, '7') + " x"));
  EXPECT_FALSE(has_p_number(std::string(kLong, 'P')));
}

TEST(MarkdownPatterns, PlaceholderCellOnAMillionCharacters) {
  EXPECT_TRUE(has_placeholder_cell("| Idle |" + std::string(kLong, ' ') + "Z%" +
                                   std::string(kLong, ' ') + "|"));
  EXPECT_FALSE(has_placeholder_cell("| Idle |" + std::string(kLong, ' ') + "3%|"));
}

TEST(MarkdownPatterns, FirstNumberOnAMillionCharacters) {
  const std::string digits(kLong, '4');
  EXPECT_EQ(first_number("| x | -" + digits + ".25 ms |"), "-" + digits + ".25");
  EXPECT_EQ(first_number(std::string(kLong, '-')), std::nullopt);
}

TEST(MarkdownPatterns, TopOpsRowAttributesOnAMillionCharacters) {
  const std::string name(kLong, 'n');
  EXPECT_EQ(top_ops_row_attributes("| " + name + " | <!-- top-ops-row low=1 " + name + " -->"),
            "low=1 " + name + " ");
  // Many starts, no end: each start must not rescan the rest of the line.
  std::string starts;
  while (starts.size() < kLong) starts += "<!-- top-ops-row ";
  EXPECT_EQ(top_ops_row_attributes(starts), std::nullopt);
}

TEST(MarkdownPatterns, AnchorIdsOnAMillionCharacters) {
  const std::string id(kLong, 'i');
  EXPECT_EQ(texts(anchor_ids("<a id=\"" + id + "\"></a><a id=\"b\">")),
            (std::vector<std::string>{id, "b"}));
  std::string empty_ids;
  while (empty_ids.size() < kLong) empty_ids += "<a id=\"\"";
  EXPECT_TRUE(anchor_ids(empty_ids).empty());
}

TEST(MarkdownPatterns, AnchorLinkTargetsOnAMillionCharacters) {
  const std::string id(kLong, 'i');
  EXPECT_EQ(texts(anchor_link_targets("see [P1](#" + id + ") and [P2](#p2)")),
            (std::vector<std::string>{id, "p2"}));
  std::string starts;
  while (starts.size() < kLong) starts += "](#";
  EXPECT_TRUE(anchor_link_targets(starts).empty());
}

TEST(MarkdownPatterns, ImageTargetsOnAMillionCharacters) {
  const std::string alt(kLong, 'a'), file(kLong, 'f');
  EXPECT_EQ(texts(image_targets("![" + alt + "](" + file + ".png) ![b](b.png)")),
            (std::vector<std::string>{file + ".png", "b.png"}));
  std::string starts;
  while (starts.size() < kLong) starts += "![";
  EXPECT_TRUE(image_targets(starts + "](" + std::string(kLong, 'f')).empty());
}

TEST(MarkdownPatterns, StandaloneFusionImpactOnAMillionCharacters) {
  const std::string digits(kLong, '9');
  EXPECT_TRUE(has_standalone_fusion_impact("**Impact** impact_score: 0." + digits +
                                           " (perf-model coverage " + digits + "/4 kernels)"));
  EXPECT_FALSE(has_standalone_fusion_impact("**Impact** impact_score: 0." + digits));
}

TEST(MarkdownPatterns, ComparativeFusionImpactOnAMillionCharacters) {
  const std::string digits(kLong, '9');
  EXPECT_TRUE(
      has_comparative_fusion_impact("**Impact** impact_score: 0." + digits + std::string(9, ' ')));
  EXPECT_FALSE(has_comparative_fusion_impact("**Impact** impact_score: 0." + digits +
                                             " (perf-model coverage 3/4 kernels)"));
}

}  // namespace
}  // namespace traceprism::validate
