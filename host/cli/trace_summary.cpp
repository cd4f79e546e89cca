#include "cli/trace_summary.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cstdio>
#include <map>

namespace traceprism::cli {

using index::EventKind;

namespace {

std::string format(const char* fmt, double a, double b = 0) {
  char buf[128];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
}

std::vector<TraceSummary::Count> sorted_counts(const std::map<std::string, std::uint64_t>& m) {
  std::vector<TraceSummary::Count> out;
  for (auto& [name, count] : m) out.push_back({name, count});
  std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.count > b.count; });
  return out;
}

std::string phase_name(char ph) {
  switch (ph) {
    case 'X':
      return "X (complete)";
    case 'B':
      return "B (begin, paired with E)";
    case 'E':
      return "E (end)";
    case 'i':
    case 'I':
      return std::string(1, ph) + " (instant)";
    case 's':
      return "s (flow start)";
    case 'f':
      return "f (flow end)";
    case 'M':
      return "M (metadata)";
    case 'C':
      return "C (counter)";
    case 0:
      return "(none)";
    default:
      return std::string(1, ph);
  }
}

}  // namespace

TraceSummary summarize(const pipeline::TraceSession& session) {
  const auto& file = session.file;
  const auto& x = file.index;
  TraceSummary s;
  s.path = file.path;
  s.compression = io::compression_name(file.compression);
  s.file_bytes = file.file_bytes;
  s.json_bytes = file.json_bytes;
  s.events = x.size();

  std::map<std::string, std::uint64_t> categories, phases;
  for (index::Row r = 0; r < x.size(); ++r) {
    ++phases[phase_name(x.phase(r))];
    if (!x.valid(r)) continue;
    std::string_view cat = x.category(r);
    if (x.category_id(r) == index::kNoString) cat = "(no category)";
    ++categories[std::string(cat)];
  }
  s.by_category = sorted_counts(categories);
  s.by_phase = sorted_counts(phases);
  s.first_ts_ns = x.first_ts_ns();
  s.last_end_ns = x.last_end_ns();
  s.span_ms = static_cast<double>(s.last_end_ns - s.first_ts_ns) / 1e6;
  s.devices = x.metadata().devices;
  if (x.metadata().distributed) {
    const auto& d = *x.metadata().distributed;
    s.distributed =
        d.backend + ", rank " + std::to_string(d.rank) + " of " + std::to_string(d.world_size);
  }
  for (std::size_t i = 0; i < x.streams().size(); ++i) {
    auto rows = x.stream_rows(i);
    std::int64_t busy = 0;
    for (auto r : rows) busy += x.dur_ns(r);
    s.streams.push_back({x.streams()[i].device, x.streams()[i].stream, rows.size(),
                         static_cast<double>(busy) / 1e6});
  }
  // Host threads: the ones with ops, runtime calls, python frames or annotations.
  std::vector<std::size_t> thread_events(x.threads().size(), 0);
  std::vector<bool> host_thread(x.threads().size(), false);
  for (index::Row r = 0; r < x.size(); ++r) {
    const std::uint32_t t = x.thread(r);
    if (t == index::kNoThread) continue;
    ++thread_events[t];
    const EventKind k = x.kind(r);
    if (k == EventKind::kCpuOp || index::is_runtime_kind(k) || k == EventKind::kPythonFunction ||
        k == EventKind::kUserAnnotation)
      host_thread[t] = true;
  }
  for (std::size_t i = 0; i < x.threads().size(); ++i) {
    if (!host_thread[i]) continue;
    const auto& t = x.threads()[i];
    std::string pid = x.id_string(t.pid), tid = x.id_string(t.tid);
    auto name = x.metadata().thread_names.find({t.pid, t.tid});
    s.threads.push_back(
        {pid, tid, name == x.metadata().thread_names.end() ? "" : name->second, thread_events[i]});
  }
  std::map<std::string, TraceSummary::Copies> copies;
  for (index::Row r : x.rows_of_kind(EventKind::kGpuMemcpy)) {
    const std::optional<index::GpuArgs> g = x.gpu_args(r);
    if (!g) continue;
    auto& c = copies[std::string(index::copy_direction_name(g->copy.direction))];
    c.direction = index::copy_direction_name(g->copy.direction);
    ++c.count;
    c.bytes += g->bytes > 0 ? static_cast<std::uint64_t>(g->bytes) : 0;
    if (g->copy.source == index::MemoryKind::kPageable ||
        g->copy.destination == index::MemoryKind::kPageable)
      ++c.pageable;
  }
  for (auto& [direction, c] : copies) s.copies.push_back(c);
  s.linked = session.links.linked_count();
  s.unlinked = session.links.unlinked_count();
  s.gpu_events = s.linked + s.unlinked;
  s.graph_launches = session.links.graph_launches();
  s.flowless = session.links.flowless();
  s.link_key =
      session.links.key() == model::LaunchLinks::Key::kCorrelation ? "correlation" : "External id";
  s.tree_nodes = session.tree.node_count();
  s.tree_dropped = session.tree.dropped_count();
  s.cpu_op_roots = session.tree.cpu_op_roots().size();
  for (int i = 0; i < index::kImportIssueCount; ++i) {
    auto issue = static_cast<index::ImportIssue>(i);
    std::uint64_t count = x.stats().count(issue);
    if (!count) continue;
    std::string example;
    if (!x.stats().examples(issue).empty()) {
      const auto& e = x.stats().examples(issue).front();
      example = "event " + std::to_string(e.event_index) + " (near byte " +
                std::to_string(e.byte_offset) + ")";
      if (!e.detail.empty()) example += ": " + e.detail;
    }
    s.issues.push_back({std::string(index::import_issue_name(issue)),
                        std::string(index::import_issue_description(issue)), count,
                        index::import_issue_skips_event(issue), example});
  }
  s.legacy_format = x.metadata().legacy_format;
  s.timeline = session.timeline;
  s.read_seconds = session.read_seconds;
  s.model_seconds = session.model_seconds;
  return s;
}

std::string render_text(const TraceSummary& s) {
  std::string out;
  auto line = [&](const std::string& text) { out += text + "\n"; };
  line("trace       " + s.path);
  line("file        " + format("%.2f MB", static_cast<double>(s.file_bytes) / 1e6) + " (" +
       s.compression + "), JSON " + format("%.2f MB", static_cast<double>(s.json_bytes) / 1e6));
  line("events      " + std::to_string(s.events) +
       (s.legacy_format ? "  (PyTorch <= 1.9 format, normalized)" : ""));
  line("time span   " + format("%.3f ms", s.span_ms));
  line("");
  line("by category");
  for (auto& c : s.by_category) line(format("  %10.0f  ", static_cast<double>(c.count)) + c.name);
  line("by phase");
  for (auto& c : s.by_phase) line(format("  %10.0f  ", static_cast<double>(c.count)) + c.name);
  line("");
  line("devices");
  if (s.devices.empty()) line("  (no deviceProperties)");
  for (auto& d : s.devices) {
    line("  " + std::to_string(d.id) + ": " + (d.name.empty() ? "(unnamed)" : d.name) +
         (d.num_sms ? ", " + std::to_string(d.num_sms) + " SMs" : "") +
         (d.total_global_mem ? format(", %.1f GB", static_cast<double>(d.total_global_mem) / 1e9)
                             : ""));
  }
  if (!s.distributed.empty()) line("distributed " + s.distributed);
  line("GPU streams");
  if (s.streams.empty()) line("  (none)");
  for (auto& st : s.streams) {
    line("  device " + std::to_string(st.device) + " stream " + std::to_string(st.stream) + ": " +
         std::to_string(st.events) + " events, " + format("%.3f ms", st.busy_ms) +
         " total duration");
  }
  line("CPU threads");
  for (auto& t : s.threads) {
    line("  pid " + t.pid + " tid " + t.tid + (t.name.empty() ? "" : " (" + t.name + ")") + ": " +
         std::to_string(t.events) + " events");
  }
  line("GPU copies");
  if (s.copies.empty()) line("  (none)");
  for (auto& c : s.copies) {
    line("  " + c.direction + ": " + std::to_string(c.count) + " copies, " +
         format("%.3f MB", static_cast<double>(c.bytes) / 1e6) +
         (c.pageable ? ", " + std::to_string(c.pageable) + " to or from pageable memory" : ""));
  }
  line("");
  line(
      "GPU events  " + std::to_string(s.gpu_events) + ": " + std::to_string(s.linked) +
      " linked to a launch, " + std::to_string(s.unlinked) + " unlinked (link id: " + s.link_key +
      ", graph launches: " + std::to_string(s.graph_launches) + ")" +
      (s.flowless && s.gpu_events ? "; the trace has no launch flows, linked by correlation" : ""));
  line("call tree   " + std::to_string(s.tree_nodes) + " host events, " +
       std::to_string(s.cpu_op_roots) + " top-level cpu_ops, " + std::to_string(s.tree_dropped) +
       " dropped by the overlap rule");
  line("");
  line("import");
  if (s.issues.empty()) line("  no malformed events");
  for (auto& i : s.issues) {
    line(format("  %10.0f  ", static_cast<double>(i.count)) + i.name +
         (i.skipped ? " (skipped): " : " (kept): ") + i.description +
         (i.first_example.empty() ? "" : "; first: " + i.first_example));
  }
  line("");
  const auto& t = s.timeline;
  line("GPU timeline (" + std::to_string(t.events) + " GPU events)");
  auto row = [&](const char* name, double us) {
    line(std::string("  ") + name + format("%12.3f ms", us / 1e3) +
         (t.total_us ? format("  %6.2f %%", us / t.total_us * 100) : std::string()));
  };
  row("computation     ", t.computation_us);
  row("exposed comm    ", t.exposed_comm_us);
  row("exposed memcpy  ", t.exposed_memcpy_us);
  row("busy            ", t.busy_us);
  row("idle            ", t.idle_us);
  row("total           ", t.total_us);
  row("total comm      ", t.total_comm_us);
  row("total memcpy    ", t.total_memcpy_us);
  return out;
}

std::string render_json(const TraceSummary& s) {
  namespace json = boost::json;
  json::object o;
  o["schema"] = "traceprism.inspect/1";
  o["path"] = s.path;
  o["compression"] = s.compression;
  o["file_bytes"] = s.file_bytes;
  o["json_bytes"] = s.json_bytes;
  o["events"] = s.events;
  o["legacy_format"] = s.legacy_format;
  auto counts = [](const std::vector<TraceSummary::Count>& v) {
    json::object c;
    for (auto& e : v) c[e.name] = e.count;
    return c;
  };
  o["by_category"] = counts(s.by_category);
  o["by_phase"] = counts(s.by_phase);
  o["first_ts_ns"] = s.first_ts_ns;
  o["last_end_ns"] = s.last_end_ns;
  json::array devices;
  for (auto& d : s.devices) {
    devices.push_back(json::object{{"id", d.id},
                                   {"name", d.name},
                                   {"num_sms", d.num_sms},
                                   {"total_global_mem", d.total_global_mem},
                                   {"compute_capability", std::to_string(d.compute_major) + "." +
                                                              std::to_string(d.compute_minor)}});
  }
  o["devices"] = std::move(devices);
  if (!s.distributed.empty()) o["distributed"] = s.distributed;
  json::array streams;
  for (auto& st : s.streams) {
    streams.push_back(json::object{{"device", st.device},
                                   {"stream", st.stream},
                                   {"events", st.events},
                                   {"duration_ms", st.busy_ms}});
  }
  o["streams"] = std::move(streams);
  json::array threads;
  for (auto& t : s.threads) {
    threads.push_back(
        json::object{{"pid", t.pid}, {"tid", t.tid}, {"name", t.name}, {"events", t.events}});
  }
  o["cpu_threads"] = std::move(threads);
  json::object copies;
  for (auto& c : s.copies) {
    copies[c.direction] =
        json::object{{"count", c.count}, {"bytes", c.bytes}, {"pageable", c.pageable}};
  }
  o["gpu_copies"] = std::move(copies);
  o["gpu_events"] = json::object{{"total", s.gpu_events},  {"linked", s.linked},
                                 {"unlinked", s.unlinked}, {"graph_launches", s.graph_launches},
                                 {"flowless", s.flowless}, {"link_key", s.link_key}};
  o["call_tree"] = json::object{
      {"host_events", s.tree_nodes}, {"cpu_op_roots", s.cpu_op_roots}, {"dropped", s.tree_dropped}};
  json::object issues;
  for (auto& i : s.issues) {
    issues[i.name] = json::object{{"count", i.count},
                                  {"skipped", i.skipped},
                                  {"description", i.description},
                                  {"first", i.first_example}};
  }
  o["import_issues"] = std::move(issues);
  const auto& t = s.timeline;
  o["gpu_timeline_us"] = json::object{{"computation", t.computation_us},
                                      {"exposed_comm", t.exposed_comm_us},
                                      {"exposed_memcpy", t.exposed_memcpy_us},
                                      {"busy", t.busy_us},
                                      {"idle", t.idle_us},
                                      {"total", t.total_us},
                                      {"total_comm", t.total_comm_us},
                                      {"total_memcpy", t.total_memcpy_us},
                                      {"events", t.events}};
  return json::serialize(o) + "\n";
}

}  // namespace traceprism::cli
