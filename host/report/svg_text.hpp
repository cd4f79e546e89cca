// Text for the SVG charts: numbers with a fixed number of decimals (so a chart's bytes do not
// depend on the locale or on shortest-form formatting) and XML-escaped labels.
#pragma once

#include <string>
#include <string_view>

namespace traceprism::report {

std::string svg_number(double value, int decimals = 2);  // "%.*f"
std::string xml_escape(std::string_view text);           // & < > " ' as entities

}  // namespace traceprism::report
