#include "common/read_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.hpp"

namespace bvi {

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw input_error(path, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path, std::string("cannot open (") + std::strerror(errno) + ")");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw input_error(path, "cannot read");
  return ss.str();
}

}  // namespace bvi
