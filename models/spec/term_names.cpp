#include "models/spec/term_names.hpp"

#include <algorithm>
#include <cctype>

#include "common/error.hpp"

namespace bvi::spec {

std::vector<std::string> term_columns(const std::string& term, const std::string& pointer) {
  if (term.find_first_of("*|()~") != std::string::npos)
    throw config_error(pointer, "'" + term +
                                    "' is formula syntax; list the terms themselves (x, z, x:z for x*z), "
                                    "or write the model as /model/formula");
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = term.find(':', start);
    const std::string part =
        term.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (part.empty()) throw config_error(pointer, "'" + term + "' has an empty column name around ':'");
    if (std::find(out.begin(), out.end(), part) != out.end())
      throw config_error(pointer, "'" + term + "' names the column '" + part + "' twice");
    out.push_back(part);
    if (colon == std::string::npos) return out;
    start = colon + 1;
  }
}

bool same_term(const std::string& a, const std::string& b) {
  auto split = [](const std::string& t) {
    std::vector<std::string> v;
    std::size_t start = 0;
    for (;;) {
      const std::size_t colon = t.find(':', start);
      v.push_back(t.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    std::sort(v.begin(), v.end());
    return v;
  };
  return split(a) == split(b);
}

std::string join_term(const std::vector<std::string>& columns) {
  std::string s;
  for (const auto& c : columns) s += (s.empty() ? "" : ":") + c;
  return s;
}

std::string factor_identifier(const std::vector<std::string>& columns) {
  std::string id;
  for (const auto& c : columns) {
    std::string part;
    for (char ch : c) part += std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' ? ch : '_';
    if (part.empty() || std::isdigit(static_cast<unsigned char>(part[0]))) part = "g" + part;
    id += (id.empty() ? "" : "_") + part;
  }
  return id;
}

}  // namespace bvi::spec
