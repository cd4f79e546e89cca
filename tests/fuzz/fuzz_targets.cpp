#include "fuzz/fuzz_targets.hpp"

#include <boost/json/parse.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "comparison/comparative_findings.hpp"
#include "comparison/diff_stats.hpp"
#include "comparison/kernel_diff.hpp"
#include "comparison/report_diff.hpp"
#include "comparison/sheet_frame.hpp"
#include "comparison/stack_mismatch.hpp"
#include "comparison/time_breakdown.hpp"
#include "comparison/trace_diff.hpp"
#include "config/run_config.hpp"
#include "findings/category_shares.hpp"
#include "findings/diagnosis.hpp"
#include "findings/model_identification.hpp"
#include "findings/ranker.hpp"
#include "findings/top_category.hpp"
#include "index/row_copies.hpp"
#include "ingest/trace_reader.hpp"
#include "io/byte_source.hpp"
#include "io/input_error.hpp"
#include "io/utf8_text.hpp"
#include "model/call_tree.hpp"
#include "model/capture_folder.hpp"
#include "model/capture_lists.hpp"
#include "model/capture_merge.hpp"
#include "model/collectives.hpp"
#include "model/computation_partition.hpp"
#include "model/forward_backward.hpp"
#include "model/gpu_timeline.hpp"
#include "model/graph_replay.hpp"
#include "model/idle_attribution.hpp"
#include "model/kernel_launchers.hpp"
#include "model/launch_links.hpp"
#include "model/profiler_steps.hpp"
#include "model/pseudo_ops.hpp"
#include "model/step_annotation.hpp"
#include "multirank/collective_matching.hpp"
#include "multirank/cross_rank_figures.hpp"
#include "multirank/rank_summary_builder.hpp"
#include "multirank/rank_summary_file.hpp"
#include "perf_report/device_copy_model.hpp"
#include "perf_report/perf_report.hpp"
#include "perf_report/unified_perf_table.hpp"
#include "pipeline/analysis_report.hpp"
#include "pipeline/comparison_pipeline.hpp"
#include "pipeline/trace_load.hpp"
#include "platform/platform_file.hpp"
#include "platform/platform_guess.hpp"
#include "plugins/idle_attribution_table.hpp"
#include "plugins/op_model_runner.hpp"
#include "plugins/plugin_registry.hpp"
#include "plugins/run_products.hpp"
#include "plugins/trace_diff_table.hpp"
#include "report/comparison_writers.hpp"
#include "report/report_writers.hpp"
#include "report/sheet_csv.hpp"
#include "support/index_fingerprint.hpp"
#include "text/csv_parse.hpp"

namespace traceprism::fuzz {

namespace {

const std::string kTraceName = "fuzz.json";
const std::string kCaptureName = "capture.json";

[[noreturn]] void fail(const std::string& what) {
  throw InvariantError(what);
}

// `text` around its first ill-formed UTF-8 sequence, bytes above 0x7E escaped: "...ab\xc3 cd...".
std::string around_invalid_utf8(std::string_view text) {
  std::size_t bad = 0;  // the first byte that starts no well-formed sequence
  for (std::size_t n = 1; bad < text.size() && n <= 4;)
    if (io::is_valid_utf8(text.substr(bad, n))) {
      bad += n;
      n = 1;
    } else {
      ++n;
    }
  const std::size_t from = bad > 40 ? bad - 40 : 0;
  std::string out = "at byte " + std::to_string(bad) + ": \"";
  for (char c : text.substr(from, 80)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7F) {
      out += c;
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out + "\"";
}

void check_utf8(const std::string& what, std::string_view text) {
  if (!io::is_valid_utf8(text)) fail(what + " is not valid UTF-8 " + around_invalid_utf8(text));
}

void check_json(const std::string& what, std::string_view text) {
  check_utf8(what, text);
  boost::system::error_code ec;
  boost::json::parse(text, ec);
  if (ec) fail(what + " is not valid JSON: " + ec.message());
}

// A sheet's CSV text must read back (compare-reports reads it) with the same header and cells.
void check_csv(const std::string& what, const perf_report::SheetTable& table,
               std::string_view csv) {
  check_utf8(what, csv);
  if (table.columns.empty()) return;  // written as a lone newline
  const text::CsvSheet back = text::parse_csv_sheet(csv);
  if (back.columns != table.columns) fail(what + ": the header does not read back");
  if (back.rows.size() != table.rows.size()) fail(what + ": the rows do not read back");
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    if (back.rows[i].size() != table.rows[i].size()) fail(what + ": a row does not read back");
    for (std::size_t j = 0; j < table.rows[i].size(); ++j)
      if (back.rows[i][j] != table.rows[i][j].display()) fail(what + ": a cell does not read back");
  }
}

// The options an input runs with, from its length: mutations change the length all the time, so
// every option is exercised, and an input always replays the same way.
struct Variant {
  bool strict = false;
  bool inference = false;         // --mode inference: op names normalised, capture merge
  bool include_unlinked = false;  // --include-unlinked
  bool call_stacks = false;       // --group_by_parent_module and --include_call_stack
  bool by_kernels = false;        // --group_by_num_kernels, and a micro idle threshold
  bool capture_python = false;    // CaptureMergeOptions
  bool only_launch_paths = false;
  bool compare = false;      // also `compare` it with its renamed self (a second analysis)
  std::size_t platform = 0;  // 0: chosen from the trace (auto); else a bundled one, 1-based
};

Variant variant_of(std::string_view bytes) {
  const std::size_t n = bytes.size();
  Variant v;
  v.strict = n % 7 == 6;
  v.inference = n & 1;
  v.include_unlinked = n & 2;
  v.call_stacks = n & 4;
  v.by_kernels = n & 8;
  v.capture_python = n & 16;
  v.only_launch_paths = n & 32;
  v.compare = (n >> 6) % 4 == 0 && n <= 4096;  // two analyses and the comparison: the costliest
  v.platform = (n >> 7) % (platform::bundled_platforms().size() + 1);
  return v;
}

// The trace as the reader gives it, or nullopt when it refuses the bytes with io::InputError.
std::optional<ingest::TraceFile> read(std::string_view bytes, const std::string& name,
                                      std::size_t chunk_bytes, bool strict) {
  ingest::ReadOptions options;
  options.chunk_bytes = chunk_bytes;
  options.strict = strict;
  try {
    auto source = io::open_memory_source(bytes, name);
    return ingest::read_trace(*source, name, options);
  } catch (const io::InputError&) {
    return std::nullopt;
  }
}

// Chunks of the decompressed text handed to the parser: tiny ones split every token somewhere
// (the parser's continuations), but each is a hand-over between the reading threads, so only
// some inputs get them, the small ones.
std::size_t chunk_bytes_for(std::string_view bytes) {
  if (bytes.size() % 3 != 0) return 251;
  return bytes.size() < 2048 ? 13 : 61;
}

// Bytes the first read accepted, read again with other chunks: must be accepted and give the
// same rows, whatever the chunks.
ingest::TraceFile read_again(std::string_view bytes, const std::string& name, bool strict,
                             const ingest::TraceFile& first) {
  std::optional<ingest::TraceFile> again = read(bytes, name, 4096, strict);
  if (!again) fail("the reader refused bytes it accepted with smaller chunks");
  if (again->index.size() != first.index.size() ||
      again->index.stats().skipped_events() != first.index.stats().skipped_events() ||
      again->json_bytes != first.json_bytes)
    fail("the reader gives another index with another chunk size");
  return std::move(*again);
}

// Every string of the index is valid UTF-8 (the pool repairs them when they are interned).
void check_index(const index::EventIndex& index) {
  const index::StringPool& strings = index.strings();
  for (index::StringId id = 0; id < strings.size(); ++id)
    check_utf8("an interned string", strings.view(id));
  for (const index::EventIndex::Thread& t : index.threads()) {
    check_utf8("a pid", index.id_string(t.pid));
    check_utf8("a tid", index.id_string(t.tid));
  }
}

// The reader's three models (pipeline::load_trace).
void build_models(const index::EventIndex& index) {
  const auto tree = model::CallTree::build(index);
  const auto links = model::LaunchLinks::build(index);
  model::compute_gpu_timeline(index, links);
  if (tree.parent_column().size() != index.size()) fail("the call tree misses rows");
}

// Gzip bytes: ISA-L and zlib must give the same bytes and refuse the same streams.
// The parallel reader (two workers, batches of a few bytes to 1 KB cut all over the elements'
// text) must give the one-thread reader's index, or its error. Every hand-over between its
// threads costs a wake-up, so half of the inputs (by length) are checked: the reader fuzzer
// otherwise runs five times fewer inputs a minute.
void compare_parallel_reader(std::string_view bytes, std::size_t chunk_bytes) {
  if (bytes.size() % 2 != 0) return;
  ingest::ReadOptions one;
  one.chunk_bytes = chunk_bytes;
  ingest::ReadOptions parallel = one;
  parallel.threads = 2;
  parallel.parallel_min_bytes = 0;
  parallel.batch_bytes = 1 + bytes.size() % 1021;
  auto outcome = [&](const ingest::ReadOptions& options) -> std::string {
    try {
      return testing::index_fingerprint(ingest::read_trace_bytes(bytes, kTraceName, options).index);
    } catch (const io::InputError& e) {
      return std::string("error: ") + e.what();
    }
  };
  if (outcome(one) != outcome(parallel))
    fail("the parallel reader gives another index or another error than one thread");
}

void compare_gzip_decoders(std::string_view bytes) {
  if (!io::fast_gzip_decoder_available() || bytes.size() < 2 ||
      static_cast<unsigned char>(bytes[0]) != 0x1f || static_cast<unsigned char>(bytes[1]) != 0x8b)
    return;
  auto inflate = [&](io::GzipDecoder decoder) -> std::optional<std::string> {
    try {
      auto source = io::open_memory_source(bytes, kTraceName, decoder);
      std::string out;
      char buffer[4096];
      while (const std::size_t n = source->read(buffer, sizeof buffer)) {
        out.append(buffer, n);
        if (out.size() > (64u << 20)) return out;  // a bomb: compare the first 64 MiB
      }
      return out;
    } catch (const io::InputError&) {
      return std::nullopt;
    }
  };
  const std::optional<std::string> fast = inflate(io::GzipDecoder::kFastest);
  const std::optional<std::string> zlib = inflate(io::GzipDecoder::kZlib);
  if (fast.has_value() != zlib.has_value())
    fail(std::string("the gzip decoders disagree: only ") + (fast ? "ISA-L" : "zlib") +
         " accepts the stream");
  if (fast && *fast != *zlib) fail("the gzip decoders give different bytes");
}

// pipeline::choose_platform without its warnings on stderr: a bundled platform when the variant
// names one, else the one matching the device name, else the guess from the device properties
// and kernel names, else none.
platform::PlatformInfo platform_of(const index::EventIndex& index, const Variant& v) {
  const auto& devices = index.metadata().devices;
  const std::string device = devices.empty() ? std::string() : devices.front().name;
  const std::vector<platform::PlatformSpec>& bundled = platform::bundled_platforms();
  if (v.platform > 0) return bundled[v.platform - 1].info(device);
  if (const platform::PlatformSpec* p = platform::match_device(device)) return p->info(device);
  std::set<index::StringId> seen;
  std::vector<std::string_view> kernels;
  for (index::Row row : index.rows_of_kind(index::EventKind::kKernel))
    if (seen.insert(index.name_id(row)).second) kernels.push_back(index.name(row));
  const platform::PlatformGuess guess =
      platform::guess_platform(bundled, devices.empty() ? nullptr : &devices.front(), kernels);
  if (guess.platform) return guess.platform->info(device);
  platform::PlatformInfo none;
  none.device_name = device;
  return none;
}

// Inference mode's capture merge (pipeline/trace_load.cpp) with the trace as its own capture
// folder's only trace, classified (and its execution_details.json written and read back) as
// the capture folder's would be.
struct CaptureMerge {
  ingest::TraceFile capture;
  model::CaptureSource source;
  std::shared_ptr<const model::Grafts> grafts;
  std::vector<std::pair<index::Row, index::Row>> relinks;
  std::optional<pipeline::CaptureMergeOutcome> outcome;
};

void merge_self_capture(std::string_view bytes, const Variant& v, ingest::TraceFile& replay,
                        CaptureMerge& merge) {
  merge.capture = read_again(bytes, kCaptureName, v.strict, replay);
  const index::EventIndex& capture = merge.capture.index;
  const model::CaptureTrace entry = model::classify_capture_trace(capture, kCaptureName);
  const std::string details = model::execution_details_json({entry});
  check_json("execution_details.json", details);
  std::vector<model::CaptureTrace> entries;
  try {
    entries = model::parse_execution_details(details, "execution_details.json");
  } catch (const io::InputError& e) {
    fail(std::string("execution_details.json does not read back: ") + e.what());
  }
  if (entries.size() != 1 || entries[0].file != entry.file ||
      entries[0].batch_size != entry.batch_size || entries[0].mode != entry.mode)
    fail("execution_details.json reads back another entry");
  for (const model::ServingStep& step : model::serving_steps(replay.index))
    model::choose_capture(entries, step.annotation.batch_size, 1);

  model::CallTreeOptions tree_options;
  tree_options.include_python = true;  // capture windows are found among python frames too
  const auto tree = model::CallTree::build(capture, tree_options);
  merge.source.index = &capture;
  merge.source.windows = model::capture_windows(capture, tree);
  model::capture_launch_lists(capture, tree);

  const auto replay_links = model::LaunchLinks::build(replay.index);
  model::CaptureMergePlan plan = model::plan_capture_merge(
      replay.index, replay_links, entries,
      [&](const model::CaptureTrace&) { return &merge.source; },
      {.include_python = v.capture_python, .only_launch_paths = v.only_launch_paths});
  merge.outcome = pipeline::CaptureMergeOutcome{"capture", plan.summary, {}};
  if (plan.copies.empty()) return;
  replay.index = index::append_row_copies(std::move(replay.index), plan.sources, plan.copies,
                                          model::kCaptureRootName);
  merge.grafts = std::make_shared<const model::Grafts>(std::move(plan.grafts));
  merge.relinks = std::move(plan.relinks);
}

// One trace through the pipeline's stages (pipeline/analysis_pipeline.cpp) in memory, without
// plugins: no op model claims an op and no analyzer runs. The report points into it.
// Multi-rank (docs/multi-rank.md): the trace's rank summary, its .tpsum round trip, and the
// trace matched against its read-back self as two ranks, through the cross-rank figures.
void fuzz_multi_rank(const index::EventIndex& index, const model::LaunchLinks& links) {
  const multirank::RankSummary summary = multirank::summarize_rank(index, links);
  const multirank::RankSummary back =
      multirank::decode_rank_summary(multirank::encode_rank_summary(summary), "fuzz.tpsum");
  std::vector<model::CollectiveInstance> first, second;
  for (const multirank::CollectiveRow& row : summary.collectives) first.push_back(row.instance);
  for (const multirank::CollectiveRow& row : back.collectives) second.push_back(row.instance);
  const std::vector<multirank::RankCollectives> ranks{{0, first}, {1, second}};
  const multirank::MatchResult matches = multirank::match_collectives(ranks);
  const std::vector<multirank::RankInput> inputs{{0, &summary, first}, {1, &back, second}};
  multirank::cross_rank_figures(inputs, matches);
}

struct Analysis {
  ingest::TraceFile file;
  model::CallTree tree;
  model::LaunchLinks links;
  model::GpuTimeline timeline;
  model::KernelLaunchers launchers;
  std::unique_ptr<plugins::RunProducts> products;
  plugins::OpModelRun op_models;
  model::IdleAttribution idle;
  std::unique_ptr<plugins::IdleAttributionTable> idle_table;
  std::vector<model::StepFigures> steps;
  std::unique_ptr<plugins::TraceDiffTable> trace_diff;
  pipeline::AnalysisReport report;
};

using Enrich = std::function<void(Analysis&, perf_report::UnifiedPerfTable&)>;

// What the plugins' host API serves from the products (host_api.cpp), each built once.
void touch_products(const Analysis& a) {
  const plugins::RunProducts& p = *a.products;
  p.columns();
  p.op_metrics();
  for (const perf_report::PerfSheet& sheet : a.report.perf_sheets) p.perf_sheet(sheet.name);
  std::vector<index::Row> rows;
  const traceprism_op_instances_v1* ops = p.op_instances();
  for (std::size_t i = 0; i < ops->count; ++i) {
    p.subtree_gpu_rows(ops->row[i], rows);
    p.step_stats(ops->row[i]);
    p.string(ops->category_id[i]);
  }
}

void analyze(Analysis& a, const Variant& v, const CaptureMerge* merge, const Enrich& enrich) {
  const index::EventIndex& index = a.file.index;
  model::CallTreeOptions tree_options;
  if (merge) tree_options.grafts = merge->grafts;
  auto build_tree_and_links = [&] {
    a.tree = model::CallTree::build(index, tree_options);
    a.links =
        merge ? model::LaunchLinks::build(index, merge->relinks) : model::LaunchLinks::build(index);
  };
  build_tree_and_links();
  if (v.inference) {  // the pseudo-op pass (pipeline/trace_load.cpp)
    const model::PseudoOpPlan plan = model::plan_moe_unfused_pseudo_ops(index, a.tree, a.links);
    if (!plan.rows.empty()) {
      tree_options.grafts = std::make_shared<const model::Grafts>(model::pseudo_op_grafts(
          tree_options.grafts.get(), static_cast<index::Row>(index.size()), plan));
      a.file.index = index::append_pseudo_ops(std::move(a.file.index), plan.rows);
      check_index(index);
      build_tree_and_links();
    }
  }
  model::GpuTimelineOptions timeline_options;
  timeline_options.include_unlinked = v.include_unlinked;
  timeline_options.micro_idle_threshold_us = v.by_kernels ? 2.5 : 0;
  a.timeline = model::compute_gpu_timeline(index, a.links, timeline_options);
  a.launchers = model::KernelLaunchers::build(index, a.tree, a.links);
  a.products =
      std::make_unique<plugins::RunProducts>(index, a.tree, a.links, a.timeline, a.launchers);

  pipeline::AnalysisReport& r = a.report;
  r.trace_path = a.file.path;
  r.index = &index;
  r.timeline = a.timeline;
  r.graph_replay = model::graph_replay(index, a.links);
  r.inference_mode = v.inference;
  if (merge) r.capture_merge = merge->outcome;
  r.platform = platform_of(index, v);

  // Phase 1 with no op model: the table the products and the perf report read stays empty.
  static const plugins::PluginRegistry kNoPlugins;
  static const config::RunConfig kConfig;
  a.op_models =
      plugins::run_op_models({&kNoPlugins, &kConfig, &r.platform, &r.trace_path, 1}, *a.products);
  a.products->set_op_work(&a.op_models.table);
  r.op_models = a.op_models.outcomes;

  const auto fwd_bwd = model::ForwardBackwardLinks::build(index);
  for (const auto& [forward, backward] : fwd_bwd.pairs()) fwd_bwd.backward_of(forward);
  perf_report::PerfReportInputs in;
  in.index = &index;
  in.tree = &a.tree;
  in.links = &a.links;
  in.fwd_bwd = &fwd_bwd;
  in.timeline = &a.timeline;
  in.launchers = &a.launchers;
  in.op_work = &a.op_models.table;
  in.platform = &r.platform;
  in.options.group_by_num_kernels = v.by_kernels;
  in.options.group_by_parent_module = v.call_stacks;
  in.options.include_call_stack = v.call_stacks;
  in.options.topk_short_kernels = v.by_kernels ? 3 : 0;
  if (v.call_stacks) in.python_parents = a.products->python_tree_parents();
  std::vector<index::Row> unified_events;
  in.unified_events = &unified_events;
  perf_report::UnifiedPerfTable unified;
  in.unified_table = &unified;
  r.perf_sheets = perf_report::build_perf_report(in);
  if (enrich) {
    enrich(a, unified);
    if (unified.has_lca_columns)
      for (perf_report::PerfSheet& sheet : r.perf_sheets)
        if (sheet.name == "unified_perf_summary")
          sheet.table = perf_report::unified_perf_summary_sheet(unified);
  }
  a.products->set_perf_sheets(r.perf_sheets);
  a.products->set_unified_events(std::move(unified_events));
  perf_report::add_device_copy_models(unified, &r.platform);
  a.products->set_op_metrics(std::move(unified));
  touch_products(a);

  a.idle = model::attribute_idle({index, a.links, a.tree.parent_column(), v.include_unlinked});
  a.steps = model::profiler_steps(index, a.links, a.idle);
  model::outlier_steps(a.steps);
  std::vector<findings::CauseIdle> causes;
  if (!a.idle.empty()) {
    causes = findings::idle_by_cause(index, a.idle);
    a.idle_table = std::make_unique<plugins::IdleAttributionTable>(a.idle);
    a.products->set_idle_attribution(a.idle_table->table());
  }
  r.findings = findings::rank_findings(r.graph.analyzers, index.dur_column());

  // The summary (decide_summary in analysis_pipeline.cpp).
  const traceprism_op_instances_v1* ops = a.products->op_instances();
  std::map<std::string, double> busy;
  for (std::size_t i = 0; i < ops->count; ++i) {
    std::string name(a.products->string(ops->category_id[i]));
    busy[name.empty() ? "other" : name] += ops->direct_busy_us[i];
  }
  const findings::TopCategory top = findings::top_category(busy, r.timeline.computation_us);
  r.top_category = top.name;
  r.top_category_percent = top.percent;
  r.unified = a.products->unified_perf_table();
  r.model = findings::identify_model(findings::gather_model_evidence(&index, r.unified));
  std::vector<findings::CollectiveRow> collectives;
  for (const model::CollectiveFigures& c : model::collective_figures(index, a.links))
    collectives.push_back({c.type, c.count, c.time_us, c.exposed_us});
  fuzz_multi_rank(index, a.links);
  static const perf_report::UnifiedPerfTable kNoTable;
  const perf_report::UnifiedPerfTable& t = r.unified ? *r.unified : kNoTable;
  const auto partition = model::partition_computation(
      index, a.links, v.include_unlinked, t.kernel_buckets, t.bucket_categories.size() * 2);
  r.diagnosis = findings::diagnose(
      {index, a.idle, std::move(causes), a.steps, std::move(collectives),
       findings::category_shares(t.bucket_categories, partition), r.findings, r.unified});
}

// Every writer of `analyze` (report/report_folder.cpp), in memory.
void check_report(const pipeline::AnalysisReport& r) {
  check_json("findings.json", report::findings_json(r));
  check_json("model_info.json", findings::model_info_json(r.model));
  check_utf8("analysis.md", report::analysis_markdown(r));
  check_utf8("perf_breakdown.svg", report::perf_breakdown_svg(r));
  for (const perf_report::PerfSheet& sheet : r.perf_sheets)
    check_csv(sheet.name + ".csv", sheet.table, report::sheet_csv(sheet.table));
}

comparison::TraceTimeFigures time_figures(const Analysis& a, bool include_unlinked) {
  comparison::TraceTimeFigures f;
  f.timeline = a.report.timeline;
  f.computation_by_category = a.report.diagnosis.computation_by_category;
  f.idle_by_cause = a.report.diagnosis.idle_by_cause;
  f.collectives = a.report.diagnosis.collectives;
  f.copies = comparison::copies_by_direction({a.file.index, a.links, include_unlinked});
  return f;
}

// `compare` of trace 1 against trace 2 (pipeline/comparison_pipeline.cpp) and its writers.
void compare(Analysis& one, const Analysis& two, const Variant& v, comparison::Comparison& diff) {
  diff.trace1 = time_figures(one, v.include_unlinked);
  diff.trace2 = time_figures(two, v.include_unlinked);
  diff.time_rows = comparison::time_breakdown(diff.trace1, diff.trace2);
  diff.gap_summary = comparison::gap_summary(diff.trace1, diff.trace2, diff.time_rows);
  diff.kernels = comparison::kernel_diff({one.file.index, one.links, v.include_unlinked},
                                         {two.file.index, two.links, v.include_unlinked});
  diff.warnings =
      comparison::stack_mismatch_warnings({one.file.index, one.links}, {two.file.index, two.links});
  pipeline::AnalysisReport& r = one.report;
  const bool against_trace2 = r.unified && r.unified->has_lca_columns;
  auto outcomes = comparison::comparative_outcomes(r.graph.analyzers, two.report.graph.analyzers,
                                                   diff.trace1, diff.trace2, against_trace2);
  r.findings = findings::rank_findings(outcomes.analyzers, one.file.index.dur_column());
  r.diagnosis.order.clear();
  for (const findings::Finding* f : findings::cross_tier_order(r.findings))
    r.diagnosis.order.push_back({f->tier, f->rank});
  diff.in_both = std::move(outcomes.in_both);

  pipeline::ComparativeReport c{&one.report, &two.report, std::move(diff)};
  check_utf8("compare analysis.md", report::comparative_markdown(c));
  check_json("compare findings.json", report::comparative_findings_json(c));
  check_utf8("time_breakdown.csv", report::time_breakdown_csv(c));
  check_utf8("kernel_diff.csv", comparison::kernel_diff_csv(c.diff.kernels));
  check_utf8("diff_stats.csv",
             comparison::diff_stats_csv(c.diff.trace_diff, one.file.index, two.file.index));
  auto sheets_of = [](const pipeline::AnalysisReport& report) -> comparison::SheetSource {
    return [&report](const std::string& name) -> std::optional<comparison::SheetFrame> {
      for (const perf_report::PerfSheet& sheet : report.perf_sheets)
        if (sheet.name == name) return comparison::read_sheet_frame(sheet.table);
      return std::nullopt;
    };
  };
  const comparison::ReportDiff report_diff = comparison::diff_perf_reports(
      {{"trace1", sheets_of(one.report)}, {"trace2", sheets_of(two.report)}},
      *comparison::parse_sheet_groups({"all"}));
  for (const comparison::DiffSheet& sheet : report_diff.sheets)
    check_utf8("report_diff_csvs/" + sheet.name + ".csv",
               comparison::write_sheet_frame(sheet.frame).to_csv());
}

// TraceDiff of trace 1 against trace 2 into trace 1's perf report (add_trace_diff in
// comparison_pipeline.cpp).
void add_trace_diff(Analysis& one, perf_report::UnifiedPerfTable& unified, const Analysis& two,
                    comparison::Comparison& diff) {
  const comparison::DiffSide side1{one.file.index, one.tree, one.links};
  const comparison::DiffSide side2{two.file.index, two.tree, two.links};
  comparison::DiffStats stats;
  {
    const comparison::MergedTree merged = comparison::merge_trees(side1, side2);
    diff.merged_nodes = merged.nodes.size();
    stats = comparison::diff_stats(merged, side1, side2);
  }
  if (stats.empty()) return;
  comparison::add_lca_columns(unified, stats);
  one.trace_diff = std::make_unique<plugins::TraceDiffTable>(stats, one.file.index, two.file.index);
  one.products->set_trace_diff(one.trace_diff->table());
  diff.trace_diff = std::move(stats);
}

}  // namespace

void fuzz_trace_reader(std::string_view bytes) {
  compare_gzip_decoders(bytes);
  compare_parallel_reader(bytes, chunk_bytes_for(bytes));
  std::optional<ingest::TraceFile> file = read(bytes, kTraceName, chunk_bytes_for(bytes), false);
  if (!file) return;
  check_index(file->index);
  build_models(file->index);
}

void fuzz_trace_model(std::string_view bytes) {
  const Variant v = variant_of(bytes);
  auto one = std::make_unique<Analysis>();
  {
    std::optional<ingest::TraceFile> file =
        read(bytes, kTraceName, chunk_bytes_for(bytes), v.strict);
    if (!file) return;
    one->file = std::move(*file);
  }
  check_index(one->file.index);
  model::serving_steps(one->file.index);
  model::classify_capture_trace(one->file.index, kTraceName);

  // Trace 2 of a comparison: the same bytes, op names normalised when trace 1's are not.
  std::unique_ptr<Analysis> two;
  if (v.compare) {
    two = std::make_unique<Analysis>();
    two->file = read_again(bytes, kTraceName, v.strict, one->file);
  }

  std::unique_ptr<CaptureMerge> merge;
  if (v.inference) {
    merge = std::make_unique<CaptureMerge>();
    merge_self_capture(bytes, v, one->file, *merge);
  }
  if (v.inference || two) {
    index::EventIndex& renamed = v.inference ? one->file.index : two->file.index;
    renamed = index::rename_cpu_ops(std::move(renamed), model::normalized_op_name);
    check_index(renamed);
  }

  if (!two) {
    analyze(*one, v, merge.get(), nullptr);
    check_report(one->report);
    return;
  }
  comparison::Comparison diff;
  analyze(*two, v, nullptr, nullptr);
  analyze(*one, v, merge.get(), [&](Analysis& a, perf_report::UnifiedPerfTable& unified) {
    add_trace_diff(a, unified, *two, diff);
  });
  check_report(one->report);
  check_report(two->report);
  compare(*one, *two, v, diff);
}

}  // namespace traceprism::fuzz
