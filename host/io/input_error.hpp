#pragma once

#include <stdexcept>
#include <string>

namespace traceprism::io {

// A trace (or other input) that cannot be read at all. The message is one complete sentence
// naming the file, where it went wrong and what was expected; the CLI prints it as is.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace traceprism::io
