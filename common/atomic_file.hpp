#pragma once
// Writes a file so that readers see either the old content or the new, never a truncated mix:
// the text goes to a temporary file in the same folder, is flushed to disk, and is renamed over
// the target. An interrupted run therefore never leaves a half-written result over a good one.
#include <string>

namespace bvi {

// Throws Error(ExitCode::cant_create) naming the path when the file cannot be written.
void write_file_atomically(const std::string& path, const std::string& content);

// Creates `dir` (and its parents) if needed and checks that a file can be created in it, so a
// run fails before its work rather than after. Throws Error(ExitCode::cant_create).
void prepare_output_dir(const std::string& dir);

}  // namespace bvi
