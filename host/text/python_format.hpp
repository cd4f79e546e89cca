#pragma once

#include <string>
#include <string_view>

#include <traceprism/python_text.hpp>

namespace traceprism::text {

// Formats a double the way Python's repr() does (which is what pandas writes into the
// reference CSVs): shortest round-trip digits, scientific notation iff the decimal exponent is
// < -4 or >= 16 ("7.2192e-05", "1e+16"), integral values with ".0". NaN prints as "nan".
// One implementation for host and plugins: traceprism/python_text.hpp.
inline std::string python_float_repr(double value) {
  return py::float_repr(value);
}

// A CSV field with pandas' minimal quoting (quote when it holds , " or a newline).
std::string csv_field(std::string_view text);

}  // namespace traceprism::text
