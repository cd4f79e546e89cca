// UTF-8 validity for text that reaches the outputs. The reader accepts invalid bytes in names on
// purpose (a trace with one bad name is still worth a report), so the index repairs them once,
// when a string is first interned, and every writer then emits valid UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace traceprism::io {

// Well-formed UTF-8 as Unicode defines it: no overlong forms, no surrogates, nothing above
// U+10FFFF.
bool is_valid_utf8(std::string_view text);

// `text` with each maximal ill-formed subsequence replaced by U+FFFD, as Python's
// bytes.decode("utf-8", errors="replace") does.
std::string valid_utf8(std::string_view text);

}  // namespace traceprism::io
