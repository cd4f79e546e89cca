#pragma once

#include <string>
#include <string_view>

namespace traceprism::report {

// Formats a double the way Python's repr() does (which is what pandas writes into the
// reference CSVs): shortest round-trip digits, scientific notation iff the decimal exponent is
// < -4 or >= 16 ("7.2192e-05", "1e+16"), integral values with ".0". NaN prints as "nan".
std::string python_float_repr(double value);

// A CSV field with pandas' minimal quoting (quote when it holds , " or a newline).
std::string csv_field(std::string_view text);

}  // namespace traceprism::report
