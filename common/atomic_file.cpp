#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/errno_text.hpp"
#include "common/error.hpp"

namespace bvi {

namespace fs = std::filesystem;

namespace {

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

// Writes `content` to a temporary file beside `path`, flushed to disk; returns its name.
std::string stage(const std::string& path, const std::string& content) {
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
  return tmp;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  write_files_atomically({{path, content}});
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<std::string> staged;
  try {
    for (const auto& [path, content] : files) staged.push_back(stage(path, content));
  } catch (...) {
    for (const auto& tmp : staged) ::unlink(tmp.c_str());
    throw;
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (::rename(staged[i].c_str(), files[i].first.c_str()) != 0) {
      const std::string why = errno_text();
      for (std::size_t j = i; j < staged.size(); ++j) ::unlink(staged[j].c_str());
      throw output_error(files[i].first, "cannot replace (" + why + ")");
    }
  }
}

namespace {

// Creates and removes a file in `dir`: whether files can be created there, which permissions,
// read-only mounts and full inode tables all decide.
void probe_folder(const std::string& dir, const std::string& where, const std::string& what) {
  const std::string probe = (fs::path(dir) / (".bayes-vi-probe." + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw output_error(where, what + " (" + errno_text() + ")");
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace

void prepare_output_file(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::is_directory(st))
    throw output_error(path, "is a folder, so the output file cannot be written there");
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw output_error(path, "exists and is not a regular file");
  const fs::path parent = fs::path(path).parent_path();
  const std::string dir = parent.empty() ? std::string(".") : parent.string();
  const fs::file_status dst = fs::status(dir, ec);
  if (!fs::exists(dst)) throw output_error(path, "the folder " + dir + " does not exist");
  if (!fs::is_directory(dst)) throw output_error(path, dir + " is not a folder");
  probe_folder(dir, path, "cannot create files in " + dir);
}

void prepare_output_dir(const std::string& dir, const std::vector<std::string>& names) {
  std::error_code ec;
  // Asked first: create_directories would report a file in the way only as "Not a directory".
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw output_error(dir, "exists and is not a folder");
  fs::create_directories(dir, ec);
  if (ec) throw output_error(dir, "cannot create the output folder (" + ec.message() + ")");
  if (!fs::is_directory(dir, ec)) throw output_error(dir, "exists and is not a folder");
  for (const auto& name : names) {
    const fs::path target = fs::path(dir) / name;
    if (fs::is_directory(target, ec))
      throw output_error(target.string(), "is a folder, so the output file cannot be written there");
  }
  probe_folder(dir, dir, "cannot create files in the output folder");
}

}  // namespace bvi
