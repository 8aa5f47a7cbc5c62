#pragma once
// The config's schema as data: every key with its type, default, allowed range and meaning.
// The validator reads its rules from these tables and the config reference (docs/config.md,
// `bayes-vi check --explain`) is generated from them, so documentation and validation cannot
// disagree.
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bvi::spec {

using Json = nlohmann::json;

enum class Kind {
  boolean,
  integer,
  number,
  nullable_number,  // null or a number
  auto_integer,     // an integer, or null for a value chosen from the model (documented per key)
  string,
  choice,           // one of `choices`
  string_array,     // non-empty array of distinct strings
  number_or_array,  // a number, or an array of numbers (one per coefficient)
  hyper,            // number_or_array, or a string naming parameters: "tau", "2 * tau * lambda"
  object,           // a nested section, validated by its own table
  object_array,     // an array of objects, each validated by its own table
};

struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false;
  bool hi_open = false;

  bool contains(double x) const {
    if (!(x == x)) return false;  // NaN never
    if (lo_open ? !(x > lo) : !(x >= lo)) return false;
    if (hi_open ? !(x < hi) : !(x <= hi)) return false;
    return true;
  }
  bool unbounded() const {
    return lo == -std::numeric_limits<double>::infinity() && hi == std::numeric_limits<double>::infinity();
  }
  std::string describe() const;  // "> 0", "≥ 1", "[0, 1)", "any"
};

inline Range positive() {
  return {0.0, std::numeric_limits<double>::infinity(), true, false};
}
inline Range at_least(double lo) {
  return {lo, std::numeric_limits<double>::infinity(), false, false};
}
inline Range between(double lo, double hi) {
  return {lo, hi, false, false};
}
inline Range any_real() {
  return {};
}

struct Field {
  std::string name;
  Kind kind;
  Json default_value;  // null together with `required` = must be given
  bool required = false;
  Range range = {};
  std::vector<std::string> choices = {};
  std::string meaning;
  // A key that may hold `null` as its own default meaning (e.g. tol_rel_obj: null = never stop
  // early) uses Kind::nullable_number; `required` is for keys with no sensible default.
  bool allow_empty = false;  // string_array: [] is a valid value (e.g. no population-level terms)
};

// One JSON object of the config and its keys.
struct Section {
  std::string pointer;  // JSON pointer of the object, e.g. "/inference/optimizer"
  std::string meaning;
  std::vector<Field> fields;
};

// Validates `obj` (at `section.pointer`) against the table: unknown keys, missing required keys,
// types and ranges. Returns the object with every default filled in. Keys of Kind::object are
// copied unvalidated (their own section validates them). Throws Error(ExitCode::config).
Json resolve_section(const Section& section, const Json& obj);

// Validates one value against one field (used for dynamic keys such as prior hyperparameters).
Json resolve_value(const Field& field, const Json& value, const std::string& pointer);

// The factors of a hyperparameter expression "0.5 * tau * lambda" -> {"0.5", "tau", "lambda"};
// empty when it is not a product of numbers and identifiers.
std::vector<std::string> parse_product(const std::string& text);

// "/a/b" + "c" -> "/a/b/c", escaping '~' and '/' as RFC 6901 requires.
std::string child_pointer(const std::string& parent, const std::string& key);

// The nearest of `candidates` to `key` by edit distance, or "" when none is close.
std::string suggest(const std::string& key, const std::vector<std::string>& candidates);

// Human-readable rendering for the reference.
std::string kind_name(const Field& f);
std::string default_text(const Field& f);
std::string range_text(const Field& f);

}  // namespace bvi::spec
