#include "ingest/event_splitter.hpp"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace traceprism::ingest {

namespace {

constexpr std::string_view kTraceEvents = "traceEvents";

#if defined(__SSE2__)
// The first byte of [p, end) equal to one of `targets`, or end: 16 bytes at a time (SSE2 is
// part of every x86-64), which is most of the splitter's speed on a trace's text.
template <char... targets>
const char* find_any(const char* p, const char* end) {
  for (; end - p >= 16; p += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i hits = (_mm_cmpeq_epi8(bytes, _mm_set1_epi8(targets)) | ...);
    if (const int mask = _mm_movemask_epi8(hits)) return p + __builtin_ctz(mask);
  }
  for (; p < end; ++p) {
    if (((*p == targets) || ...)) return p;
  }
  return end;
}
#else
template <char... targets>
const char* find_any(const char* p, const char* end) {
  for (; p < end; ++p) {
    if (((*p == targets) || ...)) return p;
  }
  return end;
}
#endif

// The first '"' or '\\' in [p, end), or end.
const char* find_quote_or_backslash(const char* p, const char* end) {
  return find_any<'"', '\\'>(p, end);
}

// The next byte that can change the structure inside traceEvents, or end.
const char* find_structure(const char* p, const char* end) {
  return find_any<'"', '{', '}', '[', ']', ','>(p, end);
}

}  // namespace

void EventSplitter::close_top_string() {
  key_step_ = !top_string_escaped_ && top_string_ == kTraceEvents ? KeyStep::kKey : KeyStep::kNone;
}

void EventSplitter::scan(std::string_view text, std::uint64_t offset, Consumer& out) {
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  const char* range = begin;  // start of the text not handed on yet
  auto flush = [&](const char* to) {
    if (to == range) return;
    const std::string_view part(range, to - range);
    if (place_ == Place::kEvents)
      out.elements(part, offset + (range - begin));
    else
      out.document(part, offset + (range - begin));
  };
  const char* p = begin;
  while (p < end) {
    if (in_string_) {
      const bool top_level = place_ == Place::kDocument && depth_ == 1;
      if (escape_) {
        escape_ = false;
        ++p;
        continue;
      }
      const char* stop = find_quote_or_backslash(p, end);
      if (top_level && top_string_.size() <= kTraceEvents.size())
        top_string_.append(p, std::min<std::size_t>(stop - p, kTraceEvents.size() + 1));
      if (stop == end) break;
      if (*stop == '\\') {
        top_string_escaped_ = true;
        escape_ = true;
        p = stop + 1;
        continue;
      }
      in_string_ = false;
      if (top_level) close_top_string();
      p = stop + 1;
      continue;
    }
    if (place_ == Place::kEvents) {
      // Only brackets, commas and strings matter between the elements' keys and values.
      p = find_structure(p, end);
      if (p == end) break;
    }
    const char c = *p;
    switch (c) {
      case '"':
        if (place_ == Place::kBeforeDocument)
          throw NotSplittable("the document is not a JSON object");
        in_string_ = true;
        top_string_.clear();
        top_string_escaped_ = false;
        break;
      case '[':
        if (place_ == Place::kDocument && depth_ == 1 && key_step_ == KeyStep::kColon) {
          flush(p + 1);
          range = p + 1;
          place_ = Place::kEvents;
          depth_ = 2;
          key_step_ = KeyStep::kNone;
          ++p;
          continue;
        }
        [[fallthrough]];
      case '{':
        if (place_ == Place::kBeforeDocument) {
          if (c != '{') throw NotSplittable("the document is not a JSON object");
          place_ = Place::kDocument;
        }
        ++depth_;
        key_step_ = KeyStep::kNone;
        break;
      case ']':
      case '}':
        if (place_ == Place::kEvents && depth_ == 2) {
          flush(p);
          range = p;
          out.array_end();
          place_ = Place::kDocument;
        }
        --depth_;
        key_step_ = KeyStep::kNone;
        break;
      case ',':
        if (place_ == Place::kEvents && depth_ == 2) {
          flush(p);
          range = p + 1;
          out.separator(offset + (p - begin));
        }
        key_step_ = KeyStep::kNone;
        break;
      case ':':
        key_step_ = key_step_ == KeyStep::kKey && depth_ == 1 ? KeyStep::kColon : KeyStep::kNone;
        break;
      case ' ':
      case '\t':
      case '\n':
      case '\r':
        break;
      default:
        if (place_ == Place::kBeforeDocument)
          throw NotSplittable("the document is not a JSON object");
        key_step_ = KeyStep::kNone;
        break;
    }
    ++p;
  }
  flush(end);
}

}  // namespace traceprism::ingest
