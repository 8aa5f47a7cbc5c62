#pragma once
// A file written piece by piece that readers see either as it was or complete, never truncated:
// the pieces go to a temporary file beside the target, which commit() flushes to disk and
// renames over it. For outputs too large to build in memory first (atomic_file.hpp's
// write_file_atomically takes the whole content). A writer destroyed without commit() removes
// its temporary file and leaves the target untouched.
#include <string>
#include <string_view>

namespace bvi {

class AtomicFileWriter {
 public:
  // Creates the temporary file, so an output that cannot be made fails before any work. Throws
  // Error(ExitCode::cant_create) naming `path`, also when `path` exists and is not a regular
  // file (a folder, or a device such as /dev/null, which a rename would replace).
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(std::string_view text);
  // Flushes the temporary file to disk and closes it, still under its temporary name: when
  // several files form one result, finish them all before committing any.
  void finish();
  // finish(), then renames the temporary file over the target.
  void commit();

  const std::string& path() const { return path_; }

 private:
  void discard() noexcept;

  std::string path_;
  std::string tmp_;
  int fd_ = -1;
  std::size_t written_ = 0;
  std::size_t kicked_ = 0;  // bytes already handed to the kernel's writeback
  bool committed_ = false;
};

}  // namespace bvi
