#pragma once

#include <cstdint>
#include <string_view>

#include "index/event_index.hpp"
#include "ingest/raw_event.hpp"

namespace traceprism::ingest {

// What the JSON handler (KinetoHandler) hands its results to: the IndexBuilder when one thread
// reads the whole document, an event batch when worker threads read parts of traceEvents in
// parallel (parallel_reader.cpp), which the reading thread then replays into the builder in
// file order.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual index::StringId intern(std::string_view text) = 0;
  // Document-level facts (top-level keys, the number of traceEvents arrays).
  virtual index::TraceMetadata& metadata() = 0;
  // Where the handler writes the next event before add_event() receives it: the handler's own
  // scratch event, or a slot of the sink's that keeps it (a batch), which saves moving it.
  virtual RawEvent& event_slot(RawEvent& handlers_own) { return handlers_own; }
  virtual void add_event(RawEvent& event) = 0;
  // An element of traceEvents that is not an object.
  virtual void add_non_object(std::uint64_t event_index, std::uint64_t byte_offset) = 0;
};

}  // namespace traceprism::ingest
