#pragma once
// Writes a file so that readers see either the old content or the new, never a truncated mix:
// the text goes to a temporary file in the same folder, is flushed to disk, and is renamed over
// the target. An interrupted run therefore never leaves a half-written result over a good one.
#include <string>
#include <utility>
#include <vector>

namespace bvi {

// Throws Error(ExitCode::cant_create) naming the path when the file cannot be written.
void write_file_atomically(const std::string& path, const std::string& content);

// The same for files that form one result (path, content): all are written and flushed first,
// and only then renamed over their targets, so a failure while writing (a full disk) replaces
// none of them rather than leaving new files beside old ones.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files);

// Creates `dir` (and its parents) if needed and checks that a file can be created in it and
// that none of `names` in it is a folder (a file cannot be renamed over one), so a run fails
// before its work rather than after. Throws Error(ExitCode::cant_create).
void prepare_output_dir(const std::string& dir, const std::vector<std::string>& names = {});

// The same for a single output file written later (a checkpoint, predict's --metrics): its folder
// must exist (it is not created: a mistyped folder is more likely than a wanted one), a file
// must be creatable there (one is created and removed), and `path` must not be a folder or
// anything but a regular file. Throws Error(ExitCode::cant_create) at `path`.
void prepare_output_file(const std::string& path);

}  // namespace bvi
