// Everything an EventIndex holds, as text: two readers built the same index when their
// fingerprints are equal (the parallel reader against the one-thread reader).
#pragma once

#include <sstream>
#include <string>

#include "index/event_index.hpp"

namespace traceprism::testing {

inline std::string index_fingerprint(const index::EventIndex& x) {
  std::ostringstream out;
  const index::StringPool& strings = x.strings();
  out << "strings " << strings.size() << "\n";
  for (index::StringId id = 0; id < strings.size(); ++id)
    out << id << "=" << strings.view(id) << "\n";
  out << "rows " << x.size() << "\n";
  for (index::Row r = 0; r < x.size(); ++r) {
    out << r << ' ' << x.ts_ns(r) << ' ' << x.dur_ns(r) << ' ' << static_cast<int>(x.kind(r)) << ' '
        << static_cast<int>(x.phase(r)) << ' ' << x.name_id(r) << ' ' << x.category_id(r) << ' '
        << x.id_string(x.pid(r)) << ' ' << x.id_string(x.tid(r)) << ' ' << x.correlation(r) << ' '
        << x.external_id(r) << ' ' << x.valid(r) << ' ' << x.thread(r);
    if (auto a = x.op_args(r))
      out << " op " << a->input_dims << ',' << a->input_types << ',' << a->input_strides << ','
          << a->concrete_inputs << ',' << a->sequence_number << ',' << a->fwd_thread_id;
    if (auto g = x.gpu_args(r))
      out << " gpu " << g->device << ',' << g->stream << ',' << g->stream_in_args << ','
          << g->grid[0] << ',' << g->grid[1] << ',' << g->grid[2] << ',' << g->block[0] << ','
          << g->block[1] << ',' << g->block[2] << ',' << g->registers_per_thread << ','
          << g->shared_memory << ',' << g->bytes;
    if (auto c = x.comm_args(r))
      out << " comm " << c->in_nelems << ',' << c->out_nelems << ',' << c->group_size << ','
          << c->dtype << ',' << c->collective;
    if (auto k = x.launch_kernel(r)) out << " launch " << *k;
    if (x.input_shapes(r)) out << " shapes";
    out << "\n";
  }
  for (int i = 0; i < index::kImportIssueCount; ++i) {
    const auto issue = static_cast<index::ImportIssue>(i);
    out << "issue " << i << ' ' << x.stats().count(issue);
    for (const index::ImportExample& e : x.stats().examples(issue))
      out << " [" << e.event_index << ',' << e.byte_offset << ',' << e.detail << ']';
    out << "\n";
  }
  const index::TraceMetadata& m = x.metadata();
  out << "metadata " << m.bare_event_array << ' ' << m.trace_events_arrays << ' ' << m.legacy_format
      << ' ' << m.devices.size() << ' ' << m.distributed.has_value() << "\n";
  for (const index::DeviceInfo& d : m.devices) out << "device " << d.id << ' ' << d.name << "\n";
  for (const auto& [key, value] : m.keys) out << "key " << key << '=' << value << "\n";
  for (const auto& [pid, p] : m.processes)
    out << "process " << x.id_string(pid) << ' ' << p.name << ' ' << p.labels << ' ' << p.sort_index
        << "\n";
  for (const auto& [thread, name] : m.thread_names)
    out << "thread " << x.id_string(thread.first) << ' ' << x.id_string(thread.second) << ' '
        << name << "\n";
  for (const auto& [thread, sort] : m.thread_sort_indices)
    out << "sort " << x.id_string(thread.first) << ' ' << x.id_string(thread.second) << ' ' << sort
        << "\n";
  for (const index::EventIndex::Thread& t : x.threads())
    out << "track " << x.id_string(t.pid) << ' ' << x.id_string(t.tid) << "\n";
  for (std::size_t s = 0; s < x.streams().size(); ++s) {
    out << "stream " << x.streams()[s].device << ' ' << x.streams()[s].stream << ':';
    for (index::Row r : x.stream_rows(s)) out << ' ' << r;
    out << "\n";
  }
  out << "span " << x.first_ts_ns() << ' ' << x.last_end_ns() << "\n";
  return out.str();
}

}  // namespace traceprism::testing
