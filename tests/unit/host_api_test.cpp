// The host API table as plugins see it: column views, rows by kind, options with declared
// defaults, and emit's validation and deep copy.
#include "plugins/host_api.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "support/analyzer_run.hpp"
#include "support/temp_dir.hpp"
#include "support/trace_builder.hpp"

namespace traceprism::plugins {
namespace {

traceprism_str str(const char* s) {
  return {s, std::strlen(s)};
}

class HostApi : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::TraceText t;
    t.launch("aten::mm", 0, 20, "gemm_a", 30, 10, 7, 1);                            // rows 0-4
    t.launch("aten::copy_", 50, 20, "Memcpy DtoH (Device -> Pinned)", 80, 5, 7, 2,  // rows 5-9
             "gpu_memcpy");
    testing::TempDir dir;
    run_ = std::make_unique<testing::AnalyzerRun>(dir.write("t.json", t.str()), analyzer_, "test",
                                                  R"({"options": {"test-analyzer.Set": "7"}})");
    ctx_ = run_->ctx();
  }

  const findings::AnalyzerOutcome& outcome() const { return run_->outcome(); }
  const ingest::TraceFile& file() const { return run_->file(); }

  const traceprism_host_api_v1* api = host_api();
  traceprism_option_v1 options_[1] = {{"Declared", "2.5", "a declared option"}};
  traceprism_analyzer_v1 analyzer_{
      sizeof(traceprism_analyzer_v1), 1, "test-analyzer", "", nullptr, options_, nullptr, nullptr};
  std::unique_ptr<testing::AnalyzerRun> run_;
  traceprism_run_ctx* ctx_ = nullptr;
};

TEST_F(HostApi, TableAnnouncesItsVersion) {
  EXPECT_EQ(api->struct_size, sizeof(traceprism_host_api_v1));
  EXPECT_EQ(api->abi_major, 1u);
  EXPECT_EQ(api->abi_minor, static_cast<std::uint32_t>(TRACEPRISM_ABI_MINOR));
}

TEST_F(HostApi, ColumnsDescribeTheTrace) {
  const traceprism_event_columns_v1* c = api->events(ctx_);
  ASSERT_EQ(c->count, 10u);  // 2 x (op, launch call, GPU event, flow start, flow end)
  EXPECT_EQ(c->kind[0], TRACEPRISM_KIND_CPU_OP);
  EXPECT_EQ(c->kind[1], TRACEPRISM_KIND_RUNTIME);
  EXPECT_EQ(c->kind[2], TRACEPRISM_KIND_KERNEL);
  EXPECT_EQ(c->ts_ns[2], 30000);
  EXPECT_EQ(c->dur_ns[2], 10000);
  EXPECT_EQ(c->parent[1], 0u);    // the launch call sits under aten::mm
  EXPECT_EQ(c->launcher[2], 1u);  // the kernel was launched by row 1
  EXPECT_EQ(c->launcher[0], TRACEPRISM_NO_ROW);
  EXPECT_EQ(c->stream[2], 7);
  EXPECT_EQ(c->stream[0], -1);
  EXPECT_EQ(c->thread[2], TRACEPRISM_NO_ROW);
  EXPECT_NE(c->thread[0], TRACEPRISM_NO_ROW);
  EXPECT_EQ(c->gpu_class[2], TRACEPRISM_GPU_COMPUTATION);
  EXPECT_EQ(c->gpu_class[7], TRACEPRISM_GPU_MEMCPY);
  traceprism_str name = api->string(ctx_, c->name_id[2]);
  EXPECT_EQ(std::string(name.data, name.size), "gemm_a");
  EXPECT_EQ(api->find_string(ctx_, str("gemm_a")), c->name_id[2]);
  EXPECT_EQ(api->find_string(ctx_, str("not in the trace")), TRACEPRISM_NO_STRING);
}

// ABI 1.4: the columns without three of the per-row plugin columns, and GPU rows' device,
// stream and class in a sparse table; events() builds the three only when first asked. The
// class column (a byte a row, which the ABI allows NULL) is there: analyzers read it per event.
TEST_F(HostApi, CoreEventsAndGpuEventsLeaveThePerRowColumnsUnbuilt) {
  const traceprism_event_columns_v1* core = api->core_events(ctx_);
  ASSERT_EQ(core->count, 10u);
  EXPECT_EQ(core->thread, nullptr);
  EXPECT_EQ(core->device, nullptr);
  EXPECT_EQ(core->stream, nullptr);
  ASSERT_NE(core->gpu_class, nullptr);
  EXPECT_EQ(core->gpu_class[1], TRACEPRISM_GPU_NONE);
  EXPECT_EQ(core->gpu_class[2], TRACEPRISM_GPU_COMPUTATION);
  EXPECT_EQ(core->gpu_class[7], TRACEPRISM_GPU_MEMCPY);
  EXPECT_EQ(core->launcher[2], 1u);
  const traceprism_gpu_events_v1* gpu = api->gpu_events(ctx_);
  ASSERT_EQ(gpu->count, 2u);
  EXPECT_EQ(gpu->row[0], 2u);
  EXPECT_EQ(gpu->row[1], 7u);
  EXPECT_EQ(gpu->device[0], 0);
  EXPECT_EQ(gpu->stream[0], 7);
  EXPECT_EQ(gpu->stream[1], 7);
  EXPECT_EQ(gpu->gpu_class[0], TRACEPRISM_GPU_COMPUTATION);
  EXPECT_EQ(gpu->gpu_class[1], TRACEPRISM_GPU_MEMCPY);
  EXPECT_FALSE(run_->products().derived_columns_built());

  const traceprism_event_columns_v1* full = api->events(ctx_);
  EXPECT_TRUE(run_->products().derived_columns_built());
  EXPECT_EQ(full->ts_ns, core->ts_ns);  // the same index column, not a copy
  for (std::size_t i = 0; i < gpu->count; ++i) {
    EXPECT_EQ(full->device[gpu->row[i]], gpu->device[i]);
    EXPECT_EQ(full->stream[gpu->row[i]], gpu->stream[i]);
    EXPECT_EQ(full->gpu_class[gpu->row[i]], gpu->gpu_class[i]);
  }
}

TEST_F(HostApi, RowsOfKindAndGpuArgs) {
  std::uint64_t n = 0;
  const std::uint32_t* rows = api->rows_of_kind(ctx_, TRACEPRISM_KIND_MEMCPY, &n);
  ASSERT_EQ(n, 1u);
  traceprism_gpu_args_v1 args{};
  args.struct_size = sizeof(args);
  ASSERT_EQ(api->gpu_args(ctx_, rows[0], &args), TRACEPRISM_OK);
  EXPECT_EQ(args.copy_direction, TRACEPRISM_COPY_DTOH);
  EXPECT_EQ(args.copy_destination, TRACEPRISM_MEMORY_PINNED);
  EXPECT_EQ(api->gpu_args(ctx_, 0, &args), TRACEPRISM_ABSENT);  // a cpu_op has none
  EXPECT_EQ(api->rows_of_kind(ctx_, 99, &n), nullptr);
  EXPECT_EQ(n, 0u);
}

// op_call grew in 1.9: a plugin built before passes the minor-1 size and gets what fits; the
// new fields stay as it set them (here a marker), and a 1.9 caller gets "no step" for an op
// outside any serving step.
TEST_F(HostApi, OpCallFillsWhatTheCallersStructHolds) {
  traceprism_op_call_v1 call{};
  call.struct_size = offsetof(traceprism_op_call_v1, has_step_stats);  // a 1.1-1.8 plugin
  call.has_step_stats = 7;
  ASSERT_EQ(api->op_call(ctx_, 0, &call), TRACEPRISM_OK);
  EXPECT_EQ(std::string_view(call.name.data, call.name.size), "aten::mm");
  EXPECT_EQ(call.kernel_count, 1u);
  EXPECT_EQ(call.has_step_stats, 7u);
  call.struct_size = sizeof(call);
  ASSERT_EQ(api->op_call(ctx_, 0, &call), TRACEPRISM_OK);
  EXPECT_EQ(call.has_step_stats, 0u);
  call.struct_size = offsetof(traceprism_op_call_v1, has_step_stats) - 8;
  EXPECT_EQ(api->op_call(ctx_, 0, &call), TRACEPRISM_ABSENT);
  // 1.11 appended pseudo_op_args: a 1.9/1.10 caller gets the step stats, not the new field; a
  // 1.11 caller gets NULL for an event of the trace itself (not a pseudo op).
  call.struct_size = offsetof(traceprism_op_call_v1, pseudo_op_args);
  call.has_step_stats = 7;
  call.pseudo_op_args = str("marker");
  ASSERT_EQ(api->op_call(ctx_, 0, &call), TRACEPRISM_OK);
  EXPECT_EQ(call.has_step_stats, 0u);
  EXPECT_EQ(std::string_view(call.pseudo_op_args.data, call.pseudo_op_args.size), "marker");
  call.struct_size = sizeof(call);
  ASSERT_EQ(api->op_call(ctx_, 0, &call), TRACEPRISM_OK);
  EXPECT_EQ(call.pseudo_op_args.data, nullptr);
}

// rows_of_kind is in start-time order whatever the file's order: one sorted run (shown as the
// index holds it), two sorted runs (the capture merge appends its copies after the trace's
// rows: merged), or any order (sorted).
TEST(HostApiRowsOfKind, InStartOrderForAnyFileOrder) {
  for (const std::vector<int>& starts :
       {std::vector<int>{10, 20, 30}, {10, 30, 50, 20, 40}, {40, 10, 30, 5, 20, 50}}) {
    testing::TraceText t;
    for (int ts : starts) t.x("cpu_op", "op" + std::to_string(ts), std::to_string(ts), "1");
    testing::TempDir dir;
    traceprism_analyzer_v1 analyzer{
        sizeof(traceprism_analyzer_v1), 1, "test-analyzer", "", nullptr, nullptr, nullptr, nullptr};
    testing::AnalyzerRun run(dir.write("t.json", t.str()), analyzer, "test", "{}");
    std::uint64_t n = 0;
    const std::uint32_t* rows = host_api()->rows_of_kind(run.ctx(), TRACEPRISM_KIND_CPU_OP, &n);
    ASSERT_EQ(n, starts.size());
    std::vector<int> seen;
    for (std::uint64_t i = 0; i < n; ++i)
      seen.push_back(static_cast<int>(run.file().index.ts_ns(rows[i]) / 1000));
    std::vector<int> expected = starts;
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(seen, expected);
  }
}

TEST_F(HostApi, TimelineAndOpInstances) {
  traceprism_timeline_v1 t{};
  t.struct_size = sizeof(t);
  ASSERT_EQ(api->timeline(ctx_, &t), TRACEPRISM_OK);
  EXPECT_EQ(t.gpu_event_count, 2u);
  EXPECT_DOUBLE_EQ(t.total_us, 55.0);
  EXPECT_DOUBLE_EQ(t.busy_us, 15.0);
  const traceprism_op_instances_v1* ops = api->op_instances(ctx_);
  ASSERT_EQ(ops->count, 2u);
  EXPECT_EQ(ops->row[0], 0u);
  EXPECT_DOUBLE_EQ(ops->direct_busy_us[0], 10.0);
  EXPECT_EQ(ops->kernel_count[0], 1u);
  EXPECT_EQ(ops->kernel_rows[ops->kernel_begin[0]], 2u);
  // No op model claims "aten::mm" here: the reference's fallback category (§7) applies.
  const traceprism_str category = api->string(ctx_, ops->category_id[0]);
  EXPECT_EQ(std::string(category.data, category.size), "other");
}

TEST_F(HostApi, OptionsComeFromConfigThenDeclaredDefaults) {
  traceprism_str set = api->option(ctx_, str("Set"));
  EXPECT_EQ(std::string(set.data, set.size), "7");
  traceprism_str declared = api->option(ctx_, str("Declared"));
  EXPECT_EQ(std::string(declared.data, declared.size), "2.5");
  EXPECT_EQ(api->option(ctx_, str("Unknown")).data, nullptr);
  double v = 0;
  EXPECT_EQ(api->platform_number(ctx_, str("peak_tflops.matrix_bf16"), &v), TRACEPRISM_ABSENT);
}

traceprism_finding_v1 valid_finding(const std::uint32_t* rows, std::uint32_t n) {
  traceprism_finding_v1 f{};
  f.struct_size = sizeof(f);
  f.tier = TRACEPRISM_TIER_SYSTEM;
  f.severity = TRACEPRISM_SEVERITY_WARNING;
  f.category = str("test");
  f.key = str("k");
  f.title = str("Something to fix");
  f.share_percent = 12.5;
  f.confidence = -1;
  f.rows = rows;
  f.row_count = n;
  return f;
}

TEST_F(HostApi, EmitDeepCopiesAValidFinding) {
  std::uint32_t rows[] = {7, 2};
  std::string title = "Something to fix";
  traceprism_finding_v1 f = valid_finding(rows, 2);
  f.title = {title.data(), title.size()};
  traceprism_str columns[] = {str("A"), str("B")};
  traceprism_str cells[] = {str("1"), str("2"), str("3"), str("4")};
  traceprism_table_v1 table{sizeof(traceprism_table_v1), 2, 2, str("T"), columns, cells};
  f.tables = &table;
  f.table_count = 1;
  ASSERT_EQ(api->emit(ctx_, &f), TRACEPRISM_OK);
  title.assign("overwritten by the plugin after emit");
  ASSERT_EQ(outcome().findings.size(), 1u);
  const findings::Finding& copy = outcome().findings[0];
  EXPECT_EQ(copy.title, "Something to fix");
  EXPECT_EQ(copy.analyzer, "test-analyzer");
  EXPECT_EQ(copy.rows, (std::vector<std::uint32_t>{7, 2}));
  EXPECT_EQ(copy.first_evidence_ts_ns, 30000);  // row 2 starts first
  ASSERT_EQ(copy.tables.size(), 1u);
  EXPECT_EQ(copy.tables[0].rows, (std::vector<std::vector<std::string>>{{"1", "2"}, {"3", "4"}}));
}

TEST_F(HostApi, EmitRefusesMalformedFindingsWithAReason) {
  std::uint32_t bad_row[] = {1000};
  struct Case {
    const char* why;
    void (*spoil)(traceprism_finding_v1&);
  };
  traceprism_finding_v1 past_end = valid_finding(bad_row, 1);
  EXPECT_EQ(api->emit(ctx_, &past_end), TRACEPRISM_ERROR);
  traceprism_finding_v1 no_title = valid_finding(nullptr, 0);
  no_title.title = {nullptr, 0};
  EXPECT_EQ(api->emit(ctx_, &no_title), TRACEPRISM_ERROR);
  traceprism_finding_v1 bad_tier = valid_finding(nullptr, 0);
  bad_tier.tier = 9;
  EXPECT_EQ(api->emit(ctx_, &bad_tier), TRACEPRISM_ERROR);
  traceprism_finding_v1 dangling = valid_finding(nullptr, 0);
  dangling.insight = {nullptr, 5};
  EXPECT_EQ(api->emit(ctx_, &dangling), TRACEPRISM_ERROR);
  traceprism_finding_v1 small = valid_finding(nullptr, 0);
  small.struct_size = 8;
  EXPECT_EQ(api->emit(ctx_, &small), TRACEPRISM_ERROR);
  EXPECT_EQ(api->emit(ctx_, nullptr), TRACEPRISM_ERROR);
  EXPECT_TRUE(outcome().findings.empty());
  EXPECT_EQ(outcome().refused_findings, 6u);
  ASSERT_EQ(outcome().log.size(), 6u);
  EXPECT_EQ(outcome().log[0].message,
            "finding dropped: finding evidence row 1000 is past the last event");
  EXPECT_EQ(outcome().log[1].message, "finding dropped: finding has no title");
}

TEST_F(HostApi, RecordKeepsOrderAndLastValue) {
  traceprism_metric_v1 figures[] = {{str("b"), 1}, {str("a"), 2}, {str("b"), 3}};
  api->record(ctx_, figures, 3);
  ASSERT_EQ(outcome().figures.size(), 2u);
  EXPECT_EQ(outcome().figures[0], (std::pair<std::string, double>{"b", 3}));
  EXPECT_EQ(outcome().figures[1], (std::pair<std::string, double>{"a", 2}));
}

}  // namespace
}  // namespace traceprism::plugins
