// Unit test of the hello analyzer against the SDK's fake host (traceprism/testing.hpp).
// Plain checks, no test framework: exits 1 on the first failure.
#include <traceprism/testing.hpp>

#include <cstdio>
#include <cstdlib>

#include "hello_analyzer.hpp"

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

namespace tpt = traceprism::testing;
using traceprism::Status;

static void counts_kernels() {
  tpt::FakeTrace trace;
  auto op = trace.cpu_op("aten::mm", 0, 30);
  auto launch = trace.runtime("cudaLaunchKernel", 5, 4).parent(op).correlation(1);
  trace.kernel("sm90_gemm", 12, 40).launcher(launch).correlation(1);
  trace.kernel("vectorized_elementwise_kernel", 60, 5);

  const tpt::RunResult r = tpt::run<hello::HelloAnalyzer>(trace, "hello");
  CHECK(r.status == Status::kOk);
  CHECK(r.error.empty());
  CHECK(r.findings.size() == 1);
  const tpt::Finding& f = r.findings[0];
  CHECK(f.title == "Hello from an out-of-tree plugin: 2 kernels seen");
  CHECK(f.category == "hello" && f.key == "hello");
  CHECK(f.tier == traceprism::Tier::kSystem);
  CHECK(f.metric("kernels") == 2.0);
  CHECK(f.rows.size() == 1 && f.rows[0] == 2);  // the first kernel's row
  CHECK(r.figure("hello.kernel_count") == 2.0);
}

static void reads_its_option() {
  tpt::FakeTrace trace;
  trace.set_option("hello.Greeting", "Bonjour");
  const tpt::RunResult r = tpt::run<hello::HelloAnalyzer>(trace, "hello");
  CHECK(r.status == Status::kOk && r.findings.size() == 1);
  CHECK(r.findings[0].title == "Bonjour from an out-of-tree plugin: 0 kernels seen");
  CHECK(r.findings[0].rows.empty());
}

// Through the plugin's own table (hello_plugin.cpp), as the host calls it.
static void runs_from_the_plugin_table() {
  tpt::FakeTrace trace;
  trace.kernel("k", 0, 1);
  const traceprism_plugin_v1* plugin = traceprism_plugin_query_v1();
  CHECK(plugin->abi_major == TRACEPRISM_ABI_MAJOR && plugin->abi_minor == TRACEPRISM_ABI_MINOR);
  CHECK(plugin->analyzer_count == 1 && plugin->analyzers[0].option_count == 1);
  const tpt::RunResult r = tpt::run(trace, *plugin, "hello");
  CHECK(r.status == Status::kOk && r.findings.size() == 1);
  CHECK(r.findings[0].title == "Hello from an out-of-tree plugin: 1 kernels seen");
}

int main() {
  counts_kernels();
  reads_its_option();
  runs_from_the_plugin_table();
  std::puts("hello_test: all checks passed");
  return 0;
}
