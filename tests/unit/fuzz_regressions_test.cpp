// The fuzz targets' bodies (tests/fuzz/fuzz_targets.hpp) replayed in every build, without
// libFuzzer: on each input a fuzzer once crashed on or a hand-made nasty one
// (tests/fuzz/regressions/), and on each seed of the corpus (tests/fuzz/corpus/). One test per
// file and body; docs/testing.md says how a fuzzer's crash becomes one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.hpp"

namespace traceprism::fuzz {
namespace {

namespace fs = std::filesystem;

const fs::path kFuzzDir = TRACEPRISM_FUZZ_DIR;

// The inputs of a folder, by name; README files and hidden files are no inputs.
std::vector<fs::path> inputs_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && !name.starts_with(".") && !name.starts_with("README"))
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// As strings: gtest prints a parameter, and a path is a range of paths.
std::vector<std::string> all_inputs() {
  std::vector<std::string> out;
  for (const char* dir : {"regressions", "corpus"})
    for (const fs::path& p : inputs_in(kFuzzDir / dir)) out.push_back(p.string());
  return out;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// "regressions/long_prefill_name.json" -> "regressions_long_prefill_name_json".
std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  const fs::path path(info.param);
  std::string name = path.parent_path().filename().string() + "_" + path.filename().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class FuzzReplay : public ::testing::TestWithParam<std::string> {
 protected:
  // The body on the file's bytes, then on the bytes followed by 1 .. `paddings` - 1 spaces
  // (whitespace after the document changes nothing but the length, from which the model body
  // picks its options: a seed is then read and analysed under each of them).
  void replay(void (*body)(std::string_view), int paddings = 1) {
    std::string bytes = read_bytes(GetParam());
    ASSERT_FALSE(bytes.empty() && fs::file_size(GetParam()) > 0) << GetParam();
    for (int i = 0; i < paddings; ++i, bytes += ' ') {
      try {
        body(bytes);
      } catch (const std::exception& e) {
        FAIL() << GetParam() << (i ? " + " + std::to_string(i) + " spaces" : "") << ": "
               << e.what();
      }
    }
  }
  bool is_seed() const { return fs::path(GetParam()).parent_path().filename() == "corpus"; }
};

TEST_P(FuzzReplay, ReaderAcceptsOrRefusesIt) {
  replay(fuzz_trace_reader);
}

// Regression inputs byte for byte; seeds under 16 option sets (fuzz_targets.cpp, variant_of).
TEST_P(FuzzReplay, ModelsAndReportsBuildWithValidOutput) {
  replay(fuzz_trace_model, is_seed() ? 16 : 1);
}

INSTANTIATE_TEST_SUITE_P(Inputs, FuzzReplay, ::testing::ValuesIn(all_inputs()), test_name);

TEST(FuzzInputs, CorpusAndRegressionsAreThere) {
  EXPECT_GE(inputs_in(kFuzzDir / "corpus").size(), 20u) << kFuzzDir / "corpus";
  EXPECT_GE(inputs_in(kFuzzDir / "regressions").size(), 2u) << kFuzzDir / "regressions";
}

// The seeds stay small: libFuzzer runs with -max_len=8192 and skips the rest of a longer seed.
TEST(FuzzInputs, SeedsFitTheFuzzersMaxLen) {
  for (const fs::path& seed : inputs_in(kFuzzDir / "corpus"))
    EXPECT_LE(fs::file_size(seed), 8192u) << seed;
}

}  // namespace
}  // namespace traceprism::fuzz
