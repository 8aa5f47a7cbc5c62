#pragma once
// How library code talks to the user without knowing about terminals or spdlog (Stan's
// callbacks::logger). The CLI supplies an spdlog adapter; tests supply a recording one.
#include <string>

namespace bvi {

class Logger {
 public:
  virtual ~Logger() = default;
  virtual void debug(const std::string& msg) = 0;
  virtual void info(const std::string& msg) = 0;
  virtual void warn(const std::string& msg) = 0;
};

// Discards everything: the default where nobody listens.
class NullLogger final : public Logger {
 public:
  void debug(const std::string&) override {}
  void info(const std::string&) override {}
  void warn(const std::string&) override {}
};

}  // namespace bvi
