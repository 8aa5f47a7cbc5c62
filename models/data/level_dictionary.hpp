#pragma once
// The distinct labels of a categorical column in the rows one process reads, numbered in order
// of first appearance (local codes; models/data/levels.hpp makes them global).
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace bvi::data {

class LevelDictionary {
 public:
  // The code of `label`, added when new.
  std::int32_t code(std::string_view label) {
    key_.assign(label.data(), label.size());  // reuses its capacity: no allocation per row
    const auto it = codes_.find(key_);
    if (it != codes_.end()) return it->second;
    const auto c = static_cast<std::int32_t>(labels_.size());
    codes_.emplace(key_, c);
    labels_.push_back(key_);
    return c;
  }
  const std::vector<std::string>& labels() const { return labels_; }
  std::size_t size() const { return labels_.size(); }

 private:
  std::unordered_map<std::string, std::int32_t> codes_;
  std::vector<std::string> labels_;
  std::string key_;
};

}  // namespace bvi::data
