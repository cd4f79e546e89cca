#include "ingest/index_builder.hpp"

#include "ingest/time_text.hpp"
#include "io/utf8_text.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <new>

#include <traceprism/reference_time.hpp>

namespace traceprism::ingest {

using index::EventKind;
using index::ImportIssue;
using index::Row;

IndexBuilder::IndexBuilder(bool strict) : strict_(strict) {
  auto& s = index_.strings_;
  cat_ = {s.intern("cpu_op"),
          s.intern("python_function"),
          s.intern("user_annotation"),
          s.intern("gpu_user_annotation"),
          s.intern("cuda_runtime"),
          s.intern("cuda_driver"),
          s.intern("kernel"),
          s.intern("gpu_memcpy"),
          s.intern("gpu_memset"),
          s.intern("cuda_sync"),
          s.intern("ac2g"),
          s.intern("Operator"),
          s.intern("Runtime"),
          s.intern("Kernel"),
          s.intern("Memcpy"),
          s.intern("Memset"),
          s.intern("Python"),
          s.intern("async"),
          s.intern("xpu_runtime"),
          s.intern("xpu_driver")};
}

void IndexBuilder::reserve_for(std::uint64_t json_bytes) {
  // Real traces average 150-300 bytes per event; plan for the dense end. The cap keeps the
  // reservation (about 1.8 GB of address space) safe under the kernel's overcommit heuristics;
  // bigger traces grow the columns from there.
  constexpr std::uint64_t kBytesPerEvent = 120;
  constexpr std::uint64_t kMaxReserved = std::uint64_t(1) << 25;
  const std::size_t rows =
      static_cast<std::size_t>(std::min(json_bytes / kBytesPerEvent, kMaxReserved));
  try {
    index_.reserve_rows(rows);
  } catch (const std::bad_alloc&) {
    // Only an optimisation: the columns grow on demand instead.
  }
}

void IndexBuilder::note(const RawEvent& e, ImportIssue issue, std::string_view detail) {
  index_.stats_.add(issue, e.event_index, e.byte_offset, detail);
}

void IndexBuilder::skip(RawEvent& e, ImportIssue issue, std::string detail) {
  if (strict_) throw MalformedEvent{e.event_index, e.byte_offset, std::move(detail)};
  note(e, issue, detail);
  append_row(e, EventKind::kOther, /*malformed=*/true);
}

void IndexBuilder::add_non_object(std::uint64_t event_index, std::uint64_t byte_offset) {
  RawEvent e;
  e.reset(event_index, byte_offset);
  skip(e, ImportIssue::kNotAnObject, "expected each element of \"traceEvents\" to be an object");
}

bool IndexBuilder::check_time(RawEvent& e, const TimeField& field, const char* key, bool required) {
  using State = TimeField::State;
  const bool is_ts = key[0] == 't';
  switch (field.state) {
    case State::kAbsent:
      if (!required) return true;
      skip(e, is_ts ? ImportIssue::kMissingTimestamp : ImportIssue::kMissingDuration,
           std::string("expected a \"") + key + "\" number");
      return false;
    case State::kWrongType:
      skip(e, is_ts ? ImportIssue::kBadTimestamp : ImportIssue::kBadDuration,
           std::string("expected \"") + key + "\" to be a number, got " +
               std::string(field.wrong_type));
      return false;
    case State::kOutOfRange:
      skip(
          e, is_ts ? ImportIssue::kBadTimestamp : ImportIssue::kBadDuration,
          std::string("expected \"") + key + "\" to be a number of microseconds within ±146 years");
      return false;
    case State::kRounded:
      note(e, ImportIssue::kSubNanosecond, key);
      return true;
    case State::kValue:
      return true;
  }
  return true;
}

void IndexBuilder::normalize_legacy(RawEvent& e) {
  // PyTorch <= 1.9 (early Kineto) used other category names; rewrite them once here so every
  // later stage sees the current vocabulary.
  const auto c = e.category;
  index::StringId modern = index::kNoString;
  if (c == cat_.legacy_operator)
    modern = cat_.cpu_op;
  else if (c == cat_.legacy_runtime)
    modern = cat_.cuda_runtime;
  else if (c == cat_.legacy_kernel)
    modern = cat_.kernel;
  else if (c == cat_.legacy_memcpy)
    modern = cat_.gpu_memcpy;
  else if (c == cat_.legacy_memset)
    modern = cat_.gpu_memset;
  else if (c == cat_.legacy_python)
    modern = cat_.python_function;
  else if (c == cat_.legacy_async && (e.phase == 's' || e.phase == 'f'))
    modern = cat_.ac2g;
  bool changed = modern != index::kNoString;
  if (changed) e.category = modern;

  // GPU rows were named "stream 7" instead of 7.
  if (e.tid.state == IdField::State::kString) {
    std::string_view t = index_.strings_.view(e.tid.text);
    constexpr std::string_view kPrefix = "stream ";
    if (t.size() > kPrefix.size() && t.substr(0, kPrefix.size()) == kPrefix) {
      std::int64_t stream = 0;
      auto digits = t.substr(kPrefix.size());
      auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), stream);
      if (ec == std::errc() && ptr == digits.data() + digits.size()) {
        e.tid = IdField{IdField::State::kNumber, stream, index::kNoString};
        changed = true;
      }
    }
  }
  if (e.legacy_external_id) changed = true;
  if (changed) {
    note(e, ImportIssue::kLegacyNormalized, "");
    index_.metadata_.legacy_format = true;
  }
}

EventKind IndexBuilder::classify(const RawEvent& e) const {
  switch (e.phase) {
    case 's':
      return EventKind::kFlowStart;
    case 'f':
      return EventKind::kFlowEnd;
    case 'i':
    case 'I':
      return EventKind::kInstant;
    case 'C':
      return EventKind::kCounter;
    case 'M':
      return EventKind::kMetadata;
    case 'E':
      return EventKind::kEnd;
    case 'X':
    case 'B':
      break;
    default:
      return EventKind::kOther;
  }
  const auto c = e.category;
  if (c == cat_.cpu_op) return EventKind::kCpuOp;
  if (c == cat_.cuda_runtime || c == cat_.xpu_runtime) return EventKind::kCudaRuntime;
  if (c == cat_.kernel) return EventKind::kKernel;
  if (c == cat_.python_function) return EventKind::kPythonFunction;
  if (c == cat_.cuda_driver || c == cat_.xpu_driver) return EventKind::kCudaDriver;
  if (c == cat_.gpu_memcpy) return EventKind::kGpuMemcpy;
  if (c == cat_.gpu_memset) return EventKind::kGpuMemset;
  if (c == cat_.user_annotation) return EventKind::kUserAnnotation;
  if (c == cat_.gpu_user_annotation) return EventKind::kGpuUserAnnotation;
  if (c == cat_.cuda_sync) return EventKind::kCudaSync;
  return EventKind::kOther;
}

std::uint32_t IndexBuilder::track_ref(index::EventIndex::Thread track) {
  // Consecutive events mostly share their thread.
  if (has_last_track_ && track == last_track_) return last_track_ref_;
  auto [it, inserted] = track_refs_.try_emplace({track.pid, track.tid},
                                                static_cast<std::uint32_t>(index_.tracks_.size()));
  if (inserted) index_.tracks_.push_back(track);
  has_last_track_ = true;
  last_track_ = track;
  last_track_ref_ = it->second;
  return it->second;
}

index::IdRef IndexBuilder::id_ref(const IdField& field) {
  for (const IdCacheEntry& c : id_cache_) {
    if (c.used && c.state == field.state && c.number == field.number && c.text == field.text)
      return c.ref;
  }
  index::IdValue v;
  if (field.state == IdField::State::kString) {
    v.is_string = true;
    v.text = field.text;
  } else {
    v.number = field.number;  // absent -> 0, like a missing pid in Chrome's viewer
  }
  const index::IdRef ref = index_.ids_.intern(v);
  id_cache_[1] = id_cache_[0];
  id_cache_[0] = {true, field.state, field.number, field.text, ref};
  return ref;
}

void IndexBuilder::note_negative_duration(const RawEvent& e) {
  if (strict_)
    throw MalformedEvent{e.event_index, e.byte_offset, "expected \"dur\" to be zero or positive"};
  note(e, ImportIssue::kNegativeDuration, "");
}

Row IndexBuilder::append_row(const RawEvent& e, EventKind kind, bool malformed) {
  auto& x = index_;
  if (x.ts_ns_.size() >= std::numeric_limits<Row>::max()) {
    throw MalformedEvent{e.event_index, e.byte_offset,
                         "expected at most 4294967295 events in one trace"};
  }
  const bool is_flow = kind == EventKind::kFlowStart || kind == EventKind::kFlowEnd;
  const Row row =
      x.push_row({malformed ? 0 : e.ts.ns, malformed ? 0 : e.dur.ns, kind, e.phase, malformed,
                  e.name, e.category, track_ref({id_ref(e.pid), id_ref(e.tid)}),
                  is_flow ? e.flow_id : e.correlation, e.external_id, index::kNoDetail});
  const bool ts_rounded = e.ts.state == TimeField::State::kRounded;
  const bool dur_rounded = e.dur.state == TimeField::State::kRounded;
  if (!malformed && (ts_rounded || dur_rounded)) {
    x.precise_times_.push_back({row, ts_rounded ? e.ts.us : reference_us(e.ts.ns),
                                dur_rounded ? e.dur.us : reference_us(e.dur.ns)});
  }
  return row;
}

void IndexBuilder::attach_details(Row row, const RawEvent& e) {
  auto& x = index_;
  EventKind kind = x.kind_[row];
  auto intern_if = [&](const std::string& s) { return s.empty() ? index::kNoString : intern(s); };
  if (index::is_gpu_kind(kind)) {
    index::GpuArgs g;
    // Kineto puts the device in args and also uses it as the pid; the stream likewise as tid.
    g.device = static_cast<std::int32_t>(e.device != index::kNoId                 ? e.device
                                         : e.pid.state == IdField::State::kNumber ? e.pid.number
                                                                                  : -1);
    g.stream = static_cast<std::int32_t>(e.stream != index::kNoId                 ? e.stream
                                         : e.tid.state == IdField::State::kNumber ? e.tid.number
                                                                                  : -1);
    g.stream_in_args = e.stream != index::kNoId;
    std::copy(e.grid, e.grid + 3, g.grid);
    std::copy(e.block, e.block + 3, g.block);
    if (e.registers_per_thread != index::kNoId)
      g.registers_per_thread = static_cast<std::int32_t>(e.registers_per_thread);
    if (e.shared_memory != index::kNoId)
      g.shared_memory = static_cast<std::int32_t>(e.shared_memory);
    g.bytes = e.bytes == index::kNoId ? -1 : e.bytes;
    if (kind == EventKind::kGpuMemcpy) {
      auto [it, inserted] = copy_kinds_.try_emplace(e.name);
      if (inserted || !e.copy_kind.empty()) {
        it->second = index::parse_copy_kind(x.strings_.view(e.name), e.copy_kind);
      }
      g.copy = it->second;
    }
    x.detail_[row] = static_cast<std::int32_t>(x.gpu_args_.add(g));
  } else if (kind == EventKind::kCpuOp &&
             (!e.input_dims.empty() || !e.input_types.empty() || !e.input_strides.empty() ||
              !e.concrete_inputs.empty() || e.sequence_number != index::kNoId)) {
    index::OpArgs a;
    a.input_dims = intern_if(e.input_dims);
    a.input_types = intern_if(e.input_types);
    a.input_strides = intern_if(e.input_strides);
    a.concrete_inputs = intern_if(e.concrete_inputs);
    a.sequence_number = e.sequence_number;
    a.fwd_thread_id = e.fwd_thread_id;
    x.detail_[row] = static_cast<std::int32_t>(x.op_args_.add(a));
  }
  if (index::is_runtime_kind(kind) && !e.launch_kernel.empty())
    x.launch_kernels_.emplace_back(row, intern(e.launch_kernel));
  if (e.in_msg_nelems != index::kNoId || e.out_msg_nelems != index::kNoId ||
      !e.collective_name.empty() || !e.pg_name.empty() || e.seq != index::kNoId)
    x.comm_args_.push_back({row, comm_args(e)});
}

index::CommArgs IndexBuilder::comm_args(const RawEvent& e) {
  auto intern_if = [&](const std::string& s) { return s.empty() ? index::kNoString : intern(s); };
  index::CommArgs c;
  c.in_nelems = e.in_msg_nelems;
  c.out_nelems = e.out_msg_nelems;
  c.group_size = e.group_size;
  c.dtype = intern_if(e.comm_dtype);
  c.collective = intern_if(e.collective_name);
  c.pg_name = intern_if(e.pg_name);
  c.pg_description = intern_if(e.pg_description);
  c.pg_ranks = intern_if(e.pg_ranks);
  c.in_split_sizes = intern_if(e.in_split_sizes);
  c.out_split_sizes = intern_if(e.out_split_sizes);
  c.seq = e.seq;
  c.group_rank = e.group_rank;
  c.src_rank = e.src_rank;
  c.dst_rank = e.dst_rank;
  c.global_rank_start = e.global_rank_start;
  c.global_rank_stride = e.global_rank_stride;
  c.comms_id = e.comms_id;
  c.async = e.async_op;
  return c;
}

void IndexBuilder::record_metadata(const RawEvent& e) {
  std::string_view what = index_.strings_.view(e.name);
  const index::IdRef pid = id_ref(e.pid);
  auto& meta = index_.metadata_;
  // Metadata names bypass the string pool, so they get its U+FFFD replacement here.
  if (what == "process_name" && e.has_meta_name)
    meta.processes[pid].name = io::valid_utf8(e.meta_name);
  else if (what == "process_labels" && e.has_meta_labels)
    meta.processes[pid].labels = io::valid_utf8(e.meta_labels);
  else if (what == "process_sort_index" && e.sort_index != index::kNoId)
    meta.processes[pid].sort_index = e.sort_index;
  else if (what == "thread_name" && e.has_meta_name) {
    meta.thread_names[{pid, id_ref(e.tid)}] = io::valid_utf8(e.meta_name);
  } else if (what == "thread_sort_index" && e.sort_index != index::kNoId) {
    meta.thread_sort_indices[{pid, id_ref(e.tid)}] = e.sort_index;
  }
  // Unknown M names are ignored (the reference crashes on them).
}

void IndexBuilder::add_event(RawEvent& e) {
  if (e.phase == 0) return skip(e, ImportIssue::kMissingPhase, "expected a \"ph\" string");
  if (e.phase == '?')
    return skip(e, ImportIssue::kUnknownPhase, "expected \"ph\" to be one character");
  if (e.pid.state == IdField::State::kBad || e.tid.state == IdField::State::kBad) {
    return skip(e, ImportIssue::kBadPidTid,
                "expected \"pid\" and \"tid\" to be integers or strings");
  }
  normalize_legacy(e);
  const EventKind kind = classify(e);
  constexpr std::string_view kKnownPhases = "XBEiIsftCMbenPONDRcpv";
  if (kKnownPhases.find(e.phase) == std::string_view::npos) {
    return skip(e, ImportIssue::kUnknownPhase,
                std::string("expected a known \"ph\", got \"") + e.phase + "\"");
  }
  // Only complete events carry a duration; phases placed on the timeline need a timestamp.
  if (e.phase != 'X') e.dur = TimeField{};
  constexpr std::string_view kTimedPhases = "XBEiIsfC";
  if (!check_time(e, e.ts, "ts", kTimedPhases.find(e.phase) != std::string_view::npos)) return;
  if (!check_time(e, e.dur, "dur", e.phase == 'X')) return;
  if (const std::int64_t end = e.ts.ns + e.dur.ns; end > kTimeLimitNs || end < -kTimeLimitNs) {
    return skip(e, ImportIssue::kBadDuration, "expected \"ts\" + \"dur\" to end within ±146 years");
  }
  if ((kind == EventKind::kFlowStart || kind == EventKind::kFlowEnd) && !e.has_flow_id) {
    return skip(e, ImportIssue::kMissingFlowId, "expected a flow event to have an \"id\"");
  }
  if (e.dur.ns < 0) note_negative_duration(e);
  if (keep_ && e.phase == 'X' && !keep_(kind, index_.strings_.view(e.name))) return;

  if (kind == EventKind::kEnd) {
    auto& stack = open_begins_[{id_ref(e.pid), id_ref(e.tid)}];
    if (stack.empty())
      return skip(e, ImportIssue::kUnmatchedEnd, "expected an open B event before this E event");
    Row begin = stack.back();
    stack.pop_back();
    const std::int64_t dur = e.ts.ns - index_.ts_ns_[begin];
    if (dur < 0) note_negative_duration(e);
    index_.dur_ns_[begin] = dur;
    if (auto* precise = index_.find_precise_time(begin)) {
      const double end_us =
          e.ts.state == TimeField::State::kRounded ? e.ts.us : reference_us(e.ts.ns);
      precise->dur_us = end_us - precise->ts_us;
    }
    append_row(e, kind, false);
    return;
  }
  Row row = append_row(e, kind, false);
  attach_details(row, e);
  if (e.phase == 'B') open_begins_[{index_.pid(row), index_.tid(row)}].push_back(row);
  if (kind == EventKind::kMetadata) record_metadata(e);
}

void IndexBuilder::unify_numeric_string_ids() {
  // Early Kineto wrote host tids as strings ("12345") on ops and runtime calls but as integers
  // on flow starts. In such traces a string of digits means that number.
  auto& x = index_;
  std::vector<index::IdRef> remap(x.ids_.size());
  bool any = false;
  for (index::IdRef ref = 0; ref < remap.size(); ++ref) {
    remap[ref] = ref;
    const index::IdValue value = x.ids_.value(ref);  // copy: intern() below may grow the table
    if (!value.is_string) continue;
    std::string_view text = x.strings_.view(value.text);
    std::int64_t number = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) continue;
    remap[ref] = x.ids_.intern(index::IdValue{false, number, index::kNoString});
    any = true;
  }
  if (!any) return;
  // Tracks that become equal stay two entries: rows compare by their pid and tid values.
  for (auto& track : x.tracks_) track = {remap[track.pid], remap[track.tid]};
  auto& meta = x.metadata_;
  decltype(meta.processes) processes;
  for (auto& [pid, info] : meta.processes) processes[remap[pid]] = info;
  meta.processes = std::move(processes);
  decltype(meta.thread_names) names;
  for (auto& [key, name] : meta.thread_names) names[{remap[key.first], remap[key.second]}] = name;
  meta.thread_names = std::move(names);
  decltype(meta.thread_sort_indices) sort_indices;
  for (auto& [key, v] : meta.thread_sort_indices)
    sort_indices[{remap[key.first], remap[key.second]}] = v;
  meta.thread_sort_indices = std::move(sort_indices);
}

index::EventIndex IndexBuilder::freeze() {
  for (auto& [thread, rows] : open_begins_) {
    for (Row r : rows) {
      RawEvent e;
      e.reset(r, 0);
      if (strict_) throw MalformedEvent{r, 0, "expected the B event to be closed by an E event"};
      note(e, ImportIssue::kUnclosedBegin, index_.strings_.view(index_.name_[r]));
      index_.malformed_[r] = true;
      index_.kind_[r] = EventKind::kOther;
    }
  }
  open_begins_.clear();
  if (index_.metadata_.legacy_format) unify_numeric_string_ids();

  index_.parse_input_shapes();

  // No shrink_to_fit: unused capacity was never touched and is not resident; copying the
  // columns would only cost time and a transient second copy.
  index_.op_args_.seal();
  index_.gpu_args_.seal();
  index_.build_secondary_indices();
  return std::move(index_);
}

}  // namespace traceprism::ingest
