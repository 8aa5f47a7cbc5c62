#pragma once
// A Logger that keeps what it is told, so tests assert on reports instead of parsing stderr.
#include <string>
#include <vector>

#include "common/logger.hpp"

namespace bvi::test {

class RecordingLogger final : public Logger {
 public:
  void debug(const std::string& m) override { debug_.push_back(m); }
  void info(const std::string& m) override { info_.push_back(m); }
  void warn(const std::string& m) override { warn_.push_back(m); }
  const std::vector<std::string>& infos() const { return info_; }
  const std::vector<std::string>& warnings() const { return warn_; }
  const std::vector<std::string>& debugs() const { return debug_; }

 private:
  std::vector<std::string> debug_, info_, warn_;
};

}  // namespace bvi::test
