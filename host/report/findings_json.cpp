#include <filesystem>

#include "report/report_writers.hpp"
#include "text/json_writer.hpp"

namespace traceprism::report {

void text_or_null(text::JsonWriter& w, std::string_view key, const std::string& text) {
  if (text.empty())
    w.key(key).null();
  else
    w.key(key).value(text);
}

void write_trace_identity(text::JsonWriter& w, const AnalysisReport& r) {
  w.key("platform").begin_object();
  w.key("name").value(r.platform.name);
  w.key("device_name").value(r.platform.device_name);
  w.end_object();
  w.key("model").begin_object();
  w.key("model").value(r.model.model);
  w.key("architecture").value(r.model.architecture);
  w.key("scale").value(r.model.scale);
  w.key("precision").value(r.model.precision);
  w.end_object();
}

namespace {

void write_gpu_utilization(text::JsonWriter& w, const model::GpuTimeline& t) {
  auto pct = [&](double us) { return t.total_us > 0 ? us / t.total_us * 100 : 0.0; };
  w.key("gpu_utilization").begin_object();
  w.key("total_time_ms").value(t.total_us / 1e3);
  w.key("computation_time_percent").value(pct(t.computation_us));
  w.key("exposed_comm_time_percent").value(pct(t.exposed_comm_us));
  w.key("exposed_memcpy_time_percent").value(pct(t.exposed_memcpy_us));
  w.key("idle_time_percent").value(pct(t.idle_us));
  w.key("gpu_events").value(static_cast<std::uint64_t>(t.events));
  w.end_object();
}

void write_capture_merge(text::JsonWriter& w, const pipeline::CaptureMergeOutcome& merge) {
  const model::CaptureMergeSummary& m = merge.summary;
  w.key("capture_merge").begin_object();
  w.key("folder").value(merge.folder);
  w.key("steps").value(static_cast<std::uint64_t>(m.steps));
  w.key("graph_launches").value(static_cast<std::uint64_t>(m.graph_launches));
  w.key("merged_launches").value(static_cast<std::uint64_t>(m.merged_launches));
  w.key("attributed_gpu_events").value(static_cast<std::uint64_t>(m.attributed_events));
  w.key("copied_events").value(static_cast<std::uint64_t>(m.copied_rows));
  // Only with pruning: what a full copy of every capture window needed.
  if (m.full_copy_rows > 0)
    w.key("full_copy_events").value(static_cast<std::uint64_t>(m.full_copy_rows));
  w.key("captures").begin_array();
  for (const std::string& file : m.captures_used) w.value(file);
  w.end_array();
  w.key("skipped").begin_array();
  for (std::size_t i = 0; i < m.skipped.size(); ++i) {
    if (m.skipped[i] == 0) continue;
    w.begin_object();
    w.key("reason").value(model::merge_skip_reason(static_cast<model::MergeSkip>(i)));
    w.key("launches").value(static_cast<std::uint64_t>(m.skipped[i]));
    w.end_object();
  }
  w.end_array();
  w.key("notes").begin_array();
  for (const std::string& note : merge.notes) w.value(note);
  w.end_array();
  w.end_object();
}

void write_data_quality(text::JsonWriter& w, const AnalysisReport& r) {
  const index::EventIndex& index = *r.index;
  const model::GraphReplay& replay = r.graph_replay;
  const index::ImportStats& stats = index.stats();
  const std::size_t copied = r.capture_merge ? r.capture_merge->summary.copied_rows : 0;
  w.key("data_quality").begin_object();
  w.key("events").value(static_cast<std::uint64_t>(index.size() - copied));
  w.key("skipped_events").value(stats.skipped_events());
  w.key("import_issues").begin_array();
  for (int i = 0; i < index::kImportIssueCount; ++i) {
    auto issue = static_cast<index::ImportIssue>(i);
    if (stats.count(issue) == 0) continue;
    w.begin_object();
    w.key("issue").value(index::import_issue_name(issue));
    w.key("count").value(stats.count(issue));
    w.key("description").value(index::import_issue_description(issue));
    w.end_object();
  }
  w.end_array();
  if (replay.launches > 0) {
    w.key("graph_replay").begin_object();
    w.key("launches").value(static_cast<std::uint64_t>(replay.launches));
    w.key("gpu_events").value(static_cast<std::uint64_t>(replay.gpu_events));
    w.key("busy_us").value(static_cast<double>(replay.busy_ns) / 1e3);
    w.end_object();
  }
  if (r.capture_merge) write_capture_merge(w, *r.capture_merge);
  w.end_object();
}

void write_impact(text::JsonWriter& w, const findings::Finding& f) {
  w.key("impact").begin_object();
  switch (f.impact_kind) {
    case findings::ImpactKind::kNotQuantifiable:
      w.key("kind").value("not_quantifiable");
      break;
    case findings::ImpactKind::kQuantified:
      w.key("kind").value("quantified");
      break;
    case findings::ImpactKind::kHeuristic:
      w.key("kind").value("heuristic");
      break;
  }
  if (f.impact_kind != findings::ImpactKind::kNotQuantifiable) {
    w.key("low").value(f.impact_low);
    w.key("mid").value(f.impact_mid);
    w.key("high").value(f.impact_high);
  }
  w.end_object();
}

void write_emitted_impact(text::JsonWriter& w, const findings::Finding& f) {
  w.key("impact_as_emitted").begin_object();
  if (f.impact_kind != findings::ImpactKind::kNotQuantifiable) {
    w.key("low").value(f.emitted_low);
    w.key("mid").value(f.emitted_mid);
    w.key("high").value(f.emitted_high);
  }
  w.end_object();
  if (f.emitted_share >= 0)
    w.key("share_percent_as_emitted").value(f.emitted_share);
  else
    w.key("share_percent_as_emitted").null();
}

// diagnosis.md §1.5: the kernel time a more specific finding reports instead of this one.
void write_shared_kernels(text::JsonWriter& w, const findings::Finding& f) {
  if (f.elsewhere.empty()) {
    w.key("shared_kernels").null();
    return;
  }
  w.key("shared_kernels").begin_object();
  w.key("kernel_time_us").value(f.kernel_us);
  w.key("reported_elsewhere").begin_array();
  for (const findings::Finding::KernelTimeElsewhere& e : f.elsewhere) {
    w.begin_object();
    text_or_null(w, "finding", e.finding_id);
    w.key("analyzer").value(e.analyzer);
    w.key("time_us").value(e.us);
    w.end_object();
  }
  w.end_array();
  write_emitted_impact(w, f);
  w.end_object();
}

void write_evidence(text::JsonWriter& w, const findings::Finding& f,
                    const index::EventIndex& index) {
  w.key("evidence").begin_array();
  for (std::uint32_t r : f.rows) {
    w.begin_object();
    w.key("row").value(static_cast<std::uint64_t>(r));
    w.key("name").value(index.name(r));
    w.key("ts_us").value(index.ts_us(r));
    w.key("dur_us").value(static_cast<double>(index.dur_ns(r)) / 1e3);
    w.end_object();
  }
  w.end_array();
}

// Findings dropped because a more specific one reports (nearly) all their kernel time.
void write_folded_findings(text::JsonWriter& w, const std::vector<findings::Finding>& folded,
                           const index::EventIndex& index) {
  w.key("folded_findings").begin_array();
  for (const findings::Finding& f : folded) {
    w.begin_object();
    w.key("tier").value(findings::tier_name(f.tier));
    w.key("analyzer").value(f.analyzer);
    w.key("category").value(f.category);
    w.key("key").value(f.key);
    w.key("title").value(f.title);
    w.key("library").value(f.library);
    w.key("kind").value(f.impact_kind == findings::ImpactKind::kQuantified  ? "quantified"
                        : f.impact_kind == findings::ImpactKind::kHeuristic ? "heuristic"
                                                                            : "not_quantifiable");
    write_emitted_impact(w, f);
    w.key("kernel_time_us").value(f.kernel_us);
    write_evidence(w, f, index);
    text_or_null(w, "folded_into", f.folded_into_id);
    w.end_object();
  }
  w.end_array();
}

void write_finding(text::JsonWriter& w, const findings::Finding& f,
                   const index::EventIndex& index) {
  w.begin_object();
  w.key("id").value(findings::finding_id(f));
  w.key("tier").value(findings::tier_name(f.tier));
  w.key("rank").value(f.rank);
  w.key("analyzer").value(f.analyzer);
  w.key("plugin").value(f.plugin);
  w.key("plugin_version").value(f.plugin_version);
  w.key("category").value(f.category);
  w.key("key").value(f.key);
  w.key("severity").value(findings::severity_name(f.severity));
  w.key("title").value(f.title);
  w.key("insight").value(f.insight);
  w.key("action").value(f.action);
  w.key("identification").value(f.identification);
  w.key("reasoning").value(f.reasoning);
  w.key("resolution").value(f.resolution);
  w.key("library").value(f.library);
  text_or_null(w, "cause", f.cause);
  write_impact(w, f);
  if (f.share_percent >= 0)
    w.key("share_percent").value(f.share_percent);
  else
    w.key("share_percent").null();
  if (f.confidence >= 0)
    w.key("confidence").value(f.confidence);
  else
    w.key("confidence").null();
  write_shared_kernels(w, f);
  write_evidence(w, f, index);
  w.key("metrics").begin_object();
  for (const auto& [k, v] : f.metrics) w.key(k).value(v);
  w.end_object();
  w.key("tables").begin_array();
  for (const findings::DataTable& t : f.tables) {
    w.begin_object();
    w.key("title").value(t.title);
    w.key("columns").begin_array();
    for (const auto& c : t.columns) w.value(c);
    w.end_array();
    w.key("rows").begin_array();
    for (const auto& row : t.rows) {
      w.begin_array();
      for (const auto& c : row) w.value(c);
      w.end_array();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("doc").value("docs/analyzers/" + f.plugin + "/" + f.analyzer + ".md");
  w.end_object();
}

void write_idle_by_cause(text::JsonWriter& w, const findings::Diagnosis& d) {
  w.key("idle_by_cause").begin_array();
  for (const findings::CauseIdle& c : d.idle_by_cause) {
    w.begin_object();
    w.key("cause").value(c.cause);
    w.key("idle_us").value(c.idle_us);
    w.key("percent_of_idle").value(c.percent_of_idle);
    w.key("percent_of_e2e").value(c.percent_of_e2e);
    w.key("gaps").value(c.gaps);
    w.key("longest_gap_us").value(c.longest_gap_us);
    w.key("host_ops").begin_array();
    for (const findings::IdleHolder& h : c.host_ops) {
      w.begin_object();
      w.key("name").value(h.name);
      w.key("idle_us").value(h.idle_us);
      if (h.frame.empty())
        w.key("frame").null();
      else
        w.key("frame").value(h.frame);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
}

void write_steps(text::JsonWriter& w, const findings::Diagnosis& d) {
  w.key("steps").begin_array();
  for (const findings::StepRow& s : d.steps) {
    w.begin_object();
    w.key("name").value(s.name);
    w.key("start_us").value(s.start_us);
    w.key("dur_us").value(s.dur_us);
    w.key("gpu_busy_us").value(s.gpu_busy_us);
    w.key("idle_us").value(s.idle_us);
    w.key("outlier").value(s.outlier);
    if (!s.phase.empty()) {
      w.key("phase").value(s.phase);
      w.key("requests").value(s.requests);
      w.key("tokens").value(s.tokens);
      w.key("gpu_span_us").value(s.gpu_span_us);
    }
    w.end_object();
  }
  w.end_array();
  if (!d.steady_state) return;
  // Serving traces: steps as 0-based [first, end) indices into "steps".
  const findings::SteadyState& st = *d.steady_state;
  w.key("steady_state").begin_object();
  w.key("first_step").value(static_cast<std::uint64_t>(st.region.begin));
  w.key("end_step").value(static_cast<std::uint64_t>(st.region.end));
  w.key("plateau").value(st.plateau);
  w.key("peak_requests").value(st.peak_requests);
  w.key("mixed_window").begin_array();
  w.value(static_cast<std::uint64_t>(st.window.begin));
  w.value(static_cast<std::uint64_t>(st.window.end));
  w.end_array();
  w.end_object();
}

// diagnosis.md §1.2: the partition of computation time, so its percents sum to 100.
void write_computation_by_category(text::JsonWriter& w, const findings::Diagnosis& d) {
  double whole = 0;
  for (const findings::CategoryShare& s : d.computation_by_category) whole += s.time_us;
  w.key("computation_by_category").begin_array();
  for (const findings::CategoryShare& s : d.computation_by_category) {
    w.begin_object();
    w.key("category").value(s.category);
    w.key("time_us").value(s.time_us);
    w.key("percent").value(whole > 0 ? s.time_us / whole * 100 : 0.0);
    w.key("modeled_us").value(s.modeled_us);
    w.end_object();
  }
  w.end_array();
}

// diagnosis.md §8; null when the trace has no GPU timeline.
void write_diagnosis(text::JsonWriter& w, const AnalysisReport& r) {
  const findings::Diagnosis& d = r.diagnosis;
  if (!d.present) {
    w.key("diagnosis").null();
    return;
  }
  w.key("diagnosis").begin_object();
  w.key("window_us").value(d.window_us);
  w.key("idle_us").value(d.idle_us);
  write_idle_by_cause(w, d);
  w.key("queue").begin_array();
  for (const model::StreamQueue& q : d.queue) {
    w.begin_object();
    w.key("device").value(q.device);
    w.key("stream").value(q.stream);
    w.key("mean").value(q.mean);
    w.key("max").value(static_cast<std::uint64_t>(q.max));
    w.end_object();
  }
  w.end_array();
  w.key("launch_delay_us").begin_object();
  w.key("median").value(d.launch_delay_median_us);
  w.key("p95").value(d.launch_delay_p95_us);
  w.end_object();
  write_steps(w, d);
  w.key("collectives").begin_array();
  for (const findings::CollectiveRow& c : d.collectives) {
    w.begin_object();
    w.key("type").value(c.type);
    w.key("count").value(c.count);
    w.key("time_us").value(c.time_us);
    w.key("exposed_us").value(c.exposed_us);
    w.end_object();
  }
  w.end_array();
  write_computation_by_category(w, d);
  if (d.compute_coverage_percent)
    w.key("compute_coverage_percent").value(*d.compute_coverage_percent);
  else
    w.key("compute_coverage_percent").null();
  if (d.order.empty()) {
    w.key("first").null();
  } else {
    const findings::Finding& first = findings::resolve(r.findings, d.order.front());
    w.key("first").begin_object();
    w.key("finding").value(findings::finding_id(first));
    text_or_null(w, "cause", first.cause);
    w.end_object();
  }
  w.end_object();
}

}  // namespace

void write_findings_fields(text::JsonWriter& w, const AnalysisReport& r, std::string_view mode) {
  w.key("schema_version").value(kFindingsSchemaVersion);
  w.key("mode").value(mode);
  w.key("analysis_mode").value(r.inference_mode ? "inference" : "default");
  w.key("tool").begin_object();
  w.key("name").value("traceprism");
  w.key("version").value(TRACEPRISM_VERSION);
  w.key("abi").value(std::to_string(TRACEPRISM_ABI_MAJOR) + "." +
                     std::to_string(TRACEPRISM_ABI_MINOR));
  w.end_object();
  w.key("trace").begin_object();
  w.key("path").value(r.trace_path);
  w.end_object();
  write_trace_identity(w, r);
  write_data_quality(w, r);
  write_gpu_utilization(w, r.timeline);
  write_diagnosis(w, r);

  w.key("plugins_refused").begin_array();
  for (const auto& p : r.refused_plugins) {
    w.begin_object();
    w.key("path").value(p.path.string());
    w.key("reason").value(p.reason);
    w.end_object();
  }
  w.end_array();
  w.key("op_models").begin_array();
  for (const auto& m : r.op_models) {
    w.begin_object();
    w.key("name").value(m.name);
    w.key("plugin").value(m.plugin);
    w.key("claimed").value(static_cast<std::uint64_t>(m.claimed));
    w.key("modelled").value(static_cast<std::uint64_t>(m.modelled));
    w.key("failed").value(static_cast<std::uint64_t>(m.failed));
    w.end_object();
  }
  w.end_array();
  w.key("analyzers").begin_array();
  for (const findings::AnalyzerOutcome& a : r.graph.analyzers) {
    w.begin_object();
    w.key("name").value(a.name);
    w.key("plugin").value(a.plugin);
    w.key("version").value(a.plugin_version);
    w.key("status").value(findings::analyzer_status_name(a.status));
    if (!a.error.empty()) w.key("error").value(a.error);
    w.key("findings").value(static_cast<std::uint64_t>(a.findings.size()));
    if (a.refused_findings)
      w.key("refused_findings").value(static_cast<std::uint64_t>(a.refused_findings));
    w.key("log").begin_array();
    for (const findings::LogLine& l : a.log)
      w.value(std::string(l.level >= 2   ? "warning: "
                          : l.level == 1 ? "info: "
                                         : "debug: ") +
              l.message);
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("figures").begin_object();
  for (const findings::AnalyzerOutcome& a : r.graph.analyzers) {
    if (a.figures.empty()) continue;
    w.key(a.name).begin_object();
    for (const auto& [k, v] : a.figures) w.key(k).value(v);
    w.end_object();
  }
  w.end_object();
  w.key("findings").begin_array();
  for (findings::Tier t :
       {findings::Tier::kCompute, findings::Tier::kFusion, findings::Tier::kSystem})
    for (const findings::Finding& f : r.findings.tier(t)) write_finding(w, f, *r.index);
  w.end_array();
  write_folded_findings(w, r.findings.folded, *r.index);
}

// multi-rank.md §9.4: the job around the focus rank (a new key within schema 2; absent for one
// trace).
void write_multi_rank(text::JsonWriter& w, const pipeline::MultiRankFacts& m) {
  w.key("multi_rank").begin_object();
  w.key("ranks_analyzed").value(static_cast<std::uint64_t>(m.ranks_analyzed));
  w.key("world_size").value(m.world_size);
  w.key("focus_rank").value(static_cast<std::int64_t>(m.focus_rank));
  w.key("missing_ranks").begin_array();
  for (std::int32_t rank : m.missing_ranks) w.value(static_cast<std::int64_t>(rank));
  w.end_array();
  w.key("slowest_ranks").begin_array();
  for (std::int32_t rank : m.slowest_ranks) w.value(static_cast<std::int64_t>(rank));
  w.end_array();
  w.key("collective_wait_percent").value(m.collective_wait_percent);
  w.key("clock_offsets").begin_array();
  for (const pipeline::MultiRankFacts::NodeClock& n : m.clock_offsets) {
    w.begin_object();
    w.key("node").value(static_cast<std::int64_t>(n.node));
    w.key("offset_us").value(static_cast<double>(n.offset_ns) / 1e3);
    w.key("mad_us").value(static_cast<double>(n.mad_ns) / 1e3);
    w.key("samples").value(static_cast<std::uint64_t>(n.samples));
    w.key("applied").value(n.applied);
    w.end_object();
  }
  w.end_array();
  w.key("ranks").begin_array();
  for (const pipeline::MultiRankFacts::Rank& rank : m.ranks) {
    w.begin_object();
    w.key("rank").value(static_cast<std::int64_t>(rank.rank));
    w.key("file").value(rank.file);
    w.key("collectives").value(static_cast<std::uint64_t>(rank.collectives));
    w.key("wait_ms").value(rank.wait_ms);
    w.key("exposed_wait_ms").value(rank.exposed_wait_ms);
    w.key("last_arrivals").value(static_cast<std::uint64_t>(rank.last_arrivals));
    w.key("pct_last").value(rank.last_percent);
    w.key("mean_lateness_us").value(rank.mean_lateness_us);
    w.key("cause").value(rank.cause);
    w.key("node").value(static_cast<std::int64_t>(rank.node));
    w.key("step_ms").value(rank.step_ms);
    w.key("gpu_idle_percent").value(rank.gpu_idle_percent);
    w.end_object();
  }
  w.end_array();
  w.key("complete_collectives").value(static_cast<std::uint64_t>(m.complete_collectives));
  w.key("matching").begin_array();
  for (const pipeline::MultiRankFacts::Matching& t : m.matching) {
    w.begin_object();
    w.key("tier").value(t.tier);
    w.key("groups").value(static_cast<std::uint64_t>(t.groups));
    w.key("instances").value(static_cast<std::uint64_t>(t.instances));
    w.key("matched_instances").value(static_cast<std::uint64_t>(t.matched_instances));
    w.key("collectives").value(static_cast<std::uint64_t>(t.collectives));
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

std::string findings_json(const AnalysisReport& r) {
  text::JsonWriter w;
  w.begin_object();
  write_findings_fields(w, r, "standalone");
  if (r.multi_rank) write_multi_rank(w, *r.multi_rank);
  w.end_object();
  return w.str();
}

}  // namespace traceprism::report
