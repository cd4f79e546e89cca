// The parts of analysis.md both layouts share (standalone and comparative): cards, detailed
// blocks, warnings, steps and the appendix.
#include "report/markdown_sections.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "report/category_figures.hpp"
#include "text/python_format.hpp"

namespace traceprism::report::markdown {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string percent_of_total(const model::GpuTimeline& t, double us) {
  return fixed(t.total_us > 0 ? us / t.total_us * 100 : 0.0);
}

// Markdown table cells: no raw pipes or line breaks.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += "<br>";
    else
      out += c;
  }
  return out.empty() ? "—" : out;
}

// Prose a plugin left empty gets a neutral sentence, so no label is ever followed by nothing.
std::string or_else(const std::string& text, std::string_view fallback) {
  return text.empty() ? std::string(fallback) : text;
}

std::optional<double> metric(const findings::Finding& f, std::string_view name) {
  for (const auto& [k, v] : f.metrics)
    if (k == name) return v;
  return std::nullopt;
}

namespace {
const findings::DataTable* table_titled(const findings::Finding& f, std::string_view title) {
  for (const findings::DataTable& t : f.tables)
    if (t.title == title) return &t;
  return nullptr;
}
}  // namespace

namespace {
// A row of a two-column `Field | Value` table (the fusion analyzer's "estimate").
std::string field(const findings::Finding& f, std::string_view table, std::string_view name) {
  if (const findings::DataTable* t = table_titled(f, table))
    for (const auto& row : t->rows)
      if (row.size() >= 2 && row[0] == name) return row[1];
  return {};
}
}  // namespace

std::string integer(std::optional<double> v) {
  return std::to_string(static_cast<long long>(std::llround(v.value_or(0))));
}

namespace {
// Icons (analysis-rules.md §5.5): compute and system by position within the tier (P1 🔴,
// P2 🟡, P3+ 🟢); fusion by confidence (high 🔴, medium 🟡, low 🟢).
const char* icon(const findings::Finding& f) {
  if (f.tier == findings::Tier::kFusion) {
    const double level = metric(f, "confidence_level").value_or(1);
    return level >= 2 ? "🔴" : level >= 1 ? "🟡" : "🟢";
  }
  return f.rank == 1 ? "🔴" : f.rank == 2 ? "🟡" : "🟢";
}
}  // namespace

std::string heading(const findings::Finding& f) {
  std::string h = std::string(icon(f)) + " P" + std::to_string(f.rank) + ": " + f.title;
  if (f.tier == findings::Tier::kCompute && !f.library.empty() && f.library != "Unknown")
    h += " (" + f.library + ")";
  return h;
}

namespace {
std::string anchor(const findings::Finding& f) {
  if (f.tier == findings::Tier::kFusion)
    return "detailed-analysis-fusion-P" + std::to_string(f.rank);
  return "detailed-analysis-" + std::string(findings::tier_name(f.tier)) + "-p" +
         std::to_string(f.rank);
}
}  // namespace

namespace {
const char* tier_label(findings::Tier t) {
  return t == findings::Tier::kCompute  ? "Compute kernel insights"
         : t == findings::Tier::kFusion ? "Kernel fusion insights"
                                        : "System-level insights";
}
}  // namespace

void write_table(std::ostringstream& md, const findings::DataTable& t) {
  md << "|";
  for (const auto& c : t.columns) md << " " << cell(c) << " |";
  md << "\n|";
  for (std::size_t i = 0; i < t.columns.size(); ++i) md << "---|";
  md << "\n";
  for (const auto& row : t.rows) {
    md << "|";
    for (const auto& c : row) md << " " << cell(c) << " |";
    md << "\n";
  }
}

namespace {
// A comparative fusion estimate (estimation "measured": trace 1's time minus trace 2's).
bool measured_gap(const findings::Finding& f) {
  return metric(f, "trace2_time_ms").has_value();
}

// "perf-model coverage M/N kernels" numbers of a fusion finding.
std::string coverage(const findings::Finding& f, std::string_view separator) {
  return integer(metric(f, "modeled_kernel_count")) + std::string(separator) +
         integer(metric(f, "kernel_count"));
}
}  // namespace

namespace {
std::string fusion_confidence(const findings::Finding& f) {
  std::string level = or_else(field(f, "estimate", "confidence"), "Medium");
  const std::string reason = field(f, "estimate", "confidence_reason");
  return reason.empty() ? level : level + " -- " + reason;
}
}  // namespace

namespace {
void write_impact_marker(std::ostringstream& md, const findings::Finding& f) {
  md << "<!-- impact-begin kind=p_item";
  // Compute markers name their category, quantified or not (validate-report checks it).
  if (f.tier == findings::Tier::kCompute)
    md << " category=" << (f.category.empty() ? "other" : f.category);
  if (f.impact_kind == findings::ImpactKind::kNotQuantifiable) {
    md << " low=null mid=null high=null -->\n"
       << "**Impact**: Not quantifiable from trace data\n<!-- impact-end -->\n\n";
    return;
  }
  md << " low=" << fixed(f.impact_low) << " mid=" << fixed(f.impact_mid)
     << " high=" << fixed(f.impact_high) << " -->\n"
     << "**Impact**: impact_score: " << fixed(f.impact_mid);
  // A comparative estimate is a measured gap, not a roofline projection: no coverage.
  if (f.tier == findings::Tier::kFusion && !measured_gap(f))
    md << " (perf-model coverage " << coverage(f, "/") << " kernels)";
  md << "\n<!-- impact-end -->\n\n";
  if (f.impact_kind == findings::ImpactKind::kHeuristic && f.share_percent >= 0)
    md << "> **Warning — estimated:** No performance model for this op; impact is derived from its "
          "E2E GPU-time share ("
       << fixed(f.share_percent) << "%), not a gap projection.\n\n";
}
}  // namespace

namespace {
void write_card(std::ostringstream& md, const findings::Finding& f) {
  md << "### " << heading(f) << "\n\n";
  md << "**Insight**: " << or_else(f.insight, f.title + ".") << "\n\n";
  md << "**Action**: " << or_else(f.action, "See the detailed analysis below.") << "\n\n";
  write_impact_marker(md, f);
  if (f.tier == findings::Tier::kFusion) md << "**Confidence**: " << fusion_confidence(f) << "\n\n";
  md << "→ *See [Detailed Analysis: " << tier_label(f.tier) << " > P" << f.rank << "](#"
     << anchor(f) << ") for details*\n\n";
}
}  // namespace

// Cards of one tier, separated by rules as in the reference template.
void write_cards(std::ostringstream& md, const std::vector<findings::Finding>& findings) {
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (i > 0) md << "---\n\n";
    write_card(md, findings[i]);
  }
}

namespace {
void write_data(std::ostringstream& md, const findings::Finding& f) {
  md << "**Data:**\n\n";
  bool any = false;
  for (std::size_t i = 0; i < f.tables.size(); ++i) {
    // The fusion analyzer's estimate table feeds the impact bullets, not the Data section.
    if (f.tier == findings::Tier::kFusion && f.tables[i].title == "estimate") continue;
    if (any && !f.tables[i].title.empty()) md << "*" << f.tables[i].title << "*\n\n";
    write_table(md, f.tables[i]);
    md << "\n";
    any = true;
  }
  if (!any) md << "No data table.\n\n";
}
}  // namespace

namespace {
void write_estimate_marker(std::ostringstream& md, const findings::Finding& f) {
  md << "<!-- impact-begin kind=detail_estimate low=" << fixed(f.impact_low)
     << " high=" << fixed(f.impact_high) << " -->\n"
     << "- Low end impact_score: " << fixed(f.impact_low) << "\n"
     << "- High end impact_score: " << fixed(f.impact_high) << "\n";
}
}  // namespace

namespace {
// Fusion blocks (§10.6): Identification, Data (the kernels) and the estimate with coverage,
// pattern and confidence; a fusion candidate has no separate reasoning or resolution.
void write_fusion_detail(std::ostringstream& md, const findings::Finding& f) {
  const std::string time_ms = text::python_float_repr(metric(f, "time_ms").value_or(0));
  md << "#### " << heading(f) << " (" << time_ms << " ms, " << integer(metric(f, "instance_count"))
     << " instances)\n";
  md << "**Identification:** " << or_else(f.identification, f.insight) << "\n\n";
  write_data(md, f);
  md << "**Impact estimate:**\n";
  if (f.impact_kind == findings::ImpactKind::kNotQuantifiable) {
    md << "Impact estimate is not quantifiable from trace data.\n\n";
    return;
  }
  write_estimate_marker(md, f);
  if (measured_gap(f)) {
    md << "- Measured gap: " << fixed(metric(f, "time_ms").value_or(0), 3) << " ms in trace 1, "
       << fixed(metric(f, "trace2_time_ms").value_or(0), 3) << " ms in trace 2\n";
    md << "- Confidence: " << fusion_confidence(f) << "\n<!-- impact-end -->\n\n";
    return;
  }
  md << "- Coverage: " << coverage(f, " of ") << " kernels modelled";
  if (field(f, "estimate", "estimation") == "partial") {
    const double unmodelled =
        metric(f, "kernel_count").value_or(0) - metric(f, "modeled_kernel_count").value_or(0);
    md << " (" << integer(unmodelled) << " kernel(s) use measured trace time)";
  }
  md << "\n";
  const std::string bound = field(f, "estimate", "bound_type");
  const std::string type = field(f, "estimate", "fusion_type");
  if (!bound.empty() || !type.empty())
    md << "- Fusion pattern: " << or_else(bound, "unknown") << "-bound, "
       << or_else(type, "unknown") << "\n";
  md << "- Confidence: " << fusion_confidence(f) << "\n<!-- impact-end -->\n\n";
}
}  // namespace

void write_detail(std::ostringstream& md, const findings::Finding& f) {
  md << "<a id=\"" << anchor(f) << "\"></a>\n";
  md << "<!-- reasoning-candidate tier=" << findings::tier_name(f.tier) << " rank=" << f.rank
     << " -->\n";
  if (f.tier == findings::Tier::kFusion) return write_fusion_detail(md, f);
  md << "#### " << heading(f) << "\n";
  md << "**Identification:** " << or_else(f.identification, f.insight) << "\n\n";
  write_data(md, f);
  md << "**Reasoning for Slowdown:** "
     << or_else(f.reasoning, "The trace does not show the cause; profile the flagged kernels.")
     << "\n\n";
  md << "**Resolution:** " << or_else(f.resolution, or_else(f.action, "See the card above."))
     << "\n\n";
  md << "**Impact estimate:**\n";
  if (f.impact_kind == findings::ImpactKind::kNotQuantifiable) {
    md << "Impact estimate is not quantifiable from trace data.\n\n";
  } else {
    write_estimate_marker(md, f);
    md << "<!-- impact-end -->\n\n";
  }
}

// ---- Executive summary ----

// diagnosis.md §6.7 (a departure from analysis-rules.md §10.2, which takes the first Top
// Operations row): the category with the most computation time, from the partition; the
// top-ranked finding is named separately. Runs without a partition fall back to the largest
// analyzer category, then to the host's op category.
std::optional<Bottleneck> top_bottleneck(const AnalysisReport& r) {
  const findings::CategoryShare* largest = nullptr;
  for (const findings::CategoryShare& s : r.diagnosis.computation_by_category)
    if (!largest || s.time_us > largest->time_us) largest = &s;
  if (largest) return Bottleneck{largest->category, largest->time_us / 1000, true};
  const auto names = category_display_names(r);
  const auto figures = category_figures(r);  // `most` points into it
  const std::pair<const std::string, CategoryFigures>* most = nullptr;
  for (const auto& entry : figures)
    if (entry.second.time_ms > 0 && (!most || entry.second.time_ms > most->second.time_ms))
      most = &entry;
  if (most) {
    auto it = names.find(most->first);
    return Bottleneck{it != names.end() ? it->second : most->first, most->second.time_ms, true};
  }
  if (!r.top_category.empty()) return Bottleneck{r.top_category, 0, false};
  return std::nullopt;
}

std::string bottleneck_cell(const AnalysisReport& r, const std::optional<Bottleneck>& b) {
  if (!b) return "None (no GPU work linked to an op)";
  if (!b->from_figures) return b->name + " (" + fixed(r.top_category_percent) + "%)";
  const double compute_ms = category_whole_ms(r);
  return b->name + " (" + fixed(compute_ms > 0 ? b->time_ms / compute_ms * 100 : 0.0) + "%)";
}

// ---- Warnings ----

namespace {
// The tier a failed analyzer would have reported in (the system plugins are known by name;
// everything else is a per-category compute analyzer or the fusion analyzer).
const char* analyzer_tier(const findings::AnalyzerOutcome& a) {
  for (const char* system : {"cpu_idle", "host_sync", "memcpy", "comm"})
    if (a.plugin == system) return "System";
  if (a.plugin == "fusion") return "Kernel Fusion";
  return "Compute Kernel";
}
}  // namespace

namespace {
std::vector<HighVarianceOp> high_variance(const AnalysisReport& r) {
  if (!r.unified) return {};
  return high_variance_ops(*r.unified, r.timeline.total_us / 1000);
}
}  // namespace

namespace {
// analysis-rules §14's GPU_GRAPH_REPLAY gate: the reference refuses such a trace outside
// inference mode; traceprism reports it and says what the replayed time lacks.
void write_graph_replay_warning(std::ostringstream& md, const AnalysisReport& r) {
  const model::GraphReplay& g = r.graph_replay;
  if (g.launches == 0) return;
  const double busy_ms = static_cast<double>(g.busy_ns) / 1e6;
  md << "The trace replays CUDA/HIP graphs: " << g.launches << " graph launch"
     << (g.launches == 1 ? "" : "es") << " ran " << g.gpu_events << " GPU events, busy "
     << fixed(busy_ms) << " ms";
  if (r.timeline.busy_us > 0)
    md << " (" << fixed(std::min(100.0, busy_ms * 1e3 / r.timeline.busy_us * 100))
       << "% of the GPU's busy time)";
  md << ". The trace shows no CPU op or shapes for them, so they appear as "
        "`<graph launch>-><kernel> (Synthetic Op)` rows in category other, without a perf "
        "model. ";
  if (r.capture_merge) {
    md << "The capture merge left them unattributed (see the capture merge above).\n\n";
    return;
  }
  md << (r.inference_mode
             ? "Pass the folder"
             : "Run `traceprism analyze --mode inference --capture-dir DIR` with the folder")
     << " of profiler traces the engine wrote while it captured its graphs (vLLM "
        "`graph_capture_*.json.gz`, SGLang `bs_<N>_*.json.gz`) to attribute them to ops"
     << (r.inference_mode ? " with `--capture-dir DIR`" : "")
     << ", or profile with graphs disabled (vLLM `--enforce-eager`, SGLang "
        "`--disable-cuda-graph`), whose kernels can differ from the replayed ones.\n\n";
}

// The pseudo ops inference mode inserted (model/pseudo_ops.hpp), appended as the index's last
// rows: the report names them, and a reader's trace does not.
std::map<std::string_view, std::size_t> pseudo_op_counts(const index::EventIndex& index) {
  std::map<std::string_view, std::size_t> counts;
  for (index::Row r = static_cast<index::Row>(index.size()); r-- > 0 && !index.has_time(r);)
    ++counts[index.name(r)];
  return counts;
}

void write_pseudo_op_note(std::ostringstream& md, const AnalysisReport& r) {
  if (!r.index) return;
  const std::map<std::string_view, std::size_t> counts = pseudo_op_counts(*r.index);
  if (counts.empty()) return;
  md << "Pseudo ops (inference-mode spec §4.2, as the reference): the GPU kernels of vLLM's "
        "unfused MoE (`vllm::moe_forward`: its `matmul_ogs` expert GEMMs and its finalize "
        "kernel) are reported as";
  std::size_t i = 0;
  for (const auto& [name, count] : counts)
    md << (i++ == 0 ? " " : i == counts.size() ? " and " : ", ") << count << " `" << name << "`";
  md << ", each with moe_forward's shapes, so that each expert GEMM has a MoE perf model.\n\n";
}

}  // namespace

void write_capture_merge_note(std::ostringstream& md, const AnalysisReport& r,
                              std::string_view label) {
  if (!r.capture_merge) return;
  const model::CaptureMergeSummary& m = r.capture_merge->summary;
  md << label << "Capture merge (`" << r.capture_merge->folder << "`): ";
  if (m.graph_launches == 0) {
    md << "the trace has no serving step (vLLM / SGLang / ATOM step annotation) with a graph "
          "launch, so nothing was merged.\n\n";
  } else {
    md << m.merged_launches << " of " << m.graph_launches << " graph launch"
       << (m.graph_launches == 1 ? "" : "es") << " in " << m.steps << " serving step"
       << (m.steps == 1 ? "" : "s") << " merged; " << m.attributed_events
       << " replayed GPU events attributed to the captured ops";
    if (!m.captures_used.empty()) {
      md << " of";
      for (std::size_t i = 0; i < m.captures_used.size(); ++i)
        md << (i ? ", `" : " `") << m.captures_used[i] << "`";
    }
    md << ".";
    if (m.full_copy_rows > 0)
      md << " Only the captured ops that lead to a launch call were copied (" << m.copied_rows
         << " events instead of " << m.full_copy_rows
         << "), so ops without GPU work of the graphs are not in the perf report sheets.";
    for (std::size_t i = 0; i < m.skipped.size(); ++i) {
      if (m.skipped[i] == 0) continue;
      md << " Not merged: " << m.skipped[i] << " launch" << (m.skipped[i] == 1 ? "" : "es") << ", "
         << model::merge_skip_reason(static_cast<model::MergeSkip>(i)) << ".";
    }
    md << "\n\n";
  }
  for (const std::string& note : r.capture_merge->notes) md << note << "\n\n";
}

void write_warnings(std::ostringstream& md, const AnalysisReport& r,
                    const std::vector<std::string>& notes, bool capture_merge) {
  std::vector<const findings::AnalyzerOutcome*> failed;
  for (const auto& a : r.graph.analyzers)
    if (a.status == findings::AnalyzerStatus::kFailed) failed.push_back(&a);
  const auto skipped = r.index ? r.index->stats().skipped_events() : 0;
  std::size_t ran = 0;
  for (const auto& a : r.graph.analyzers)
    if (a.status == findings::AnalyzerStatus::kOk || a.status == findings::AnalyzerStatus::kSkipped)
      ++ran;
  const std::vector<HighVarianceOp> noisy = high_variance(r);
  const bool pseudo_ops = r.index && r.index->size() > 0 && !r.index->has_time(r.index->size() - 1);
  if (notes.empty() && failed.empty() && r.refused_plugins.empty() && skipped == 0 && ran > 0 &&
      noisy.empty() && r.graph_replay.launches == 0 && !(capture_merge && r.capture_merge) &&
      !pseudo_ops)
    return;
  md << "## Warnings\n\n";
  for (const std::string& note : notes) md << note << "\n\n";
  if (capture_merge) write_capture_merge_note(md, r);
  write_pseudo_op_note(md, r);
  write_graph_replay_warning(md, r);
  if (ran == 0)
    md << "No analyzer ran (none was loaded, or all were disabled), so the sections below report "
          "nothing; run `traceprism plugins` to see what is installed.\n\n";
  if (!failed.empty()) {
    md << "| Analysis | Tier | Error Summary |\n|----------|------|---------------|\n";
    for (const auto* a : failed)
      md << "| " << cell(a->name) << " | " << analyzer_tier(*a) << " | " << cell(a->error)
         << " |\n";
    md << "\nThese are excluded from the recommendations below.\n\n";
  }
  if (!r.refused_plugins.empty()) {
    md << "| Plugin | Reason refused |\n|--------|----------------|\n";
    for (const auto& p : r.refused_plugins)
      md << "| " << cell(p.path.filename().string()) << " | " << cell(p.reason) << " |\n";
    md << "\n";
  }
  if (skipped > 0)
    md << "The trace had " << skipped << " malformed event" << (skipped == 1 ? "" : "s")
       << ", counted and skipped (see findings.json `data_quality`).\n\n";
  if (!noisy.empty()) {
    md << "These operations have unreliable kernel time measurements (CoV > 1.0: the standard "
          "deviation of their kernel time exceeds its mean over more than 10 calls), so their "
          "times and any impact derived from them are uncertain:\n\n"
       << "| Operation | Category | CoV | Reported Time (ms) |\n"
       << "|-----------|----------|-----|--------------------|\n";
    for (const auto& op : noisy)
      md << "| " << cell(op.name) << " | " << cell(op.category) << " | " << fixed(op.cov, 3)
         << " | " << text::python_float_repr(op.time_ms) << " |\n";
    md << "\n";
  }
}

namespace {

// multi-rank.md §9.3's appendix: coverage, matching, clock offsets and the per-rank rows (all of
// them up to kAllRanksShown, else the latest and earliest arrivers).
void write_multi_rank_overview(std::ostringstream& md, const pipeline::MultiRankFacts& m) {
  md << "\n### Multi-Rank Overview\n"
     << "- **Ranks**: " << m.ranks_analyzed << " of " << m.world_size << " analysed; focus rank "
     << m.focus_rank << "\n- **Collectives**: " << m.complete_collectives
     << " matched on every loaded member";
  for (const pipeline::MultiRankFacts::Matching& t : m.matching)
    md << "; " << t.matched_instances << " of " << t.instances << " instances in " << t.groups
       << " group" << (t.groups == 1 ? "" : "s") << " matched by " << t.tier;
  md << "\n- **Heat map**: `multi_rank_heatmap.svg` (each rank's computation and communication "
        "across the step); the tables: `multi_rank_csvs/`\n";
  if (m.clock_offsets.size() > 1) {
    md << "\n| Node | Clock Offset (µs) | MAD (µs) | Samples | Applied |\n|---|---|---|---|---|\n";
    for (const pipeline::MultiRankFacts::NodeClock& n : m.clock_offsets)
      md << "| " << n.node << " | " << fixed(static_cast<double>(n.offset_ns) / 1e3, 1) << " | "
         << fixed(static_cast<double>(n.mad_ns) / 1e3, 1) << " | " << n.samples << " | "
         << (n.applied ? "yes" : "no") << " |\n";
  }
  constexpr std::size_t kAllRanksShown = 64, kEachEnd = 5;
  std::vector<const pipeline::MultiRankFacts::Rank*> rows;
  for (const auto& rank : m.ranks) rows.push_back(&rank);
  if (rows.size() > kAllRanksShown) {
    std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
      return a->mean_lateness_us > b->mean_lateness_us;
    });
    rows.erase(rows.begin() + kEachEnd, rows.end() - kEachEnd);
    md << "\nThe " << kEachEnd << " latest and " << kEachEnd << " earliest of " << m.ranks.size()
       << " ranks by mean lateness (every rank: multi_rank_csvs/ranks.csv).\n";
  }
  md << "\n| Rank | Node | Step (ms) | GPU Idle % | Collectives | Wait (ms) | Exposed Wait (ms) "
        "| % Last | Mean Lateness (µs) | Cause |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto* rank : rows)
    md << "| " << rank->rank << " | " << rank->node << " | " << fixed(rank->step_ms, 3) << " | "
       << fixed(rank->gpu_idle_percent) << " | " << rank->collectives << " | "
       << fixed(rank->wait_ms, 3) << " | " << fixed(rank->exposed_wait_ms, 3) << " | "
       << fixed(rank->last_percent, 1) << " | " << fixed(rank->mean_lateness_us, 1) << " | "
       << rank->cause << " |\n";
}

}  // namespace

void write_appendix(std::ostringstream& md, const AnalysisReport& r) {
  md << "---\n\n## Appendix\n\n### Model Architecture\n"
     << "- **Model**: " << r.model.model << "\n"
     << "- **Architecture**: " << r.model.architecture << "\n"
     << "- **Scale**: " << r.model.scale << "\n"
     << "- **Precision**: " << r.model.precision << "\n\n"
     << "### Hardware Reference\n"
     << "- **Platform**: " << platform_label(r) << "\n";
  // Roofline numbers: the measured achievable value when the platform has one, else the peak.
  if (auto bw = r.platform.roofline_bandwidth_gbps())
    md << "- **Peak HBM BW**: " << fixed(*bw / 1000, 1) << " TB/s\n";
  if (auto maf = r.platform.roofline_tflops("matrix_bf16"))
    md << "- **Peak MAF (BF16)**: " << fixed(*maf, 0) << " TFLOPS\n";
  if (auto maf = r.platform.roofline_tflops("matrix_fp8"))
    md << "- **Peak MAF (FP8)**: " << fixed(*maf, 0) << " TFLOPS\n";
  if (auto maf = r.platform.roofline_tflops("matrix_fp4"))
    md << "- **Peak MAF (FP4)**: " << fixed(*maf, 0) << " TFLOPS\n";
  if (r.platform.numbers.empty())
    md << "- Peak numbers: none loaded (no platform file selected).\n";
  if (r.multi_rank) write_multi_rank_overview(md, *r.multi_rank);
}

std::string tokens_per_s(std::int64_t tokens, double dur_us) {
  return dur_us > 0 ? fixed(static_cast<double>(tokens) / (dur_us / 1e6), 0) : "—";
}

// Serving steps (inference-mode spec §2) by phase: the steps, requests and tokens the engine
// scheduled, their time and the tokens per second of step time.
void write_serving_phases(std::ostringstream& md, const std::vector<findings::StepRow>& steps) {
  struct Phase {
    std::size_t steps = 0;
    std::int64_t requests = 0, tokens = 0;
    double dur_us = 0, span_us = 0, busy_us = 0, idle_us = 0;
  };
  std::vector<std::pair<std::string, Phase>> phases;  // in order of first appearance
  for (const findings::StepRow& s : steps) {
    auto it =
        std::find_if(phases.begin(), phases.end(), [&](auto& p) { return p.first == s.phase; });
    if (it == phases.end()) it = phases.insert(phases.end(), {s.phase, {}});
    Phase& p = it->second;
    ++p.steps, p.requests += s.requests, p.tokens += s.tokens;
    p.dur_us += s.dur_us, p.span_us += s.gpu_span_us;
    p.busy_us += s.gpu_busy_us, p.idle_us += s.idle_us;
  }
  md << "Serving steps by phase: requests and tokens as the engine's step annotations give them; "
        "host time is the annotations' span, GPU span from the first GPU event the steps "
        "launched to the last one's end (busy and idle within it), tokens/s over the GPU "
        "span:\n\n"
     << "| Phase | Steps | Requests | Tokens | Host (ms) | GPU span (ms) | GPU busy (ms) | "
        "GPU idle (ms) | Tokens/s |\n"
     << "|-------|-------|----------|--------|-----------|---------------|---------------|"
        "---------------|----------|\n";
  for (const auto& [name, p] : phases)
    md << "| " << name << " | " << p.steps << " | " << p.requests << " | " << p.tokens << " | "
       << fixed(p.dur_us / 1e3) << " | " << fixed(p.span_us / 1e3) << " | "
       << fixed(p.busy_us / 1e3) << " | " << fixed(p.idle_us / 1e3) << " | "
       << tokens_per_s(p.tokens, p.span_us) << " |\n";
  md << "\n";
}

// The steady state of a serving trace (inference-mode spec §7): which steps it is, and their
// tokens/s and GPU busy share, free of ramp-up and drain.
void write_steady_state(std::ostringstream& md, const findings::Diagnosis& d) {
  if (!d.steady_state) return;
  const findings::SteadyState& st = *d.steady_state;
  const std::size_t n = d.steps.size();
  auto steps_text = [](model::StepRange r) {
    return r.size() == 1 ? "step " + std::to_string(r.begin + 1)
                         : "steps " + std::to_string(r.begin + 1) + "–" + std::to_string(r.end);
  };
  if (st.plateau) {
    md << "Steady state (inference-mode spec §7): " << steps_text(st.region) << " of " << n
       << ", where the engine schedules about its peak of " << st.peak_requests << " requests";
  } else {
    md << "No run of six steps schedules about the peak of " << st.peak_requests
       << " requests, so the middle of the trace (" << steps_text(st.region) << " of " << n
       << ") stands for the steady state";
  }
  std::int64_t tokens = 0;
  double span_us = 0, busy_us = 0;
  for (std::size_t i = st.region.begin; i < st.region.end; ++i) {
    tokens += d.steps[i].tokens;
    span_us += d.steps[i].gpu_span_us;
    busy_us += d.steps[i].gpu_busy_us;
  }
  if (span_us > 0)
    md << ": " << tokens_per_s(tokens, span_us) << " tokens/s over their GPU span, GPU busy "
       << fixed(std::min(100.0, busy_us / span_us * 100)) << "% of it";
  md << ".";
  if (st.window.size() > 0 && st.window != st.region)
    md << " The splitter's mixed-mode window of up to 32 steps is " << steps_text(st.window) << ".";
  md << "\n\n";
}

// Which roofline regime a serving trace's kernel time is in, and whether that is what its phase
// leads one to expect (decode: few tokens per weight read, memory-bound; prefill: compute-bound).
void write_serving_bound(std::ostringstream& md, const findings::Diagnosis& d) {
  if (!d.serving_bound) return;
  const findings::BoundBreakdown& b = *d.serving_bound;
  auto share = [&](double us) {
    return fixed(us / 1e3) + " ms (" + fixed(us / b.total_us * 100) + "%)";
  };
  md << "By roofline bound, of the " << fixed(b.total_us / 1e3)
     << " ms of kernel time in the perf report: " << share(b.memory_us) << " memory-bound";
  if (!b.top_memory_op.empty()) md << " (most in `" << b.top_memory_op << "`)";
  md << ", " << share(b.compute_us) << " compute-bound";
  if (!b.top_compute_op.empty()) md << " (most in `" << b.top_compute_op << "`)";
  md << ", " << share(b.unknown_us) << " without a roofline (no perf model or no peak).";
  const std::string& phase = d.steps.front().phase;
  const bool one_phase = std::all_of(d.steps.begin(), d.steps.end(),
                                     [&](const findings::StepRow& s) { return s.phase == phase; });
  const double modelled = b.memory_us + b.compute_us;
  if (modelled < b.total_us / 2) {
    md << " Most of it has no roofline, so the trace does not show which regime the steps run "
          "in.";
  } else if (one_phase && phase == "decode_only") {
    md << (b.memory_us >= b.compute_us
               ? " As expected for decode steps (few tokens per weight read), the modelled time "
                 "is mostly memory-bound: what can be won is the gap to the memory roofline."
               : " Unusual for decode steps, the modelled time is mostly compute-bound: check "
                 "the batch size and the attention's context length.");
  } else if (one_phase && phase == "prefill_only") {
    md << (b.compute_us >= b.memory_us
               ? " As expected for prefill steps (many tokens per weight read), the modelled "
                 "time is mostly compute-bound."
               : " Unusual for prefill steps, the modelled time is mostly memory-bound: short "
                 "prompts or small chunks do not reuse the weights.");
  }
  md << "\n\n";
}

// diagnosis.md §3: how many steps, how long, which stand out, and what cannot be judged.
void write_steps(std::ostringstream& md, const AnalysisReport& r) {
  const auto& steps = r.diagnosis.steps;
  if (steps.empty()) return;
  md << "### Steps\n\n";
  const bool serving = !steps.front().phase.empty();
  if (serving) write_serving_phases(md, steps);
  write_steady_state(md, r.diagnosis);
  write_serving_bound(md, r.diagnosis);
  if (steps.size() == 1) {
    const findings::StepRow& s = steps.front();
    const bool span = s.gpu_span_us > 0;  // a serving step's GPU work outlasts its host range
    md << "The trace holds a single step (" << s.name << ", " << (span ? "GPU span " : "")
       << fixed((span ? s.gpu_span_us : s.dur_us) / 1e3) << " ms, GPU idle "
       << fixed(s.idle_us / 1e3) << " ms of it): step-to-step variation cannot be judged.\n\n";
    return;
  }
  std::vector<double> durations;
  for (const auto& s : steps) durations.push_back(s.dur_us);
  std::sort(durations.begin(), durations.end());
  const std::size_t n = durations.size();
  const double median = n % 2 ? durations[n / 2] : (durations[n / 2 - 1] + durations[n / 2]) / 2;
  md << "The trace holds " << n << " steps; the median step takes " << fixed(median / 1e3)
     << " ms.";
  std::vector<const findings::StepRow*> outliers;
  for (const auto& s : steps)
    if (s.outlier) outliers.push_back(&s);
  if (outliers.empty()) {
    md << " No step is longer than 1.25x the median.\n\n";
  } else {
    md << " " << outliers.size() << (outliers.size() == 1 ? " step is" : " steps are")
       << " longer than 1.25x the median";
    if (outliers.front() == &steps.front())
      md << ", the first of them the first step (a warm-up outlier: judge the others)";
    md << ".\n\n";
  }
  constexpr std::size_t kListedSteps = 12;
  const bool all = n <= kListedSteps;
  if (!all && outliers.empty()) return;
  if (!all) md << "The outlier steps:\n\n";
  md << "| Step | " << (serving ? "Phase | Tokens | " : "")
     << "Duration (ms) | GPU busy (ms) | GPU idle (ms) | Outlier |\n"
     << "|------|" << (serving ? "-------|--------|" : "")
     << "---------------|---------------|---------------|---------|\n";
  std::size_t listed = 0;
  for (const auto& s : steps) {
    if (!all && (!s.outlier || ++listed > kListedSteps)) continue;
    md << "| " << cell(s.name) << " | ";
    if (serving) md << s.phase << " | " << s.tokens << " | ";
    md << fixed(s.dur_us / 1e3) << " | " << fixed(s.gpu_busy_us / 1e3) << " | "
       << fixed(s.idle_us / 1e3) << " | " << (s.outlier ? "yes" : "no") << " |\n";
  }
  md << "\n";
}

// diagnosis.md §1.4: "within target" only when the perf models cover at least 90 % of the
// computation time; otherwise say how much was assessed and how much was not.
std::string impact_phrase(const findings::Finding& f) {
  if (f.impact_kind == findings::ImpactKind::kNotQuantifiable)
    return "impact not quantifiable from the trace";
  std::string s = "impact_score " + fixed(f.impact_mid) + " (" + fixed(f.impact_low) + "–" +
                  fixed(f.impact_high) + "% of end-to-end time)";
  if (f.impact_kind == findings::ImpactKind::kHeuristic) s += ", estimated from its time share";
  return s;
}

std::string cause_label(const findings::Finding& f) {
  return f.cause.empty() ? std::string() : " (cause: " + f.cause + ")";
}

std::string item_label(const findings::Finding& f) {
  return std::string(findings::tier_name(f.tier)) + " P" + std::to_string(f.rank) + ", \"" +
         f.title + "\"";
}

void write_where_to_start(std::ostringstream& md, const AnalysisReport& r) {
  const auto& order = r.diagnosis.order;
  if (order.empty()) return;
  const findings::Finding& first = findings::resolve(r.findings, order.front());
  md << " Start with " << item_label(first) << cause_label(first) << ": " << impact_phrase(first)
     << ".";
  if (order.size() < 2) return;
  md << " Then ";
  for (std::size_t i = 1; i < order.size() && i < 3; ++i) {
    const findings::Finding& next = findings::resolve(r.findings, order[i]);
    if (i == 2) md << " and ";
    md << item_label(next) << " (" << impact_phrase(next) << ")";
  }
  md << ".";
}

void write_detailed_analysis(std::ostringstream& md, const findings::RankedFindings& f,
                             const std::string& no_compute) {
  md << "---\n\n## Detailed Analysis\n\n### Compute Kernel Insights\n\n";
  if (f.compute.empty()) md << no_compute;
  for (const findings::Finding& x : f.compute) write_detail(md, x);
  md << "### Kernel Fusion Insights\n\n";
  if (f.fusion.empty()) md << "No fusion impact estimates available.\n\n";
  for (const findings::Finding& x : f.fusion) write_detail(md, x);
  md << "### System-Level Insights\n\n";
  if (f.system.empty()) md << "✅ No system-level bottlenecks detected.\n\n";
  for (const findings::Finding& x : f.system) write_detail(md, x);
}

std::string no_compute_items(const AnalysisReport& r) {
  const std::optional<double> covered = r.diagnosis.compute_coverage_percent;
  if (covered && *covered >= 90.0)
    return "✅ No compute kernel optimization opportunities identified. All categories are within "
           "target performance bounds.\n\n";
  const std::string head = "No compute kernel optimization opportunity identified";
  if (!covered || *covered <= 0)
    return head + ", but no computation time is covered by a perf model, so none was assessed.\n\n";
  return head + " in the " + fixed(*covered, 1) +
         "% of computation time that the perf models cover; " + fixed(100.0 - *covered, 1) +
         "% is unassessed.\n\n";
}

// Fusion candidates are found under module frames and CPU ops: a trace with neither (GPU only)
// cannot show one, which is not the same as having none.
std::string no_fusion_items(const AnalysisReport& r) {
  if (r.index && r.index->rows_of_kind(index::EventKind::kCpuOp).empty())
    return "Kernel fusion cannot be assessed: the trace has no CPU ops or module frames to group "
           "kernels by.\n\n";
  return "No kernel fusion opportunities detected.\n\n";
}

}  // namespace traceprism::report::markdown
