#pragma once

#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "index/event_index.hpp"
#include "ingest/event_sink.hpp"
#include "ingest/raw_event.hpp"

namespace traceprism::ingest {

// Thrown in strict mode for the first malformed event; the reader turns it into an InputError
// naming the file.
struct MalformedEvent {
  std::uint64_t event_index;
  std::uint64_t byte_offset;
  std::string what;  // "expected \"ts\" to be a number, got a string"
};

// Receives events in file order, validates and normalizes them (legacy vocabulary, B/E pairs)
// and appends them to the columns; freeze() builds the side structures and hands the index out.
class IndexBuilder final : public EventSink {
 public:
  explicit IndexBuilder(bool strict);

  // Reserves column capacity for about `json_bytes` of events. Capacity that is never written
  // stays virtual (not resident), so a generous guess costs no memory but saves the copies
  // and page faults of growing the columns.
  void reserve_for(std::uint64_t json_bytes);

  // ReadOptions::keep: complete events it refuses are checked, then left out of the index.
  void keep_only(std::function<bool(index::EventKind, std::string_view)> keep) {
    keep_ = std::move(keep);
  }

  index::StringId intern(std::string_view text) override { return index_.strings_.intern(text); }
  index::TraceMetadata& metadata() override { return index_.metadata_; }

  void add_event(RawEvent& event) override;
  void add_non_object(std::uint64_t event_index, std::uint64_t byte_offset) override;
  std::uint64_t events() const { return index_.size(); }

  index::EventIndex freeze();

 private:
  index::Row append_row(const RawEvent& e, index::EventKind kind, bool malformed);
  void skip(RawEvent& e, index::ImportIssue issue, std::string detail);
  void note(const RawEvent& e, index::ImportIssue issue, std::string_view detail);
  void note_negative_duration(const RawEvent& e);
  bool check_time(RawEvent& e, const TimeField& field, const char* key, bool required);
  void normalize_legacy(RawEvent& e);
  index::EventKind classify(const RawEvent& e) const;
  index::IdRef id_ref(const IdField& field);
  // The row's (pid, tid) as a reference into the index's track table.
  std::uint32_t track_ref(index::EventIndex::Thread track);
  void record_metadata(const RawEvent& e);
  void attach_details(index::Row row, const RawEvent& e);
  index::CommArgs comm_args(const RawEvent& e);
  void unify_numeric_string_ids();

  bool strict_;
  std::function<bool(index::EventKind, std::string_view)> keep_;
  index::EventIndex index_;
  // Copy kinds parsed once per distinct gpu_memcpy name.
  std::unordered_map<index::StringId, index::CopyKind> copy_kinds_;
  // Most consecutive events share a pid and tid: remember the last two look-ups.
  struct IdCacheEntry {
    bool used = false;
    IdField::State state = IdField::State::kAbsent;
    std::int64_t number = 0;
    index::StringId text = 0;
    index::IdRef ref = 0;
  };
  IdCacheEntry id_cache_[2];
  // Open B events per (pid, tid), innermost last.
  std::map<std::pair<index::IdRef, index::IdRef>, std::vector<index::Row>> open_begins_;
  std::map<std::pair<index::IdRef, index::IdRef>, std::uint32_t> track_refs_;
  bool has_last_track_ = false;
  index::EventIndex::Thread last_track_{};
  std::uint32_t last_track_ref_ = 0;

  // Category ids resolved once, to classify events by integer comparison.
  struct Categories {
    index::StringId cpu_op, python_function, user_annotation, gpu_user_annotation, cuda_runtime,
        cuda_driver, kernel, gpu_memcpy, gpu_memset, cuda_sync, ac2g;
    // PyTorch <= 1.9
    index::StringId legacy_operator, legacy_runtime, legacy_kernel, legacy_memcpy, legacy_memset,
        legacy_python, legacy_async;
    // Intel XPU (Level Zero / SYCL) launches: urEnqueueKernelLaunch, urEnqueueUSMMemcpy, ...
    index::StringId xpu_runtime, xpu_driver;
  } cat_;
};

}  // namespace traceprism::ingest
