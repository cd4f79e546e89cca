#pragma once

#include <boost/json/basic_parser.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "ingest/event_sink.hpp"
#include "ingest/raw_event.hpp"

namespace traceprism::ingest {

// A structural problem with the document (not with one event): the reader stops with it.
struct DocumentError {
  std::uint64_t byte_offset;
  std::string what;
};

// Boost.JSON SAX handler for a Kineto / Chrome-trace document. It keeps a small stack of
// "what the current container is" frames and routes each token: event fields into RawEvent,
// shape args into canonical text, small top-level objects (deviceProperties, distributedInfo)
// into captured text, and everything else into a cheap skip.
class KinetoHandler {
 public:
  using error_code = boost::json::error_code;
  using string_view = boost::json::string_view;

  // Boost.JSON's basic_parser reads its limits under these names.
  // NOLINTBEGIN(readability-identifier-naming)
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(1) << 20;     // 1 MiB
  static constexpr std::size_t max_string_size = std::size_t(1) << 26;  // 64 MiB
  // NOLINTEND(readability-identifier-naming)

  explicit KinetoHandler(EventSink& sink) : sink_(sink) {}
  KinetoHandler(const KinetoHandler&) = delete;  // event_ may point at own_event_
  KinetoHandler& operator=(const KinetoHandler&) = delete;

  // Tells the handler where the buffer being parsed sits in the JSON text (for byte offsets).
  // `approximate_offset` is what an event whose own position is unknown (no key, or a key the
  // parser unescaped elsewhere) is reported at: the offset of the one-thread reader's chunk,
  // which a parallel worker passes too so that both report the same.
  void set_chunk(const char* base, std::size_t size, std::uint64_t offset) {
    set_chunk(base, size, offset, offset);
  }
  void set_chunk(const char* base, std::size_t size, std::uint64_t offset,
                 std::uint64_t approximate_offset) {
    chunk_base_ = base;
    chunk_size_ = size;
    chunk_offset_ = offset;
    approximate_offset_ = approximate_offset;
  }
  // The event index of the next element of traceEvents (a worker reading a later part of it).
  void start_events_at(std::uint64_t event_index) { next_event_index_ = event_index; }
  std::uint64_t next_event_index() const { return next_event_index_; }
  bool saw_trace_events() const { return saw_trace_events_; }
  const std::string& device_properties_json() const { return device_properties_; }
  const std::string& distributed_info_json() const { return distributed_info_; }
  // Set when a callback returned false; the parser then reports a generic error.
  const DocumentError* error() const { return error_.what.empty() ? nullptr : &error_; }

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_array_begin(error_code& ec) { return begin_container(/*is_object=*/false, ec); }
  bool on_array_end(std::size_t, error_code& ec) { return end_container(ec); }
  bool on_object_begin(error_code& ec) { return begin_container(/*is_object=*/true, ec); }
  bool on_object_end(std::size_t, error_code& ec) { return end_container(ec); }
  bool on_string_part(string_view s, std::size_t, error_code&) {
    if (wants_text()) text_.append(s.data(), s.size());
    return true;
  }
  bool on_string(string_view s, std::size_t, error_code& ec);
  bool on_key_part(string_view s, std::size_t, error_code&) {
    if (key_.empty()) key_offset_ = offset_of(s.data());
    key_.append(s.data(), s.size());
    return true;
  }
  bool on_key(string_view s, std::size_t, error_code& ec);
  bool on_number_part(string_view s, error_code&) {
    number_.append(s.data(), s.size());
    return true;
  }
  bool on_int64(std::int64_t value, string_view s, error_code& ec) {
    // Boost.JSON already converted an integer exactly: integer fields take it as it is.
    exact_int_ = value;
    has_exact_int_ = true;
    const bool ok = on_number(s, ec);
    has_exact_int_ = false;
    return ok;
  }
  bool on_uint64(std::uint64_t, string_view s, error_code& ec) { return on_number(s, ec); }
  bool on_double(double, string_view s, error_code& ec) { return on_number(s, ec); }
  bool on_bool(bool b, error_code& ec);
  bool on_null(error_code& ec);
  bool on_comment_part(string_view, error_code&) { return true; }
  bool on_comment(string_view, error_code&) { return true; }

 private:
  enum class Slot : std::uint8_t { kTop, kEvents, kEvent, kArgs, kSkip, kCapture };
  // Which event field / arg the next value belongs to.
  enum class Field : std::uint8_t {
    kNone,
    kPh,
    kCat,
    kName,
    kPid,
    kTid,
    kTs,
    kDur,
    kId,
    kBp,
    kArgs,
    // args
    kCorrelation,
    kExternalId,
    kLegacyExternalId,
    kDevice,
    kStream,
    kGrid,
    kBlock,
    kRegisters,
    kSharedMemory,
    kBytes,
    kInputDims,
    kInputTypes,
    kInputStrides,
    kConcreteInputs,
    kSequenceNumber,
    kFwdThreadId,
    kMetaName,
    kMetaLabels,
    kSortIndex,
    kCopyKind,
    kInMsgNelems,
    kOutMsgNelems,
    kGroupSize,
    kCommDtype,
    kCollectiveName,
    kPgName,
    kPgDescription,
    kPgRanks,
    kInSplitSizes,
    kOutSplitSizes,
    kSeq,
    kGroupRank,
    kSrcRank,
    kDstRank,
    kGlobalRankStart,
    kGlobalRankStride,
    kCommsId,
    kAsyncOp,
    kLaunchKernel,
    // top level
    kTraceEvents,
    kDeviceProperties,
    kDistributedInfo,
    kTopScalar,  // stays last: tables indexed by Field end here
  };
  struct Frame {
    Slot slot;
    bool first = true;           // capture: no comma before the first element
    Field field = Field::kNone;  // capture: the field receiving the text
    bool is_object = false;      // capture: closes with '}' rather than ']'
    bool after_key = false;      // capture: the next value follows a key (no comma)
  };
  static Field event_field(std::string_view key);
  static Field arg_field(std::string_view key);

  bool begin_container(bool is_object, error_code& ec);
  bool end_container(error_code& ec);
  bool on_number(string_view last_part, error_code& ec);
  // A scalar value in the current context. `json` is its JSON spelling for captures.
  enum class ScalarType : std::uint8_t { kString, kNumber, kBool, kNull };
  bool on_scalar(ScalarType type, std::string_view text, error_code& ec);
  void assign_event_field(Field field, ScalarType type, std::string_view text);
  void assign_arg(Field field, ScalarType type, std::string_view text);
  void capture_value_prefix(Frame& frame);
  std::string* capture_target(Field field);
  void finish_capture(Field field);
  bool fail(error_code& ec, std::string what);
  // The number being handled as an int64: the parser's exact integer, or its text converted
  // (integral doubles such as "7.0" included). False when it is not integral.
  bool number_as_int64(std::string_view text, std::int64_t& out) const;
  bool wants_text() const;
  std::uint64_t offset_of(const char* p) const {
    if (p >= chunk_base_ && p < chunk_base_ + chunk_size_) return chunk_offset_ + (p - chunk_base_);
    return approximate_offset_;
  }

  EventSink& sink_;
  std::vector<Frame> stack_;
  Field pending_ = Field::kNone;  // set by the last key in an event/args/top object
  std::string key_;               // key accumulated across parts
  std::string text_;              // string accumulated across parts
  std::string number_;            // number text accumulated across parts
  std::uint64_t key_offset_ = 0;
  std::int64_t exact_int_ = 0;  // the current number when the parser read it as an int64
  bool has_exact_int_ = false;
  RawEvent own_event_;
  RawEvent* event_ = &own_event_;  // the sink's slot for the event being parsed
  std::uint64_t next_event_index_ = 0;
  bool event_first_key_ = false;
  std::string top_key_;
  bool saw_trace_events_ = false;
  std::string device_properties_;
  std::string distributed_info_;
  std::string grid_text_;
  DocumentError error_{0, {}};

  const char* chunk_base_ = nullptr;
  std::size_t chunk_size_ = 0;
  std::uint64_t chunk_offset_ = 0;
  std::uint64_t approximate_offset_ = 0;
};

}  // namespace traceprism::ingest
