#include "ingest/event_splitter.hpp"

#include <cstdint>
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

#if defined(__SSE2__)
// One bit per byte of a 64-byte block for each kind of byte the splitter looks at.
struct BlockBits {
  std::uint64_t quote, backslash, open, close, comma;
};

BlockBits classify_block(const char* p) {
  BlockBits bits{};
  for (int part = 0; part < 4; ++part) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * part));
    // '{' and '[' differ only in bit 0x20, as do '}' and ']'; no other byte ORs to 0x7B / 0x7D.
    const __m128i folded = _mm_or_si128(bytes, _mm_set1_epi8(0x20));
    auto mask = [&](__m128i v, char c) {
      const auto bits16 =
          static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c))));
      return static_cast<std::uint64_t>(bits16) << (16 * part);
    };
    bits.quote |= mask(bytes, '"');
    bits.backslash |= mask(bytes, '\\');
    bits.open |= mask(folded, '{');
    bits.close |= mask(folded, '}');
    bits.comma |= mask(bytes, ',');
  }
  return bits;
}

// Bit i = parity of the set bits 0..i: with quote bits, "inside a string" (opening quote
// included, closing quote not) for a block that starts outside one.
std::uint64_t prefix_xor(std::uint64_t x) {
  for (int shift = 1; shift < 64; shift *= 2) x ^= x << shift;
  return x;
}

// Bits [from, to) of a 64-bit mask, 0 <= from <= to <= 64.
std::uint64_t bit_range(int from, int to) {
  const std::uint64_t below_to = to == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << to) - 1;
  const std::uint64_t below_from = from == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << from) - 1;
  return below_to & ~below_from;
}
#endif

}  // namespace

// Inside traceEvents, between and within its elements, only strings, nesting, and the commas
// and brackets at the array's own level matter. This finds them 64 bytes at a time (quote bits
// folded into "inside a string" by a prefix XOR), hands each comma at the array's level to
// `at_separator`, and stops where the byte loop has something to do: the array's closing
// bracket, a block with a backslash (escapes are left to the byte loop, which then owns the
// text up to `bytewise_until`), or the last partial block.
template <class AtSeparator>
const char* EventSplitter::skip_inside_events(const char* p, const char* end,
                                              const char*& bytewise_until,
                                              AtSeparator&& at_separator) {
#if defined(__SSE2__)
  for (; end - p >= 64; p += 64) {
    const BlockBits bits = classify_block(p);
    if (bits.backslash != 0) {
      bytewise_until = p + 64;
      return p;
    }
    const std::uint64_t in_string = prefix_xor(bits.quote) ^ (in_string_ ? ~std::uint64_t{0} : 0);
    const std::uint64_t open = bits.open & ~in_string;
    const std::uint64_t comma = bits.comma & ~in_string;
    std::uint64_t brackets = open | (bits.close & ~in_string);
    int from = 0;  // the depth is constant from this bit to the next bracket
    for (;;) {
      const int next = brackets ? __builtin_ctzll(brackets) : 64;
      if (depth_ == 2) {
        for (std::uint64_t at = comma & bit_range(from, next); at != 0; at &= at - 1)
          at_separator(p + __builtin_ctzll(at));
      }
      if (next == 64) break;
      if (open >> next & 1) {
        ++depth_;
      } else if (depth_ == 2) {  // the array's end
        in_string_ = false;
        return p + next;
      } else {
        --depth_;
      }
      brackets &= brackets - 1;
      from = next + 1;
    }
    in_string_ = (in_string >> 63) != 0;
  }
#endif
  bytewise_until = end;
  return p;
}

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
  auto separate = [&](const char* comma) {
    flush(comma);
    range = comma + 1;
    out.separator(offset + (comma - begin));
  };
  const char* p = begin;
  const char* bytewise_until = in_blocks_ ? begin : end;
  while (p < end) {
    if (place_ == Place::kEvents && !escape_ && p >= bytewise_until) {
      p = skip_inside_events(p, end, bytewise_until, separate);
      if (p == end) break;
    }
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
        if (place_ == Place::kEvents && depth_ == 2) separate(p);
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
