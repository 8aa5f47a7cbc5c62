#include "models/params_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <unordered_map>

#include "common/error.hpp"
#include "models/data/csv_reader.hpp"

namespace bvi::models {

namespace {

// Copies stdin into a private temporary file that is removed when this object goes.
class StdinCopy {
 public:
  StdinCopy() {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/bayes-vi-params-XXXXXX";
    std::vector<char> name(tmpl.begin(), tmpl.end());
    name.push_back('\0');
    const int fd = ::mkstemp(name.data());
    if (fd < 0) throw input_error("<stdin>", "cannot create a temporary file to hold stdin");
    path_ = name.data();
    char buf[1 << 16];
    ssize_t n;
    while ((n = ::read(STDIN_FILENO, buf, sizeof buf)) != 0) {
      if (n < 0) {
        if (errno == EINTR) continue;
        ::close(fd);
        throw input_error("<stdin>", "cannot read stdin");
      }
      for (ssize_t off = 0; off < n;) {
        const ssize_t w = ::write(fd, buf + off, static_cast<size_t>(n - off));
        if (w < 0) {
          ::close(fd);
          throw input_error("<stdin>", "cannot copy stdin to a temporary file");
        }
        off += w;
      }
    }
    ::close(fd);
  }
  ~StdinCopy() { ::unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

ParamsFile read(const std::string& path, const std::string& display, const ParameterLayout& layout) {
  data::CsvReader reader(path);
  const auto& columns = reader.columns();
  std::unordered_map<std::string, int> where;
  for (int i = 0; i < static_cast<int>(columns.size()); ++i) {
    if (where.count(columns[i]))
      throw data_error(file_line(display, 1), "column '" + columns[i] + "' appears twice in the header");
    where[columns[i]] = i;
  }
  const std::vector<std::string> names = layout.column_names();
  std::vector<int> selected;
  for (const auto& n : names) {
    auto it = where.find(n);
    if (it == where.end())
      throw data_error(file_line(display, 1),
                       "no column '" + n + "': every parameter of the model must be given (" +
                           std::to_string(names.size()) + " parameters: " + names.front() +
                           (names.size() > 1 ? " ... " + names.back() : "") + ")");
    selected.push_back(it->second);
    where.erase(it);
  }
  ParamsFile out;
  out.display_name = display;
  for (const auto& c : columns)
    if (where.count(c)) out.ignored_columns.push_back(c);
  const Eigen::Index rows = reader.scan().records;
  if (rows == 0)
    throw data_error(file_line(display, reader.first_data_line()), "no parameter rows after the header");
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> values(
      rows, static_cast<Eigen::Index>(names.size()));
  reader.read_rows<double>(0, rows, selected, -1, {}, values.data(), nullptr);
  out.values = values;
  return out;
}

}  // namespace

ParamsFile read_params_file(const std::string& path, const ParameterLayout& layout) {
  if (path != "-") return read(path, path, layout);
  StdinCopy copy;
  try {
    return read(copy.path(), "<stdin>", layout);
  } catch (const Error& e) {
    // Messages name the temporary copy; the user knows it as stdin.
    std::string where = e.where();
    if (where.compare(0, copy.path().size(), copy.path()) == 0)
      where = "<stdin>" + where.substr(copy.path().size());
    throw Error(e.code(), where, e.detail());
  }
}

}  // namespace bvi::models
