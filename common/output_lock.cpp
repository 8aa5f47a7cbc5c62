#include "common/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "common/error.hpp"

namespace bvi {

namespace {

// The pid the holder wrote into the lock file, for the message ("" if none).
std::string holder_of(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string pid = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.find_first_not_of("0123456789") == std::string::npos ? pid : std::string();
}

}  // namespace

std::string folder_lock_path(const std::string& dir) {
  return (std::filesystem::path(dir) / ".bayes-vi.lock").string();
}

std::string file_lock_path(const std::string& file) {
  return file + ".lock";
}

OutputLock::OutputLock(const std::string& lock_path, const std::string& where) : path_(lock_path) {
  // A holder removes the file before it lets go, so a lock won on a file that has since been
  // removed (or replaced) is a lock on nothing: open the path again until the locked file is the
  // one the path names.
  for (;;) {
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      throw output_error(where, "cannot create the lock file " + path_ + " (" + std::strerror(errno) + ")");
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      if (err == EWOULDBLOCK) {
        const std::string pid = holder_of(fd);
        ::close(fd);
        throw output_error(
            where, "another bayes-vi run" + (pid.empty() ? std::string() : " (pid " + pid + ")") +
                       " is writing here; wait for it to finish, or write somewhere else (the lock is " +
                       path_ + ")");
      }
      // NFS without lockd, some FUSE filesystems: no locks to be had.
      ::close(fd);
      ::unlink(path_.c_str());
      why_not_ = std::string("cannot lock ") + path_ + " (" + std::strerror(err) + ")";
      return;
    }
    struct stat held {
    }, named{};
    if (::fstat(fd, &held) == 0 && ::stat(path_.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      fd_ = fd;
      break;
    }
    ::close(fd);
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // The pid is only for the other run's message.
  }
}

OutputLock::~OutputLock() {
  release();
}

OutputLock::OutputLock(OutputLock&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)), why_not_(std::move(other.why_not_)) {}

OutputLock& OutputLock::operator=(OutputLock&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    why_not_ = std::move(other.why_not_);
  }
  return *this;
}

void OutputLock::release() noexcept {
  if (fd_ < 0) return;
  // Removed while still held, so that nobody locks the file between the unlink and the close.
  ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

}  // namespace bvi
