#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/error.hpp"

namespace bvi {

namespace fs = std::filesystem;

namespace {

std::string errno_text() {
  return std::strerror(errno);
}

void write_all(int fd, const std::string& path, const std::string& content) {
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw output_error(path, "cannot write (" + errno_text() + ")");
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw output_error(path, "cannot create (" + errno_text() + ")");
  try {
    write_all(fd, path, content);
    if (::fsync(fd) != 0 && errno != EINVAL)
      throw output_error(path, "cannot flush to disk (" + errno_text() + ")");
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    throw output_error(path, "cannot write (" + errno_text() + ")");
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw output_error(path, "cannot replace (" + why + ")");
  }
}

void prepare_output_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw output_error(dir, "cannot create the output folder (" + ec.message() + ")");
  if (!fs::is_directory(dir, ec)) throw output_error(dir, "exists and is not a folder");
  const std::string probe = (fs::path(dir) / (".bayes-vi-probe." + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw output_error(dir, "cannot create files in the output folder (" + errno_text() + ")");
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace bvi
