// Every real trace under ../shared/traces (TraceLens, HTA, agent unit cases: NVIDIA, AMD, MTIA,
// CPU-only, multi-stream, graph replay, distributed) must read without skipped events, and the
// derived products must satisfy their invariants.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "ingest/trace_reader.hpp"
#include "pipeline/trace_load.hpp"
#include "support/index_fingerprint.hpp"
#include "support/shared_traces.hpp"

namespace fs = std::filesystem;
using traceprism::index::EventKind;
using traceprism::index::Row;

namespace {

const fs::path kTraces = traceprism::testing::shared_traces();

using TraceCase = traceprism::testing::SharedTrace;

class AllTraces : public ::testing::TestWithParam<TraceCase> {};

TEST_P(AllTraces, ReadCleanlyAndModelsAreConsistent) {
  const TraceCase& c = GetParam();
  if (c.path.empty()) GTEST_SKIP() << kTraces << " is absent";
  traceprism::pipeline::LoadOptions options;
  options.quiet = true;
  auto s = traceprism::pipeline::load_trace(c.path.string(), options);
  const auto& x = s.file.index;
  EXPECT_GT(x.size(), 0u);
  EXPECT_EQ(x.stats().skipped_events(), 0u);

  // Every linked GPU event was launched by a runtime or driver call that lists it.
  for (EventKind k : {EventKind::kKernel, EventKind::kGpuMemcpy, EventKind::kGpuMemset}) {
    for (Row g : x.rows_of_kind(k)) {
      if (!s.links.linked(g)) continue;
      auto launcher = static_cast<Row>(s.links.launcher(g));
      ASSERT_TRUE(traceprism::index::is_runtime_kind(x.kind(launcher)));
      auto launched = s.links.launched(launcher);
      EXPECT_NE(std::find(launched.begin(), launched.end(), g), launched.end());
    }
  }
  // A node's parent is on the same thread and encloses its start.
  for (EventKind k : {EventKind::kCpuOp, EventKind::kCudaRuntime, EventKind::kCudaDriver}) {
    for (Row r : x.rows_of_kind(k)) {
      const auto p = s.tree.parent(r);
      if (p < 0) continue;
      const auto parent = static_cast<Row>(p);
      EXPECT_EQ(x.pid(parent), x.pid(r));
      EXPECT_EQ(x.tid(parent), x.tid(r));
      EXPECT_LE(x.ts_us(parent), x.ts_us(r));
    }
  }
  // Timeline identity (trace-format spec §4.5).
  const auto& t = s.timeline;
  EXPECT_NEAR(t.computation_us + t.exposed_comm_us + t.exposed_memcpy_us + t.idle_us, t.total_us,
              1e-6 * std::max(1.0, t.total_us));
  EXPECT_LE(t.exposed_comm_us, t.total_comm_us + 1e-9);
  EXPECT_LE(t.exposed_memcpy_us, t.total_memcpy_us + 1e-9);
  EXPECT_EQ(t.events, s.links.linked_count());
}

// The parallel reader (worker threads parsing batches of traceEvents) builds the index the
// one-thread reader builds: every string id, row, byte offset and metadata entry. Small chunks
// and batches put their boundaries inside names and numbers.
TEST_P(AllTraces, ParallelReaderGivesTheOneThreadIndex) {
  const TraceCase& c = GetParam();
  if (c.path.empty()) GTEST_SKIP() << kTraces << " is absent";
  std::ifstream in(c.path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  traceprism::ingest::ReadOptions one;
  one.chunk_bytes = 64 << 10;
  const auto expected = traceprism::ingest::read_trace_bytes(bytes, c.name, one);
  traceprism::ingest::ReadOptions parallel = one;
  parallel.threads = 3;
  parallel.parallel_min_bytes = 0;
  parallel.batch_bytes = 20 << 10;
  const auto got = traceprism::ingest::read_trace_bytes(bytes, c.name, parallel);
  EXPECT_EQ(got.parse_threads, 3u) << "the parallel reader fell back to one thread";
  EXPECT_EQ(got.json_bytes, expected.json_bytes);
  EXPECT_TRUE(traceprism::testing::index_fingerprint(got.index) ==
              traceprism::testing::index_fingerprint(expected.index));
}

INSTANTIATE_TEST_SUITE_P(Shared, AllTraces,
                         ::testing::ValuesIn(traceprism::testing::all_shared_traces()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
