// The SDK's fake host (traceprism/testing.hpp) behaves like the real one where plugin tests
// depend on it: row order, options and their defaults, the timeline, refused findings, captures.
#include <gtest/gtest.h>

#include <traceprism/testing.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

namespace tpt = traceprism::testing;
using traceprism::Context;
using traceprism::Kind;
using traceprism::Row;
using traceprism::Status;

// Records what it sees of the trace as figures, and one option.
class Probe : public traceprism::Analyzer {
 public:
  explicit Probe(Context& ctx) : limit_(ctx.option("Limit", 1.0)) {}
  Status run(Context& ctx) override {
    ctx.record("limit", limit_);
    const auto kernels = ctx.rows(Kind::kKernel);
    for (std::size_t i = 0; i < kernels.size(); ++i)
      ctx.record("kernel." + std::to_string(i), kernels[i]);
    if (auto t = ctx.timeline()) {
      ctx.record("total_us", t->total_us), ctx.record("busy_us", t->busy_us);
      ctx.record("idle_us", t->idle_us), ctx.record("computation_us", t->computation_us);
      ctx.record("total_comm_us", t->total_comm_us);
      ctx.record("exposed_comm_us", t->exposed_comm_us);
      ctx.record("total_memcpy_us", t->total_memcpy_us);
      ctx.record("exposed_memcpy_us", t->exposed_memcpy_us);
    }
    return Status::kOk;
  }

 private:
  double limit_;
};

TEST(FakeHost, RowsOfAKindAreSortedByTimeThenRow) {
  tpt::FakeTrace trace;
  trace.kernel("late", 30, 1);
  trace.cpu_op("op", 0, 100);
  trace.kernel("early", 10, 1);
  trace.kernel("tie", 30, 1);
  const tpt::RunResult r = tpt::run<Probe>(trace);
  ASSERT_EQ(r.status, Status::kOk);
  EXPECT_EQ(r.figure("kernel.0"), 2.0);
  EXPECT_EQ(r.figure("kernel.1"), 0.0);
  EXPECT_EQ(r.figure("kernel.2"), 3.0);
}

TEST(FakeHost, TimelineIsComputedFromTheGpuEvents) {
  tpt::FakeTrace trace;
  trace.kernel("gemm", 0, 10);           // computation [0, 10)
  trace.kernel("ncclAllReduce", 5, 15);  // communication [5, 20)
  trace.memcpy("Memcpy DtoH", 18, 12);   // memcpy [18, 30)
  trace.kernel("gemm", 40, 10);          // computation [40, 50)
  const tpt::RunResult r = tpt::run<Probe>(trace);
  EXPECT_DOUBLE_EQ(r.figure("total_us"), 50);
  EXPECT_DOUBLE_EQ(r.figure("busy_us"), 40);
  EXPECT_DOUBLE_EQ(r.figure("idle_us"), 10);
  EXPECT_DOUBLE_EQ(r.figure("computation_us"), 20);
  EXPECT_DOUBLE_EQ(r.figure("total_comm_us"), 15);
  EXPECT_DOUBLE_EQ(r.figure("exposed_comm_us"), 10);
  EXPECT_DOUBLE_EQ(r.figure("total_memcpy_us"), 12);
  EXPECT_DOUBLE_EQ(r.figure("exposed_memcpy_us"), 10);

  tpt::FakeTrace cpu_only;
  cpu_only.cpu_op("op", 0, 10);
  EXPECT_TRUE(std::isnan(tpt::run<Probe>(cpu_only).figure("total_us")));  // timeline skipped
}

TEST(FakeHost, OptionsAreTheAnalyzersOwnOrTheDeclaredDefault) {
  tpt::FakeTrace trace;
  trace.set_option("other.Limit", "7");
  EXPECT_EQ(tpt::run<Probe>(trace, "probe").figure("limit"), 1.0);  // another analyzer's
  EXPECT_EQ(tpt::run<Probe>(trace).figure("limit"), 7.0);           // unnamed: any analyzer's
  trace.set_option("probe.Limit", "3");
  EXPECT_EQ(tpt::run<Probe>(trace, "probe").figure("limit"), 3.0);

  static constexpr traceprism_option_v1 kOptions[] = {{"Limit", "5", "A limit."}};
  const traceprism_analyzer_v1 entry = traceprism::analyzer<Probe>("declared", "", kOptions);
  EXPECT_EQ(tpt::run(tpt::FakeTrace(), entry).figure("limit"), 5.0);

  trace.set_option("probe.Limit", "lots");
  const tpt::RunResult bad = tpt::run<Probe>(trace, "probe");
  EXPECT_EQ(bad.figure("limit"), 1.0);
  ASSERT_EQ(bad.logs.size(), 1u);
  EXPECT_EQ(bad.logs[0].level, TRACEPRISM_LOG_WARNING);
}

// Reads its options through declared_option: the defaults live only in kDeclaredOptions.
constexpr traceprism_option_v1 kDeclaredOptions[] = {
    {"Ratio", "0.25", "A ratio."}, {"Rows", "12", "A row count."}, {"Strict", "true", "A flag."}};

class DeclaredProbe : public traceprism::Analyzer {
 public:
  explicit DeclaredProbe(Context& ctx)
      : ratio_(ctx.declared_option<double>("Ratio", kDeclaredOptions)),
        rows_(ctx.declared_option<std::int64_t>("Rows", kDeclaredOptions)),
        strict_(ctx.declared_option<bool>("Strict", kDeclaredOptions)) {}
  Status run(Context& ctx) override {
    ctx.record("ratio", ratio_);
    ctx.record("rows", static_cast<double>(rows_));
    ctx.record("strict", strict_ ? 1 : 0);
    return Status::kOk;
  }

 private:
  double ratio_;
  std::int64_t rows_;
  bool strict_;
};

class UndeclaredProbe : public traceprism::Analyzer {
 public:
  explicit UndeclaredProbe(Context& ctx) { ctx.declared_option<double>("Typo", kDeclaredOptions); }
  Status run(Context&) override { return Status::kOk; }
};

TEST(FakeHost, DeclaredOptionsTakeTheirDefaultFromTheTableOnly) {
  tpt::FakeTrace trace;
  // Unnamed run: the fake host knows no option table, so the defaults come from the SDK's
  // reading of kDeclaredOptions.
  tpt::RunResult r = tpt::run<DeclaredProbe>(trace);
  EXPECT_EQ(r.figure("ratio"), 0.25);
  EXPECT_EQ(r.figure("rows"), 12.0);
  EXPECT_EQ(r.figure("strict"), 1.0);
  trace.set_option("probe.Rows", "3");
  trace.set_option("probe.Ratio", "not a number");
  r = tpt::run<DeclaredProbe>(trace, "probe");
  EXPECT_EQ(r.figure("rows"), 3.0);
  EXPECT_EQ(r.figure("ratio"), 0.25);  // a bad value falls back to the declared default
  const tpt::RunResult typo = tpt::run<UndeclaredProbe>(tpt::FakeTrace());
  EXPECT_EQ(typo.status, Status::kError);
  EXPECT_NE(typo.error.find("Typo is not in the analyzer's option table"), std::string::npos)
      << typo.error;
}

// Emits one good finding with every part, then two the host refuses, then fails.
class Emitter : public traceprism::Analyzer {
 public:
  Status run(Context& ctx) override {
    traceprism::Table table("Kernels", {"name", "us"});
    table.row({"gemm", "10"}).row({"relu"});
    ctx.report(traceprism::Tier::kFusion, "fusion", "Fuse it")
        .key("k")
        .severity(traceprism::Severity::kCritical)
        .insight("seen")
        .action("do")
        .impact(1, 2, 3)
        .evidence(0)
        .metric("m", 4)
        .table(table)
        .emit();
    ctx.report(traceprism::Tier::kSystem, "x", "").emit();  // no title
    ctx.report(traceprism::Tier::kSystem, "x", "Past the end").evidence(99).emit();
    ctx.info("done");
    return ctx.fail("could not finish");
  }
};

TEST(FakeHost, CapturesFindingsLogsAndErrorsAndDropsWhatTheHostRefuses) {
  tpt::FakeTrace trace;
  trace.kernel("gemm", 0, 10);
  const tpt::RunResult r = tpt::run<Emitter>(trace);
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_EQ(r.error, "could not finish");
  ASSERT_EQ(r.findings.size(), 1u);
  const tpt::Finding& f = r.findings[0];
  EXPECT_EQ(f.tier, traceprism::Tier::kFusion);
  EXPECT_EQ(f.severity, traceprism::Severity::kCritical);
  EXPECT_EQ(f.impact_kind, TRACEPRISM_IMPACT_QUANTIFIED);
  EXPECT_EQ(f.title, "Fuse it");
  EXPECT_EQ(f.key, "k");
  EXPECT_EQ(f.insight, "seen");
  EXPECT_EQ(f.action, "do");
  EXPECT_EQ(f.impact_mid, 2.0);
  EXPECT_EQ(f.rows, std::vector<Row>{0});
  EXPECT_EQ(f.metric("m"), 4.0);
  ASSERT_EQ(f.tables.size(), 1u);
  EXPECT_EQ(f.tables[0].columns, (std::vector<std::string>{"name", "us"}));
  ASSERT_EQ(f.tables[0].rows.size(), 2u);
  EXPECT_EQ(f.tables[0].rows[1], (std::vector<std::string>{"relu", ""}));
  ASSERT_EQ(r.logs.size(), 3u);
  EXPECT_EQ(r.logs[0].message, "finding dropped: finding has no title");
  EXPECT_EQ(r.logs[1].message, "finding dropped: finding evidence row is past the last event");
  EXPECT_EQ(r.logs[2].message, "done");
}

// Reads the launch arguments and op instances back as figures.
class ArgsProbe : public traceprism::Analyzer {
 public:
  Status run(Context& ctx) override {
    const auto copy = ctx.gpu_args(1);
    if (!copy || ctx.gpu_args(0)) return ctx.fail("gpu_args");
    ctx.record("bytes", static_cast<double>(copy->bytes));
    ctx.record("direction", copy->copy_direction);
    ctx.record("grid.x", ctx.gpu_args(2)->grid[0]);
    const auto ops = ctx.op_instances();
    ctx.record("ops", static_cast<double>(ops.size()));
    ctx.record("direct_busy_us", ops.direct_busy_us(0));
    ctx.record("kernels", static_cast<double>(ops.kernels(0).size()));
    ctx.record("category", ctx.string(ops.category_id(0)) == "GEMM");
    return Status::kOk;
  }
};

TEST(FakeHost, GpuArgsAndOpInstances) {
  tpt::FakeTrace trace;
  auto op = trace.cpu_op("aten::mm", 0, 100);
  trace.memcpy("Memcpy DtoH", 10, 5)
      .bytes(4096)
      .copy(TRACEPRISM_COPY_DTOH, TRACEPRISM_MEMORY_DEVICE, TRACEPRISM_MEMORY_PAGEABLE);
  auto k1 = trace.kernel("gemm", 20, 10).grid(128, 1, 1).block(256, 1, 1);
  auto k2 = trace.kernel("gemm", 25, 10);
  trace.add_op_instance(op, {k1, k2}).category = "GEMM";
  const tpt::RunResult r = tpt::run<ArgsProbe>(trace);
  ASSERT_EQ(r.status, Status::kOk) << r.error;
  EXPECT_EQ(r.figure("bytes"), 4096.0);
  EXPECT_EQ(r.figure("direction"), TRACEPRISM_COPY_DTOH);
  EXPECT_EQ(r.figure("grid.x"), 128.0);
  EXPECT_EQ(r.figure("ops"), 1.0);
  EXPECT_DOUBLE_EQ(r.figure("direct_busy_us"), 15.0);  // union of [20, 30) and [25, 35)
  EXPECT_EQ(r.figure("kernels"), 2.0);
  EXPECT_EQ(r.figure("category"), 1.0);
}

void model_mm(const traceprism::OpCall& call, traceprism::OpModelResult& out) {
  if (call.name() != "aten::mm") throw traceprism::NotModelled();
  out.category = "GEMM";
  out.flops = 2.0 * 64 * 64 * 64;
  out.param("M", 64);
}

TEST(FakeHost, RunsAnOpModel) {
  tpt::FakeTrace trace;
  auto mm = trace.cpu_op("aten::mm", 0, 10);
  auto add = trace.cpu_op("aten::add", 20, 10);
  static constexpr const char* kOps[] = {"aten::mm", nullptr};
  const traceprism_op_model_v1 model = traceprism::op_model<&model_mm>("mm", "", kOps);
  const tpt::OpModelRun r = tpt::run_op_model(trace, model, mm);
  ASSERT_EQ(r.status, Status::kOk);
  EXPECT_EQ(r.result.category, "GEMM");
  EXPECT_EQ(r.result.flops, 2.0 * 64 * 64 * 64);
  ASSERT_EQ(r.result.params.size(), 1u);
  EXPECT_EQ(r.result.params[0].key, "M");
  EXPECT_EQ(r.result.params[0].repr, "64");
  EXPECT_EQ(tpt::run_op_model(trace, model, add).status, Status::kSkipped);
}

// Republishes the product it was given with one more row, and records the python tree's size.
class Relay : public traceprism::Analyzer {
 public:
  Status run(Context& ctx) override {
    ctx.record("python_tree_rows", static_cast<double>(ctx.python_tree_parents().size()));
    if (!ctx.python_tree_parents().empty())
      ctx.record("parent_of_last", ctx.python_tree_parents()[ctx.python_tree_parents().size() - 1]);
    const auto in = ctx.product("upstream.names");
    if (!in) return Status::kSkipped;
    traceprism::Table out("", {"name"});
    for (std::size_t r = 0; r < in->row_count(); ++r) out.row({std::string(in->cell(r, "name"))});
    out.row({"relayed"});
    ctx.publish("relay.names", out);
    return Status::kOk;
  }
};

TEST(FakeHost, ProductsInAndOutAndThePythonTree) {
  tpt::FakeTrace trace;
  const Row frame = trace.add(Kind::kPythonFunction, "model.py(1): forward", 0, 10);
  trace.cpu_op("aten::mm", 1, 5).parent(frame);
  EXPECT_EQ(tpt::run<Relay>(trace).status, Status::kSkipped);  // no product given

  trace.add_product({"upstream.names", {"name"}, {{"a"}, {"b"}}});
  const tpt::RunResult r = tpt::run<Relay>(trace);
  ASSERT_EQ(r.status, Status::kOk);
  EXPECT_EQ(r.figure("python_tree_rows"), 2.0);
  EXPECT_EQ(r.figure("parent_of_last"), 0.0);
  ASSERT_EQ(r.products.size(), 1u);
  EXPECT_EQ(r.products[0].name, "relay.names");
  EXPECT_EQ(r.products[0].columns, std::vector<std::string>{"name"});
  EXPECT_EQ(r.products[0].rows, (std::vector<std::vector<std::string>>{{"a"}, {"b"}, {"relayed"}}));
}

}  // namespace

// Records how many unified perf events the host gives and the last one's row.
class UnifiedEvents : public traceprism::Analyzer {
 public:
  Status run(Context& ctx) override {
    const auto events = ctx.unified_perf_events();
    ctx.record("count", static_cast<double>(events.size()));
    if (!events.empty()) ctx.record("last", events[events.size() - 1]);
    return Status::kOk;
  }
};

TEST(FakeHost, UnifiedPerfEvents) {
  tpt::FakeTrace trace;
  trace.cpu_op("aten::mm", 0, 5);
  const Row add = trace.cpu_op("aten::add", 10, 5);
  EXPECT_EQ(tpt::run<UnifiedEvents>(trace).figure("count"), 0.0);  // no perf report
  trace.set_unified_perf_events({0, add});
  const tpt::RunResult r = tpt::run<UnifiedEvents>(trace);
  EXPECT_EQ(r.figure("count"), 2.0);
  EXPECT_EQ(r.figure("last"), static_cast<double>(add));
}

// Reads every per-row column the ABI's events() has, through the SDK's EventView.
class ColumnReader : public traceprism::Analyzer {
 public:
  Status run(Context& ctx) override {
    const traceprism::EventView ev = ctx.events();
    for (Row r = 0; r < ev.size(); ++r) {
      const std::string p = std::to_string(r) + ".";
      ctx.record(p + "device", ev.device(r)), ctx.record(p + "stream", ev.stream(r));
      ctx.record(p + "class", static_cast<double>(ev.gpu_class(r)));
      ctx.record(p + "thread", ev.thread(r) == traceprism::kNoRow ? -1.0 : ev.thread(r));
    }
    return Status::kOk;
  }
};

// Looks every row up through one view in several orders (forward, backward, strided, repeated,
// scattered) and counts the answers that differ from a fresh view's: the view's remembered
// GPU-table position must never change an answer.
class LookupOrders : public traceprism::Analyzer {
 public:
  Status run(Context& ctx) override {
    const traceprism::EventView shared = ctx.events();
    const auto n = static_cast<Row>(shared.size());
    std::vector<Row> order;
    for (Row r = 0; r < n; ++r) order.push_back(r);
    for (Row r = n; r-- > 0;) order.push_back(r);
    for (Row r = 0; r < n; r += 7) order.insert(order.end(), {r, r, r + 1 < n ? r + 1 : r});
    for (Row i = 0; i < 3 * n; ++i) order.push_back((i * 7919 + 13) % n);
    double differing = 0;
    for (Row r : order) {
      const traceprism::EventView fresh = ctx.events();
      differing += shared.stream(r) != fresh.stream(r) || shared.device(r) != fresh.device(r) ||
                   shared.gpu_class(r) != fresh.gpu_class(r);
    }
    ctx.record("lookups", static_cast<double>(order.size()));
    ctx.record("differing", differing);
    ctx.record("stream_of_last", shared.stream(n - 1));
    return Status::kOk;
  }
};

TEST(FakeHost, EventViewGivesTheSameGpuColumnsInAnyLookupOrder) {
  tpt::FakeTrace trace;
  Row last = 0;
  for (int i = 0; i < 300; ++i) {
    if (i % 3 == 0) trace.cpu_op("aten::op", i * 10, 2);
    last = trace.kernel("k", i * 10 + 3, 2).device(i % 4).stream(100 + i).row();
  }
  const tpt::RunResult r = tpt::run<LookupOrders>(trace);
  ASSERT_EQ(r.status, Status::kOk);
  EXPECT_GT(r.figure("lookups"), 1000.0);
  EXPECT_EQ(r.figure("differing"), 0.0);
  EXPECT_EQ(r.figure("stream_of_last"), 399.0);
  EXPECT_GE(last, 399u);
}

// From ABI 1.4 EventView reads GPU rows' device, stream and class from the sparse GPU table and
// a row's thread from the full columns; a plugin must see the same values as from an older host,
// which hands out only the full columns.
TEST(FakeHost, EventViewReadsTheSameColumnsFromTheCoreAndTheFullEvents) {
  tpt::FakeTrace trace;
  trace.cpu_op("aten::mm", 0, 5).thread(3);
  trace.kernel("ncclAllReduce", 1, 2)
      .device(1)
      .stream(7)
      .gpu_class(traceprism::GpuClass::kCommunication);
  trace.memcpy("Memcpy DtoH", 4, 1).device(0).stream(9).gpu_class(traceprism::GpuClass::kMemcpy);
  const tpt::RunResult now = tpt::run<ColumnReader>(trace);
  ASSERT_EQ(now.status, Status::kOk);
  EXPECT_EQ(now.figure("0.thread"), 3.0);
  EXPECT_EQ(now.figure("0.device"), -1.0);
  EXPECT_EQ(now.figure("0.class"), static_cast<double>(TRACEPRISM_GPU_NONE));
  EXPECT_EQ(now.figure("1.device"), 1.0);
  EXPECT_EQ(now.figure("1.stream"), 7.0);
  EXPECT_EQ(now.figure("1.class"), static_cast<double>(TRACEPRISM_GPU_COMMUNICATION));
  EXPECT_EQ(now.figure("2.stream"), 9.0);
  EXPECT_EQ(now.figure("2.class"), static_cast<double>(TRACEPRISM_GPU_MEMCPY));

  // The same analyzer against a 1.3 host table: no core_events or gpu_events.
  const traceprism_analyzer_v1 entry = traceprism::analyzer<ColumnReader>("column-reader", "");
  tpt::detail::Session session(trace, entry.name, &entry);
  traceprism_host_api_v1 older = *tpt::detail::Session::api();
  older.struct_size = offsetof(traceprism_host_api_v1, core_events);
  ASSERT_EQ(entry.run(session.ctx(), &older, entry.user), TRACEPRISM_OK);
  for (Row r = 0; r < 3; ++r)
    for (const char* column : {"device", "stream", "class", "thread"}) {
      const std::string key = std::to_string(r) + "." + column;
      EXPECT_EQ(session.result.figure(key), now.figure(key)) << key;
    }
}
