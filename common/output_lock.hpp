#pragma once
// An exclusive lock on a run's outputs, held from before the work until the process ends, so that
// two runs never write the same output folder (or checkpoint) at once: the second fails at the
// start with exit 73 instead of the two replacing each other's files one by one, which would leave
// a summary.json of one run beside the draws.csv of the other.
//
// The lock is flock(2) on a lock file: the kernel releases it when the process ends however it
// ends (SIGKILL included), so it never goes stale; the file is removed when the lock is released
// normally, and a file left by a killed run is taken over by the next one.
#include <string>

namespace bvi {

class OutputLock {
 public:
  OutputLock() = default;
  // Takes the lock on `lock_path` (created if needed). Throws Error(ExitCode::cant_create) at
  // `where` when another process holds it, naming that process; on a filesystem without locks
  // the lock is not held and why_not() says why (the caller decides whether to warn).
  OutputLock(const std::string& lock_path, const std::string& where);
  ~OutputLock();
  OutputLock(OutputLock&& other) noexcept;
  OutputLock& operator=(OutputLock&& other) noexcept;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  bool held() const { return fd_ >= 0; }
  const std::string& why_not() const { return why_not_; }

 private:
  void release() noexcept;

  std::string path_;
  int fd_ = -1;
  std::string why_not_;
};

// The lock file of an output folder, and of a single output file (a checkpoint).
std::string folder_lock_path(const std::string& dir);
std::string file_lock_path(const std::string& file);

}  // namespace bvi
