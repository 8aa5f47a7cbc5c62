#pragma once
// One exception type for every user-facing failure. Validation code throws it with the place
// (a JSON pointer into the config, or FILE:LINE in a data file) and what is wrong; only main()
// turns it into the one-line message and exit code of SPEC.md.
#include <stdexcept>
#include <string>

namespace bvi {

// sysexits.h codes, as SPEC.md lists them.
enum class ExitCode : int {
  ok = 0,
  usage = 64,         // bad command line
  data = 65,          // bad data
  no_input = 66,      // an input file cannot be opened
  software = 70,      // inference failed
  os_error = 71,      // the system cannot provide what the run needs (memory)
  cant_create = 73,   // an output cannot be created
  config = 78,        // bad config
  interrupted = 130,  // stopped by SIGINT (128 + 2)
  terminated = 143,   // stopped by SIGTERM, after a clean checkpoint when one was asked for (128 + 15)
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, std::string where, const std::string& what)
      : std::runtime_error(where.empty() ? what : where + ": " + what),
        code_(code),
        where_(std::move(where)),
        what_(what) {}

  ExitCode code() const { return code_; }
  const std::string& where() const { return where_; }
  const std::string& detail() const { return what_; }

  // Set when every MPI rank holds this same error (see reduce::collectively): the ranks can then
  // shut down together, with one message from rank 0, instead of aborting the job.
  bool collective() const { return collective_; }
  Error& mark_collective() {
    collective_ = true;
    return *this;
  }

 private:
  ExitCode code_;
  std::string where_;
  std::string what_;
  bool collective_ = false;
};

// The one message shape: `throw config_error("/model/priors/beta/normal/scale", "must be > 0")`.
inline Error config_error(std::string where, const std::string& what) {
  return Error(ExitCode::config, std::move(where), what);
}
inline Error data_error(std::string where, const std::string& what) {
  return Error(ExitCode::data, std::move(where), what);
}
inline Error usage_error(const std::string& what) {
  return Error(ExitCode::usage, "command line", what);
}
inline Error input_error(std::string path, const std::string& what) {
  return Error(ExitCode::no_input, std::move(path), what);
}
inline Error output_error(std::string path, const std::string& what) {
  return Error(ExitCode::cant_create, std::move(path), what);
}
inline Error inference_error(std::string where, const std::string& what) {
  return Error(ExitCode::software, std::move(where), what);
}

// "FILE:LINE", the place of a data error.
inline std::string file_line(const std::string& file, long line) {
  return file + ":" + std::to_string(line);
}

}  // namespace bvi
