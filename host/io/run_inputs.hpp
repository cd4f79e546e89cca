// The files this run reads, so that no output replaces one (issue 19: `analyze DIR/findings.json
// -o DIR` once replaced the trace with the report). Files are compared by device and inode, so
// another spelling of the path or a symlink to it is the same file.
#pragma once

#include <string>

namespace traceprism::io {

// Turns the record on: a command-line run does, before it reads anything. Off (the default),
// nothing is recorded, so a process that reads a file and later rewrites it (a test, a tool
// embedding the library) may.
void protect_run_inputs();

// Records `path` (a regular file this run reads) as an input.
void remember_run_input(const std::string& path);

// Whether writing `path` would replace a recorded input.
bool is_run_input(const std::string& path);

}  // namespace traceprism::io
