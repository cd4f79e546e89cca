#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace traceprism::ingest {

// The document is not one the parallel reader splits (not a JSON object at the top, or parts
// that did not parse the way the one-thread reader would); the reader then reads it again with
// one thread, which gives the same index or the same error as always.
class NotSplittable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Finds the elements of the top-level "traceEvents" array(s) in the JSON text as it streams
// by, without parsing it: a byte scan that tracks strings (with their escapes) and nesting, so
// that commas and brackets inside names are never taken for structure. The text is handed on in
// order as ranges: the document around the arrays (their brackets included, their elements not)
// for a JSON parser that reads the top level, and the elements, separated at each comma between
// two of them, for worker threads. Only a raw `"traceEvents"` key is recognised; an escaped
// spelling stays in the document part, where the caller notices events it did not expect.
class EventSplitter {
 public:
  class Consumer {
   public:
    virtual ~Consumer() = default;
    // Text of the document outside the arrays' elements; `offset` is its place in the JSON.
    virtual void document(std::string_view text, std::uint64_t offset) = 0;
    // Text of the elements (whitespace included) between two separators.
    virtual void elements(std::string_view text, std::uint64_t offset) = 0;
    // The comma at `offset` separates two elements of the array.
    virtual void separator(std::uint64_t offset) = 0;
    // The array's closing bracket follows (it is handed to document()).
    virtual void array_end() = 0;
  };

  // `in_blocks` = false keeps to the byte-at-a-time scan (the reference the tests compare the
  // 64-byte block scan with).
  explicit EventSplitter(bool in_blocks = true) : in_blocks_(in_blocks) {}

  // Scans the next `text` of the JSON, which starts at byte `offset`. Throws NotSplittable when
  // the document does not start with an object.
  void scan(std::string_view text, std::uint64_t offset, Consumer& out);

 private:
  enum class Place : std::uint8_t { kBeforeDocument, kDocument, kEvents };
  // How far a top-level `"traceEvents" : [` has been seen.
  enum class KeyStep : std::uint8_t { kNone, kKey, kColon };

  void close_top_string();
  template <class AtSeparator>
  const char* skip_inside_events(const char* p, const char* end, const char*& bytewise_until,
                                 AtSeparator&& at_separator);

  bool in_blocks_;

  Place place_ = Place::kBeforeDocument;
  int depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;  // the previous text ended with a backslash inside a string
  KeyStep key_step_ = KeyStep::kNone;
  std::string top_string_;  // start of the current top-level string, up to a few bytes
  bool top_string_escaped_ = false;
};

}  // namespace traceprism::ingest
