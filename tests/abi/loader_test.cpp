// The plugin handshake on real modules (tests/abi/plugins/*): each purpose-built plugin is
// loaded by PluginRegistry and refused with its exact sentence, and run-time failures
// (a throwing analyzer, an analyzer returning an error, a refused plugin) are checked end to end
// through `traceprism analyze`: the run goes on and findings.json says what happened.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "plugins/plugin_registry.hpp"
#include "support/csv.hpp"
#include "support/run_cli.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using traceprism::plugins::PluginRegistry;
using traceprism::testing::run_cli;
using traceprism::testing::shell_quote;
using traceprism::testing::TempDir;

// The folder of the purpose-built plugin `name`, and its module file.
fs::path plugin_dir(const std::string& name) {
  return fs::path(TRACEPRISM_ABI_PLUGIN_DIR) / name;
}
fs::path plugin(const std::string& name) {
  return plugin_dir(name) / ("libtraceprism_" + name + TRACEPRISM_MODULE_SUFFIX);
}
std::string quoted(const fs::path& p) {
  return "'" + p.string() + "'";
}
std::string version(int major, int minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

// Loads one file that must be refused; returns the reason.
std::string refusal(const fs::path& file) {
  PluginRegistry registry;
  EXPECT_FALSE(registry.load_file(file)) << file;
  EXPECT_TRUE(registry.plugins().empty());
  if (registry.refused().size() != 1) {
    ADD_FAILURE() << "expected one refusal for " << file;
    return {};
  }
  EXPECT_EQ(registry.refused()[0].path, file);
  return registry.refused()[0].reason;
}

// ---- handshake ------------------------------------------------------------------------------

TEST(Loader, LoadsAWellFormedPlugin) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.load_file(plugin("ok")));
  EXPECT_TRUE(registry.refused().empty());
  ASSERT_EQ(registry.plugins().size(), 1u);
  const auto& loaded = registry.plugins()[0];
  EXPECT_EQ(loaded.path, plugin("ok"));
  const traceprism_plugin_v1& info = *loaded.info;
  EXPECT_STREQ(info.name, "ok");
  EXPECT_STREQ(info.version, "1.2.3");
  EXPECT_EQ(info.abi_major, static_cast<std::uint32_t>(TRACEPRISM_ABI_MAJOR));
  EXPECT_EQ(info.abi_minor, static_cast<std::uint32_t>(TRACEPRISM_ABI_MINOR));
  ASSERT_EQ(info.analyzer_count, 2u);
  EXPECT_STREQ(info.analyzers[0].name, "ok-alpha");
  EXPECT_STREQ(info.analyzers[1].name, "ok-beta");
  ASSERT_EQ(info.op_model_count, 1u);
  EXPECT_STREQ(info.op_models[0].name, "ok-matmul");
  EXPECT_STREQ(info.op_models[0].op_names[0], "aten::mm");
}

TEST(Loader, RefusesAFileThatIsNotALibrary) {
  const fs::path file = plugin("not_a_library");
  const std::string prefix = "cannot load " + quoted(file) + ": ";
  const std::string reason = refusal(file);
  EXPECT_EQ(reason.rfind(prefix, 0), 0u) << reason;
  EXPECT_GT(reason.size(), prefix.size()) << "the loader's own words should follow";
}

TEST(Loader, RefusesAMissingFile) {
  const fs::path file = plugin_dir("ok") / "libtraceprism_missing.so";
  const std::string reason = refusal(file);
  EXPECT_EQ(reason.rfind("cannot load " + quoted(file) + ": ", 0), 0u) << reason;
}

TEST(Loader, RefusesALibraryWithoutTheEntryPoint) {
  const fs::path file = plugin("no_entry");
  EXPECT_EQ(refusal(file),
            quoted(file) + " is not a traceprism plugin (no traceprism_plugin_query_v1)");
}

TEST(Loader, RefusesAnotherMajorVersion) {
  const fs::path file = plugin("wrong_major");
  EXPECT_EQ(refusal(file), quoted(file) + " was built for traceprism ABI 2.x; this host speaks " +
                               std::to_string(TRACEPRISM_ABI_MAJOR) + ".x");
}

TEST(Loader, RefusesANewerMinorVersion) {
  const fs::path file = plugin("newer_minor");
  const std::string host = version(TRACEPRISM_ABI_MAJOR, TRACEPRISM_ABI_MINOR);
  EXPECT_EQ(refusal(file), quoted(file) + " needs traceprism ABI >= " +
                               version(TRACEPRISM_ABI_MAJOR, TRACEPRISM_ABI_MINOR + 1) +
                               "; this host provides " + host +
                               "; upgrade traceprism or rebuild the plugin against SDK " + host);
}

TEST(Loader, RefusesAnAnalyzerWithoutRunFunction) {
  const fs::path file = plugin("null_run");
  EXPECT_EQ(refusal(file), quoted(file) + ": analyzer 'null-run' has no run function");
}

TEST(Loader, RefusesANameThatIsNotKebabCase) {
  const fs::path file = plugin("bad_name");
  EXPECT_EQ(refusal(file), quoted(file) +
                               ": analyzer name 'Not_Kebab' is not kebab-case (lowercase "
                               "letters, digits and '-')");
}

TEST(Loader, RefusesADuplicateAnalyzerNameAndKeepsTheFirst) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.load_file(plugin("ok")));
  EXPECT_FALSE(registry.load_file(plugin("dup_name")));
  ASSERT_EQ(registry.plugins().size(), 1u);
  EXPECT_STREQ(registry.plugins()[0].info->name, "ok");
  ASSERT_EQ(registry.refused().size(), 1u);
  EXPECT_EQ(registry.refused()[0].reason, quoted(plugin("dup_name")) +
                                              ": analyzer 'ok-alpha' is already provided by " +
                                              quoted(plugin("ok")));
}

TEST(Loader, LoadsADirectoryInNameOrderAndGoesOnAfterARefusal) {
  TempDir dir;
  for (const char* name : {"wrong_major", "ok", "not_a_library"})
    fs::copy_file(plugin(name), dir.path() / plugin(name).filename());
  dir.write("README.md", "not a plugin: ignored\n");
  fs::create_directory(dir.path() / "folder.so");  // not a regular file: ignored

  PluginRegistry registry;
  registry.load_directory(dir.path());
  ASSERT_EQ(registry.plugins().size(), 1u);
  EXPECT_STREQ(registry.plugins()[0].info->name, "ok");
  EXPECT_EQ(registry.plugins()[0].path, dir.path() / "libtraceprism_ok.so");
  ASSERT_EQ(registry.refused().size(), 2u);
  EXPECT_EQ(registry.refused()[0].path, dir.path() / "libtraceprism_not_a_library.so");
  EXPECT_EQ(registry.refused()[1].path, dir.path() / "libtraceprism_wrong_major.so");
}

// ---- run-time isolation, end to end ------------------------------------------------------

class AnalyzeWithTestPlugins : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    work_ = new TempDir;
    std::string output;
    ASSERT_EQ(
        run_cli("synth -o " + shell_quote(trace()) + " --layers 1 --steps 1 --seed 5", &output), 0)
        << output;
  }
  static void TearDownTestSuite() {
    delete work_;
    work_ = nullptr;
  }
  static std::string trace() { return work_->file("trace.json"); }

  // Runs `analyze` with the plugins of one test folder; returns findings.json.
  json::object analyze_with(const std::string& plugin, const std::string& extra_args = "") {
    const std::string out = out_.file("report");
    std::string output;
    EXPECT_EQ(run_cli("analyze " + shell_quote(trace()) + " --plugin-dir " +
                          shell_quote(plugin_dir(plugin).string()) + " -o " + shell_quote(out) +
                          extra_args,
                      &output),
              0)
        << output;
    const std::string text = traceprism::testing::read_file(out + "/findings.json");
    if (text.empty()) {
      ADD_FAILURE() << "no findings.json; output:\n" << output;
      return {};
    }
    return json::parse(text).as_object();
  }

  // The "analyzers" entry named `name`, or an empty object.
  static json::object analyzer(const json::object& findings, const std::string& name) {
    for (const auto& a : findings.at("analyzers").as_array())
      if (a.as_object().at("name").as_string() == name) return a.as_object();
    ADD_FAILURE() << "no analyzer " << name << " in findings.json";
    return {};
  }

  static inline TempDir* work_ = nullptr;
  TempDir out_;
};

TEST_F(AnalyzeWithTestPlugins, AThrowingAnalyzerFailsAloneAndItsNeighbourReports) {
  const json::object f = analyze_with("throws");
  if (f.empty()) return;
  const json::object boom = analyzer(f, "throws-boom");
  EXPECT_EQ(boom.at("plugin").as_string(), "throws");
  EXPECT_EQ(boom.at("status").as_string(), "failed");
  EXPECT_EQ(boom.at("error").as_string(), "unhandled exception: boom");
  const json::object fine = analyzer(f, "throws-fine");
  EXPECT_EQ(fine.at("plugin").as_string(), "throws");
  EXPECT_EQ(fine.at("status").as_string(), "ok");
  EXPECT_FALSE(fine.contains("error"));
  int reported = 0;
  for (const auto& finding : f.at("findings").as_array()) {
    if (finding.as_object().at("analyzer").as_string() != "throws-fine") continue;
    ++reported;
    EXPECT_EQ(finding.as_object().at("title").as_string(),
              "throws-fine ran next to a throwing analyzer");
  }
  EXPECT_EQ(reported, 1);
}

// A plugin that dies or hangs fails only its own analyzer: each runs in a child process. The
// limit leaves room for AddressSanitizer's child, which symbolizes its report before it aborts
// (over 2 s on a loaded CI machine).
TEST_F(AnalyzeWithTestPlugins, ACrashingOrHangingAnalyzerFailsAloneAndTheRunFinishes) {
  const std::string out = out_.file("report");
  std::string output;
  ASSERT_EQ(run_cli("analyze " + shell_quote(trace()) + " --plugin-dir " +
                        shell_quote(plugin_dir("crashes").string()) + " -o " + shell_quote(out) +
                        " --analyzer-timeout 12",
                    &output),
            0)
      << output;
  const json::object f =
      json::parse(traceprism::testing::read_file(out + "/findings.json")).as_object();
  const json::object segv = analyzer(f, "crash-segv");
  EXPECT_EQ(segv.at("status").as_string(), "failed");
  // Under AddressSanitizer the child reports the fault and aborts instead (signal 6).
  EXPECT_EQ(std::string(segv.at("error").as_string()).rfind("crashed (signal ", 0), 0)
      << segv.at("error").as_string();
  const json::object hang = analyzer(f, "crash-hang");
  EXPECT_EQ(hang.at("status").as_string(), "failed");
  EXPECT_EQ(hang.at("error").as_string(), "did not finish within 12 s and was stopped");
  const json::object survivor = analyzer(f, "crash-survivor");
  EXPECT_EQ(survivor.at("status").as_string(), "ok");
  EXPECT_EQ(f.at("figures").as_object().at("crash-survivor").as_object().at("ran").as_double(),
            1.0);
  int reported = 0;
  for (const auto& finding : f.at("findings").as_array())
    reported += finding.as_object().at("analyzer").as_string() == "crash-survivor";
  EXPECT_EQ(reported, 1);
  EXPECT_NE(output.find("warning: analyzer crash-segv failed: crashed"), std::string::npos)
      << output;
}

// In-process mode still isolates exceptions; the hanging analyzer is told not to hang.
TEST_F(AnalyzeWithTestPlugins, WithoutIsolationExceptionsAreStillContained) {
  const std::string out = out_.file("report");
  const std::string config = out_.file("config.json");
  {
    std::ofstream(config)
        << R"({"analyzers": "*,-crash-segv", "options": {"crash-hang.Hang": false}})";
  }
  std::string output;
  ASSERT_EQ(run_cli("analyze " + shell_quote(trace()) + " --plugin-dir " +
                        shell_quote(plugin_dir("crashes").string()) + " --plugin-dir " +
                        shell_quote(plugin_dir("throws").string()) + " -o " + shell_quote(out) +
                        " --no-isolate --config " + shell_quote(config),
                    &output),
            0)
      << output;
  const json::object f =
      json::parse(traceprism::testing::read_file(out + "/findings.json")).as_object();
  EXPECT_EQ(analyzer(f, "crash-hang").at("status").as_string(), "ok");
  EXPECT_EQ(analyzer(f, "crash-segv").at("status").as_string(), "disabled");
  EXPECT_EQ(analyzer(f, "throws-boom").at("error").as_string(), "unhandled exception: boom");
  EXPECT_EQ(analyzer(f, "throws-fine").at("status").as_string(), "ok");
}

TEST_F(AnalyzeWithTestPlugins, AnAnalyzerErrorIsReportedWithItsMessage) {
  const json::object f = analyze_with("error_return");
  if (f.empty()) return;
  const json::object a = analyzer(f, "error-return");
  EXPECT_EQ(a.at("plugin").as_string(), "error_return");
  EXPECT_EQ(a.at("status").as_string(), "failed");
  EXPECT_EQ(a.at("error").as_string(), "could not read the trace's streams");
}

TEST_F(AnalyzeWithTestPlugins, RefusedPluginsAreListedAndTheRunGoesOn) {
  for (const char* name : {"wrong_major", "newer_minor", "null_run", "not_a_library"}) {
    SCOPED_TRACE(name);
    const json::object f = analyze_with(name);
    if (f.empty()) continue;
    const fs::path file = plugin(name);
    bool listed = false;
    for (const auto& p : f.at("plugins_refused").as_array()) {
      const json::object& refused = p.as_object();
      if (fs::path(std::string(refused.at("path").as_string())) != file) continue;
      listed = true;
      const std::string reason(refused.at("reason").as_string());
      EXPECT_NE(reason.find(quoted(file)), std::string::npos) << reason;
    }
    EXPECT_TRUE(listed) << "findings.json plugins_refused does not list " << file;
    EXPECT_TRUE(f.contains("findings"));
  }
}

// ABI 1.2 products flow along depends_on edges, through the isolating child processes too;
// an optional dependency that is not loaded is ignored; a non-dependent never sees a product.
TEST_F(AnalyzeWithTestPlugins, ProductsReachDependentsOnly) {
  for (const char* extra : {"", " --no-isolate"}) {
    SCOPED_TRACE(std::string("args:") + extra);
    const json::object f = analyze_with("products", extra);
    if (f.empty()) continue;
    for (const char* name : {"products-publisher", "products-reader", "products-stranger"})
      EXPECT_EQ(analyzer(f, name).at("status").as_string(), "ok") << name;
    const json::object& figures = f.at("figures").as_object();
    const json::object& publisher = figures.at("products-publisher").as_object();
    EXPECT_EQ(publisher.at("published").as_double(), 1.0);
    EXPECT_EQ(publisher.at("python_tree_rows").as_double(), publisher.at("event_rows").as_double());
    const json::object& reader = figures.at("products-reader").as_object();
    EXPECT_GT(reader.at("rows").as_double(), 0.0);
    EXPECT_EQ(reader.at("first_ordinal").as_double(), 1.0);
    EXPECT_EQ(figures.at("products-stranger").as_object().at("rows").as_double(), -1.0);
  }
}

// A plugin built against ABI 1.4 that reads the perf report through perf_sheet still loads
// into this (1.5) host and gets the cells the CSVs hold, exactly.
TEST_F(AnalyzeWithTestPlugins, APluginBuiltForAbi14ReadsTheSameSheetCells) {
  const json::object f = analyze_with("legacy_sheets");
  if (f.empty()) return;
  EXPECT_EQ(analyzer(f, "legacy-sheet-reader").at("status").as_string(), "ok");
  const json::object* finding = nullptr;
  for (const auto& x : f.at("findings").as_array())
    if (x.as_object().at("analyzer").as_string() == "legacy-sheet-reader") finding = &x.as_object();
  ASSERT_NE(finding, nullptr);
  const json::array& tables = finding->at("tables").as_array();
  ASSERT_EQ(tables.size(), 2u);
  for (const auto& t : tables) {
    const json::object& table = t.as_object();
    const std::string name(table.at("title").as_string());
    SCOPED_TRACE(name);
    const traceprism::testing::Csv csv = traceprism::testing::parse_csv(
        traceprism::testing::read_file(out_.file("report") + "/perf_report_csvs/" + name + ".csv"));
    ASSERT_GT(csv.rows.size(), 0u);
    const json::array& columns = table.at("columns").as_array();
    ASSERT_EQ(columns.size(), csv.header.size());
    for (std::size_t c = 0; c < columns.size(); ++c)
      EXPECT_EQ(columns[c].as_string(), csv.header[c]);
    const json::array& rows = table.at("rows").as_array();
    ASSERT_EQ(rows.size(), csv.rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const json::array& cells = rows[r].as_array();
      ASSERT_EQ(cells.size(), csv.header.size());
      for (std::size_t c = 0; c < cells.size(); ++c) {
        const std::string want = c < csv.rows[r].size() ? csv.rows[r][c] : std::string();
        EXPECT_EQ(cells[c].as_string(), want) << "row " << r << ", column " << csv.header[c];
      }
    }
    EXPECT_EQ(f.at("figures")
                  .as_object()
                  .at("legacy-sheet-reader")
                  .as_object()
                  .at(name + ".rows")
                  .as_double(),
              static_cast<double>(csv.rows.size()));
  }
}

}  // namespace
