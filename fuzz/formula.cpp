// The formula parser (/model/formula) on arbitrary text. Besides "only bvi::Error", every error
// must be a config error at /model/formula whose message starts "col N:" with N within the text
// (one past its end for "expected more"); and what parses must survive a round trip: the AST
// written back as a formula (every name backquoted, factor() around every use of a factor column,
// groups and '*' already expanded, both offsets) parses to the same AST.
#include "models/spec/formula.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"

namespace {

using bvi::spec::FormulaAst;
using bvi::spec::FormulaTerm;

void fail(const char* what, std::string_view text) {
  std::fprintf(stderr, "%s: %.*s\n", what, static_cast<int>(text.size()), text.data());
  std::abort();
}

// The columns written factor(NAME) in the formula being rendered: rendered so again.
const std::vector<bvi::spec::FormulaName>* g_factors = nullptr;

std::string name(const std::string& text) {
  if (g_factors)
    for (const auto& f : *g_factors)
      if (f.text == text) return "factor(`" + text + "`)";
  return "`" + text + "`";
}

std::string term(const FormulaTerm& t) {
  std::string out;
  for (const auto& c : t.columns) out += (out.empty() ? "" : ":") + name(c.text);
  return out;
}

// The AST as a formula that means the same.
std::string render(const FormulaAst& f) {
  g_factors = nullptr;
  std::string out = name(f.response.text) + " ~ " + (f.intercept ? "1" : "0");
  g_factors = &f.factors;
  for (const auto& t : f.terms) out += " + " + term(t);
  for (const auto& g : f.groups) {
    out += std::string(" + (") + (g.intercept ? "1" : "0");
    for (const auto& t : g.terms) out += " + " + term(t);
    out += g.correlated ? " | " : " || ";
    std::string by;
    for (const auto& c : g.by) by += (by.empty() ? "" : ":") + name(c.text);
    out += by + ")";
  }
  g_factors = nullptr;
  if (f.offset) out += " + offset(" + name(f.offset->text) + ")";
  if (f.exposure) out += " + offset(log(" + name(f.exposure->text) + "))";
  return out;
}

bool same_names(const std::vector<bvi::spec::FormulaName>& a, const std::vector<bvi::spec::FormulaName>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].text != b[i].text) return false;
  return true;
}

bool same_terms(const std::vector<FormulaTerm>& a, const std::vector<FormulaTerm>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same_names(a[i].columns, b[i].columns)) return false;
  return true;
}

bool same(const FormulaAst& a, const FormulaAst& b) {
  if (a.response.text != b.response.text || a.intercept != b.intercept || !same_terms(a.terms, b.terms) ||
      a.groups.size() != b.groups.size() || a.offset.has_value() != b.offset.has_value() ||
      (a.offset && a.offset->text != b.offset->text) || a.exposure.has_value() != b.exposure.has_value() ||
      (a.exposure && a.exposure->text != b.exposure->text) || a.factors.size() != b.factors.size())
    return false;
  for (const auto& f : a.factors)  // the same columns, perhaps in another order
    if (std::none_of(b.factors.begin(), b.factors.end(), [&](const auto& o) { return o.text == f.text; }))
      return false;
  for (std::size_t g = 0; g < a.groups.size(); ++g) {
    const auto &x = a.groups[g], &y = b.groups[g];
    if (!same_names(x.by, y.by) || x.intercept != y.intercept || x.correlated != y.correlated ||
        !same_terms(x.terms, y.terms))
      return false;
  }
  return true;
}

// Parses `text`; a failure must be the one shape of formula error.
bool parse(std::string_view text, FormulaAst& out) {
  try {
    out = bvi::spec::parse_formula(text);
    return true;
  } catch (const bvi::Error& e) {
    const std::string detail = e.detail();
    std::size_t column = 0;
    if (e.code() != bvi::ExitCode::config || e.where() != "/model/formula" ||
        std::sscanf(detail.c_str(), "col %zu:", &column) != 1 || column < 1 || column > text.size() + 1)
      fail("a formula error of another shape", detail);
    return false;
  } catch (const std::exception& e) {
    fail("not a bvi::Error", e.what());
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  FormulaAst first;
  if (!parse(text, first)) return 0;
  const std::string again = render(first);
  // Written back with every '*' expanded, a short formula can exceed the length the parser takes
  // (a*b*...: 2^k terms); the round trip is asked of what the parser may be given.
  if (again.size() > bvi::spec::kMaxFormulaLength) return 0;
  FormulaAst second;
  if (!parse(again, second)) fail("the parsed formula, written back, does not parse", again);
  if (!same(first, second)) fail("the parsed formula, written back, parses to another formula", again);
  return 0;
}
