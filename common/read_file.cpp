#include "common/read_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.hpp"

namespace bvi {

namespace {

std::string reason() {
  return std::strerror(errno);
}

}  // namespace

std::string read_text_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO nobody writes to would otherwise wait for a writer forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw input_error(path, "cannot open (" + reason() + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const std::string why = reason();
    ::close(fd);
    throw input_error(path, "cannot open (" + why + ")");
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw input_error(path, "is a directory, not a file");
  }
  // A pipe or a device could be read once, but also block or never end.
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw input_error(path, "not a regular file");
  }
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = reason();
      ::close(fd);
      throw input_error(path, "cannot read (" + why + ")");
    }
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace bvi
