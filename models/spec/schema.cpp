#include "models/spec/schema.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cmath>
#include <set>
#include <sstream>

#include "common/error.hpp"

namespace bvi::spec {

namespace {

std::string format_number(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.precision(15);
  os << x;
  return os.str();
}

std::string type_of(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    default:
      return "a number";
  }
}

Json check_number(const Field& f, const Json& v, const std::string& where) {
  if (!v.is_number()) throw config_error(where, "expected a number, got " + type_of(v));
  const double x = v.get<double>();
  if (!std::isfinite(x)) throw config_error(where, "must be finite");
  if (!f.range.contains(x))
    throw config_error(where, "must be " + f.range.describe() + ", got " + format_number(x));
  return v;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string Range::describe() const {
  const bool has_lo = !std::isinf(lo), has_hi = !std::isinf(hi);
  if (!has_lo && !has_hi) return "any";
  if (has_lo && !has_hi) return (lo_open ? "> " : ">= ") + format_number(lo);
  if (!has_lo && has_hi) return (hi_open ? "< " : "<= ") + format_number(hi);
  return std::string(lo_open ? "(" : "[") + format_number(lo) + ", " + format_number(hi) +
         (hi_open ? ")" : "]");
}

std::string child_pointer(const std::string& parent, const std::string& key) {
  std::string escaped;
  for (char c : key) {
    if (c == '~')
      escaped += "~0";
    else if (c == '/')
      escaped += "~1";
    else
      escaped += c;
  }
  return parent + "/" + escaped;
}

std::string suggest(const std::string& key, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, key.size() / 3) + 1;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(key, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

Json resolve_value(const Field& f, const Json& v, const std::string& where) {
  switch (f.kind) {
    case Kind::boolean:
      if (!v.is_boolean()) throw config_error(where, "expected true or false, got " + type_of(v));
      return v;
    case Kind::auto_integer:
      if (v.is_null()) return v;
      [[fallthrough]];
    case Kind::integer: {
      if (!v.is_number()) throw config_error(where, "expected an integer, got " + type_of(v));
      const double x = v.get<double>();
      if (!std::isfinite(x) || std::floor(x) != x || std::abs(x) > 9.007199254740992e15)
        throw config_error(where, "expected an integer, got " + v.dump());
      if (!f.range.contains(x))
        throw config_error(where, "must be " + f.range.describe() + ", got " + format_number(x));
      return Json(static_cast<long long>(x));
    }
    case Kind::number:
      return check_number(f, v, where);
    case Kind::nullable_number:
      if (v.is_null()) return v;
      return check_number(f, v, where);
    case Kind::string:
      if (!v.is_string()) throw config_error(where, "expected a string, got " + type_of(v));
      if (v.get<std::string>().empty()) throw config_error(where, "must not be empty");
      return v;
    case Kind::choice: {
      if (!v.is_string()) throw config_error(where, "expected a string, got " + type_of(v));
      const auto s = v.get<std::string>();
      if (std::find(f.choices.begin(), f.choices.end(), s) == f.choices.end()) {
        std::string list;
        for (const auto& c : f.choices) list += (list.empty() ? "" : ", ") + c;
        throw config_error(where, "unknown value '" + s + "' (choose one of: " + list + ")");
      }
      return v;
    }
    case Kind::string_array: {
      if (!v.is_array()) throw config_error(where, "expected an array of strings, got " + type_of(v));
      if (v.empty() && !f.allow_empty) throw config_error(where, "must not be empty");
      std::set<std::string> seen;
      for (size_t i = 0; i < v.size(); ++i) {
        const std::string at = where + "/" + std::to_string(i);
        if (!v[i].is_string()) throw config_error(at, "expected a string, got " + type_of(v[i]));
        const auto s = v[i].get<std::string>();
        if (s.empty()) throw config_error(at, "must not be empty");
        if (!seen.insert(s).second) throw config_error(at, "'" + s + "' is listed twice");
      }
      return v;
    }
    case Kind::number_or_array: {
      if (v.is_array()) {
        if (v.empty()) throw config_error(where, "must not be an empty array");
        for (size_t i = 0; i < v.size(); ++i) check_number(f, v[i], where + "/" + std::to_string(i));
        return v;
      }
      if (!v.is_number())
        throw config_error(where, "expected a number or an array of numbers, got " + type_of(v));
      return check_number(f, v, where);
    }
    case Kind::hyper: {
      if (v.is_string()) {
        // The syntax here; which names exist, and whether they fit the range, the model checks.
        const std::string text = v.get<std::string>();
        if (parse_product(text).empty())
          throw config_error(where, "expected a number, an array of numbers, or a product of parameter names and "
                                    "numbers such as \"tau\" or \"0.5 * tau * lambda\", got \"" + text + "\"");
        return v;
      }
      Field as_numbers = f;
      as_numbers.kind = Kind::number_or_array;
      return resolve_value(as_numbers, v, where);
    }
    case Kind::object:
      if (!v.is_object()) throw config_error(where, "expected an object, got " + type_of(v));
      return v;
    case Kind::object_array:
      if (!v.is_array()) throw config_error(where, "expected an array of objects, got " + type_of(v));
      for (size_t i = 0; i < v.size(); ++i)
        if (!v[i].is_object())
          throw config_error(where + "/" + std::to_string(i), "expected an object, got " + type_of(v[i]));
      return v;
  }
  return v;
}

std::vector<std::string> parse_product(const std::string& text) {
  std::vector<std::string> factors;
  size_t start = 0;
  while (true) {
    const size_t star = text.find('*', start);
    std::string token = text.substr(start, star == std::string::npos ? std::string::npos : star - start);
    const size_t b = token.find_first_not_of(" \t"), e = token.find_last_not_of(" \t");
    if (b == std::string::npos) return {};
    token = token.substr(b, e - b + 1);
    const bool identifier = (std::isalpha(static_cast<unsigned char>(token[0])) || token[0] == '_') &&
                            std::all_of(token.begin(), token.end(), [](char c) {
                              return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                            });
    char* end = nullptr;
    const double x = std::strtod(token.c_str(), &end);
    const bool number = end && *end == '\0' && std::isfinite(x);
    if (!identifier && !number) return {};
    factors.push_back(token);
    if (star == std::string::npos) break;
    start = star + 1;
  }
  return factors;
}

Json resolve_section(const Section& section, const Json& obj) {
  const std::string& where = section.pointer.empty() ? std::string("/") : section.pointer;
  if (!obj.is_object()) throw config_error(where, "expected an object, got " + type_of(obj));
  std::vector<std::string> known;
  for (const auto& f : section.fields) known.push_back(f.name);
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (std::find(known.begin(), known.end(), it.key()) == known.end()) {
      const std::string hint = suggest(it.key(), known);
      throw config_error(child_pointer(section.pointer, it.key()),
                         "unknown key" + (hint.empty() ? std::string() : " (did you mean '" + hint + "'?)"));
    }
  }
  Json out = Json::object();
  for (const auto& f : section.fields) {
    const std::string at = child_pointer(section.pointer, f.name);
    auto it = obj.find(f.name);
    if (it == obj.end()) {
      if (f.required) throw config_error(at, "missing required key");
      if (!f.default_value.is_null() || f.kind == Kind::nullable_number || f.kind == Kind::auto_integer)
        out[f.name] = f.default_value;
      continue;
    }
    out[f.name] = resolve_value(f, *it, at);
  }
  return out;
}

std::string kind_name(const Field& f) {
  switch (f.kind) {
    case Kind::boolean:
      return "boolean";
    case Kind::integer:
      return "integer";
    case Kind::auto_integer:
      return "integer or null";
    case Kind::number:
      return "number";
    case Kind::nullable_number:
      return "number or null";
    case Kind::string:
      return "string";
    case Kind::choice:
      return "string";
    case Kind::string_array:
      return "array of strings";
    case Kind::number_or_array:
      return "number or array";
    case Kind::hyper:
      return "number, array or parameter names";
    case Kind::object:
      return "object";
    case Kind::object_array:
      return "array of objects";
  }
  return "";
}

std::string default_text(const Field& f) {
  if (f.required) return "required";
  if (f.default_value.is_null())
    return f.kind == Kind::nullable_number ? "null" : f.kind == Kind::auto_integer ? "null (automatic)" : "(none)";
  return f.default_value.dump();
}

std::string range_text(const Field& f) {
  if (f.kind == Kind::choice) {
    std::string list;
    for (const auto& c : f.choices) list += (list.empty() ? "" : ", ") + std::string("`") + c + "`";
    return list;
  }
  if (f.kind == Kind::number || f.kind == Kind::nullable_number || f.kind == Kind::integer ||
      f.kind == Kind::auto_integer || f.kind == Kind::number_or_array || f.kind == Kind::hyper)
    return f.range.describe();
  return "";
}

}  // namespace bvi::spec
