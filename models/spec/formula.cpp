#include "models/spec/formula.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace bvi::spec {

namespace {

enum class Tok { name, number, tilde, plus, minus, star, colon, slash, bar, double_bar, open, close, end };

struct Token {
  Tok kind;
  std::string text;
  std::size_t column;  // 1-based
};

const char* describe(Tok t) {
  switch (t) {
    case Tok::name:
      return "a column name";
    case Tok::number:
      return "a number";
    case Tok::tilde:
      return "'~'";
    case Tok::plus:
      return "'+'";
    case Tok::minus:
      return "'-'";
    case Tok::star:
      return "'*'";
    case Tok::colon:
      return "':'";
    case Tok::slash:
      return "'/'";
    case Tok::bar:
      return "'|'";
    case Tok::double_bar:
      return "'||'";
    case Tok::open:
      return "'('";
    case Tok::close:
      return "')'";
    case Tok::end:
      return "the end of the formula";
  }
  return "";
}

bool name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}
bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    const std::size_t col = i + 1;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
    } else if (name_start(c)) {
      std::size_t j = i;
      while (j < s.size() && name_char(s[j])) ++j;
      out.push_back({Tok::name, std::string(s.substr(i, j - i)), col});
      i = j;
    } else if (c == '`') {
      const std::size_t close = s.find('`', i + 1);
      if (close == std::string_view::npos) throw formula_error(s, col, "unterminated backquoted name");
      if (close == i + 1) throw formula_error(s, col, "empty backquoted name");
      out.push_back({Tok::name, std::string(s.substr(i + 1, close - i - 1)), col});
      i = close + 1;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
      out.push_back({Tok::number, std::string(s.substr(i, j - i)), col});
      i = j;
    } else if (c == '|' && i + 1 < s.size() && s[i + 1] == '|') {
      out.push_back({Tok::double_bar, "||", col});
      i += 2;
    } else {
      Tok kind;
      switch (c) {
        case '~':
          kind = Tok::tilde;
          break;
        case '+':
          kind = Tok::plus;
          break;
        case '-':
          kind = Tok::minus;
          break;
        case '*':
          kind = Tok::star;
          break;
        case ':':
          kind = Tok::colon;
          break;
        case '/':
          kind = Tok::slash;
          break;
        case '|':
          kind = Tok::bar;
          break;
        case '(':
          kind = Tok::open;
          break;
        case ')':
          kind = Tok::close;
          break;
        default: {
          std::string what = "unexpected character '" + std::string(1, c) + "'";
          if (c == '^') what = "'^' (powers of terms) is not supported; write the interactions out";
          if (static_cast<unsigned char>(c) >= 0x80 || static_cast<unsigned char>(c) < 0x20)
            what = "unexpected character (put a column name with such characters in `backquotes`)";
          throw formula_error(s, col, what);
        }
      }
      out.push_back({kind, std::string(1, c), col});
      ++i;
    }
  }
  out.push_back({Tok::end, "", s.size() + 1});
  return out;
}

// A term as a set of columns, for "the same term" (x:z is z:x).
std::set<std::string> key_of(const FormulaTerm& t) {
  std::set<std::string> k;
  for (const auto& c : t.columns) k.insert(c.text);
  return k;
}

std::string quote(const std::string& s) {
  return "'" + s + "'";
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text), toks_(tokenize(text)) {}

  FormulaAst parse() {
    if (peek().kind == Tok::end) throw error(1, "the formula is empty; write it as 'y ~ x + ...'");
    if (peek().kind != Tok::name) {
      if (peek().kind == Tok::tilde) throw error(peek().column, "no response before '~'");
      throw error(peek().column, "expected the response column, found " + std::string(describe(peek().kind)));
    }
    ast_.response = {peek().text, peek().column};
    next();
    // R's and brms's ways of writing more than a column on the left, and what they are here.
    if (peek().kind == Tok::open && ast_.response.text == "factor")
      throw error(ast_.response.column,
                  "the response is a column name, not a function: a response of categories needs no factor() "
                  "(ordinal_logit, categorical_logit, bernoulli_logit read it; text labels are listed in "
                  "/data/levels)");
    if (peek().kind == Tok::open)
      throw error(ast_.response.column,
                  "the response is a column name, not a function: log(y) ~ ... is the lognormal likelihood "
                  "with y ~ ..., and cbind(successes, failures) ~ ... is binomial_logit with successes ~ ... "
                  "and /data/trials the column of successes + failures");
    if (peek().kind == Tok::bar)
      throw error(peek().column,
                  "brms's 'y | trials(n)' and 'y | weights(w)' are /data/trials and /data/weights "
                  "here; write the response alone");
    if (peek().kind != Tok::tilde)
      throw error(peek().column,
                  "expected '~' after the response, found " + std::string(describe(peek().kind)));
    const std::size_t tilde = next().column;
    parse_parts(/*in_group=*/false, ast_.terms, literal_, ast_.intercept);
    if (peek().kind == Tok::close) throw error(peek().column, "unbalanced ')': no '(' before it");
    if (peek().kind == Tok::bar || peek().kind == Tok::double_bar)
      throw error(peek().column, std::string(describe(peek().kind)) +
                                     " outside parentheses: a group term is written (terms | factor)");
    if (peek().kind != Tok::end)
      throw error(peek().column, "expected '+' between terms, found " + std::string(describe(peek().kind)));
    if (ast_.terms.empty() && ast_.groups.empty() && !ast_.intercept)
      throw error(tilde, "the formula has no terms (write 'y ~ 1' for an intercept only)");
    return std::move(ast_);
  }

 private:
  const Token& peek(std::size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  const Token& next() { return toks_[std::min(pos_++, toks_.size() - 1)]; }
  Error error(std::size_t column, const std::string& what) const {
    return formula_error(text_, column, what);
  }

  void check_not_response(const FormulaName& n) const {
    if (n.text == ast_.response.text)
      throw error(n.column, "the response " + quote(n.text) + " cannot also be a predictor");
  }

  // Parts separated by '+' (and '- 1') up to the end, ')' or '|'.
  void parse_parts(bool in_group, std::vector<FormulaTerm>& terms, std::vector<bool>& literal,
                   bool& intercept) {
    bool first = true;
    for (;;) {
      bool minus = false;
      if (first && peek().kind == Tok::minus) {
        minus = true;
        next();
      } else if (!first) {
        if (peek().kind == Tok::plus) {
          next();
        } else if (peek().kind == Tok::minus) {
          minus = true;
          next();
        } else {
          return;
        }
      }
      first = false;
      const Token& t = peek();
      if (minus) {
        if (t.kind == Tok::number && t.text == "1") {
          intercept = false;
          next();
          continue;
        }
        throw error(t.column, "only '- 1' is supported after '-' (it drops the intercept)");
      }
      switch (t.kind) {
        case Tok::number:
          if (t.text == "0" || t.text == "1") {
            intercept = t.text == "1";
            next();
            continue;
          }
          throw error(t.column, "a number other than 0 or 1 is no term");
        case Tok::open:
          if (in_group) throw error(t.column, "parentheses inside a group term are not supported");
          parse_group();
          continue;
        case Tok::name:
          if (peek(1).kind == Tok::open && t.text != "factor") {
            if (t.text != "offset") throw unsupported_function(t);
            if (in_group) throw error(t.column, "offset() belongs outside group terms");
            parse_offset();
            continue;
          }
          parse_product(terms, literal);
          continue;
        case Tok::bar:
        case Tok::double_bar:
          if (!in_group)
            throw error(t.column, std::string(describe(t.kind)) +
                                      " outside parentheses: a group term is written (terms | factor)");
          throw error(t.column, "empty term before " + std::string(describe(t.kind)));
        default:
          throw error(t.column, "empty term: expected a column name, 0, 1 or a group term, found " +
                                    std::string(describe(t.kind)));
      }
    }
  }

  FormulaName name_token(const char* what) {
    const Token& t = peek();
    if (t.kind != Tok::name)
      throw error(t.column, std::string("expected ") + what + ", found " + describe(t.kind));
    next();
    if (t.text.find(':') != std::string::npos)
      throw error(t.column,
                  "a column name with ':' cannot be used in a model (':' makes interactions); rename "
                  "the column");
    return {t.text, t.column};
  }

  Error unsupported_function(const Token& t) const {
    return error(t.column, "functions are not supported (only factor(column) and offset(column)): " +
                               quote(t.text) + "; compute the column in the data file");
  }

  // NAME, or factor(NAME): the column read as categories (R's factor(cyl) on numeric codes).
  FormulaName column_atom(const char* what) {
    const Token& t = peek();
    if (t.kind == Tok::name && peek(1).kind == Tok::open) {
      if (t.text != "factor") throw unsupported_function(t);
      const std::size_t open = peek(1).column;
      next();  // "factor"
      next();  // '('
      FormulaName n = name_token("a column name inside factor()");
      if (peek().kind != Tok::close) {
        if (peek().kind == Tok::end) throw error(open, "unbalanced '(': no ')' after it");
        throw error(peek().column, "factor() takes one column name");
      }
      next();
      if (std::none_of(ast_.factors.begin(), ast_.factors.end(),
                       [&](const FormulaName& f) { return f.text == n.text; }))
        ast_.factors.push_back(n);
      return n;
    }
    return name_token(what);
  }

  // inter := atom (':' atom)*, atom := NAME | factor(NAME)
  FormulaTerm parse_interaction() {
    FormulaTerm term;
    term.column = peek().column;
    for (;;) {
      FormulaName n = column_atom("a column name");
      check_not_response(n);
      for (const auto& c : term.columns)
        if (c.text == n.text) throw error(n.column, quote(n.text) + " appears twice in one interaction");
      term.columns.push_back(std::move(n));
      if (peek().kind != Tok::colon) return term;
      next();
    }
  }

  // product := inter ('*' inter)*, expanded into every non-empty subset of the inters, by degree.
  void parse_product(std::vector<FormulaTerm>& terms, std::vector<bool>& literal) {
    std::vector<FormulaTerm> inters{parse_interaction()};
    while (peek().kind == Tok::star) {
      next();
      inters.push_back(parse_interaction());
    }
    if (inters.size() == 1) {
      add_term(terms, literal, std::move(inters[0]), true);
      return;
    }
    if (inters.size() > 10) throw error(inters[0].column, "more than 10 factors multiplied with '*'");
    const std::size_t k = inters.size();
    for (std::size_t size = 1; size <= k; ++size)
      for (unsigned mask = 1; mask < (1u << k); ++mask) {
        if (static_cast<std::size_t>(__builtin_popcount(mask)) != size) continue;
        FormulaTerm t;
        t.column = inters[0].column;
        for (std::size_t i = 0; i < k; ++i)
          if (mask & (1u << i))
            for (const auto& c : inters[i].columns)
              if (std::none_of(t.columns.begin(), t.columns.end(),
                               [&](const FormulaName& o) { return o.text == c.text; }))
                t.columns.push_back(c);
        add_term(terms, literal, std::move(t), false);
      }
  }

  // A term written twice is an error; repeats made by '*' are merged (as R does).
  void add_term(std::vector<FormulaTerm>& terms, std::vector<bool>& literal, FormulaTerm t, bool is_literal) {
    const auto key = key_of(t);
    for (std::size_t i = 0; i < terms.size(); ++i) {
      if (key_of(terms[i]) != key) continue;
      if (is_literal && literal[i])
        throw error(t.column, "duplicate term " + quote(t.text()) + " (already at col " +
                                  std::to_string(terms[i].column) + ")");
      literal[i] = literal[i] || is_literal;
      return;
    }
    terms.push_back(std::move(t));
    literal.push_back(is_literal);
  }

  // offset(NAME), or offset(log(NAME)): NAME an exposure, the offset its log (R's usual way of
  // writing one: glm(y ~ x + offset(log(t)), poisson)).
  void parse_offset() {
    const Token& name = next();  // "offset"
    next();                      // '('
    const bool log = peek().kind == Tok::name && peek(1).kind == Tok::open;
    if (peek().kind == Tok::name && peek(1).kind == Tok::open && peek().text != "log")
      throw error(peek().column,
                  "only log() inside offset() (offset(log(t)) for an exposure t): " + quote(peek().text));
    std::optional<FormulaName>& target = log ? ast_.exposure : ast_.offset;
    if (target) throw error(name.column, log ? "offset(log()) given twice" : "offset() given twice");
    const std::size_t log_open = log ? peek(1).column : 0;
    if (log) {
      next();  // "log"
      next();  // '('
    }
    FormulaName n = name_token(log ? "a column name inside offset(log())" : "a column name inside offset()");
    check_not_response(n);
    for (int closing = log ? 2 : 1; closing > 0; --closing) {
      if (peek().kind != Tok::close) {
        if (peek().kind == Tok::end)
          throw error(closing == 2 ? log_open : name.column + 6, "unbalanced '(': no ')' after it");
        throw error(peek().column,
                    closing == 2 ? "log() takes one column name" : "offset() takes one column name");
      }
      next();
    }
    target = std::move(n);
  }

  // '(' gparts ('|' | '||') factor ')'
  void parse_group() {
    const std::size_t open = next().column;
    FormulaGroup g;
    g.column = open;
    std::vector<bool> literal;
    if (peek().kind == Tok::bar || peek().kind == Tok::double_bar)
      throw error(peek().column, "empty term before " + std::string(describe(peek().kind)) +
                                     " (write (1 | factor) for a varying intercept)");
    parse_parts(/*in_group=*/true, g.terms, literal, g.intercept);
    const Token& bar = peek();
    if (bar.kind == Tok::end) throw error(open, "unbalanced '(': no ')' after it");
    if (bar.kind == Tok::close)
      throw error(bar.column, "a parenthesised term needs '|' before its grouping factor: (terms | factor)");
    if (bar.kind != Tok::bar && bar.kind != Tok::double_bar)
      throw error(bar.column, "expected '+' or '|', found " + std::string(describe(bar.kind)));
    next();
    g.correlated = bar.kind == Tok::bar;
    if (!g.intercept && g.terms.empty())
      throw error(open, "the group term has no effects (nothing before '|')");
    // factor := segment ('/' segment)*, segment := NAME (':' NAME)*; a/b/c = a, a:b, a:b:c.
    std::vector<std::vector<FormulaName>> nested;
    std::vector<FormulaName> by;
    for (;;) {
      if (peek().kind == Tok::close || peek().kind == Tok::end)
        throw error(peek().column, "expected the grouping factor's column after " +
                                       std::string(describe(toks_[pos_ - 1].kind)));
      FormulaName n = column_atom("the grouping factor's column");
      check_not_response(n);
      for (const auto& c : by)
        if (c.text == n.text) throw error(n.column, quote(n.text) + " appears twice in the grouping factor");
      by.push_back(std::move(n));
      if (peek().kind == Tok::colon) {
        next();
        continue;
      }
      if (peek().kind == Tok::slash) {
        next();
        nested.push_back(by);
        continue;
      }
      break;
    }
    nested.push_back(by);
    if (peek().kind == Tok::end) throw error(open, "unbalanced '(': no ')' after it");
    if (peek().kind != Tok::close)
      throw error(peek().column,
                  "expected ')' after the grouping factor, found " + std::string(describe(peek().kind)));
    next();
    for (auto& factor : nested) {
      FormulaGroup one = g;
      one.by = factor;
      std::set<std::string> key;
      for (const auto& c : factor) key.insert(c.text);
      for (const auto& other : ast_.groups) {
        std::set<std::string> k2;
        for (const auto& c : other.by) k2.insert(c.text);
        if (k2 == key)
          throw error(
              factor.front().column,
              "grouping factor " + quote(join(factor)) + " already has a term at col " +
                  std::to_string(other.column) +
                  "; write one term per factor, e.g. (1 + x | g), or (1 + x || g) for uncorrelated effects");
      }
      ast_.groups.push_back(std::move(one));
    }
  }

  static std::string join(const std::vector<FormulaName>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : ":") + n.text;
    return s;
  }

  std::string_view text_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  FormulaAst ast_;
  std::vector<bool> literal_;
};

}  // namespace

std::string FormulaTerm::text() const {
  std::string s;
  for (const auto& c : columns) s += (s.empty() ? "" : ":") + c.text;
  return s;
}

Error formula_error(std::string_view text, std::size_t column, const std::string& what) {
  // The excerpt: the formula on one line, cut to ~60 characters around the place, '^' before it.
  std::string flat(text);
  for (char& c : flat)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  const std::size_t at = std::min(column == 0 ? 0 : column - 1, flat.size());
  constexpr std::size_t kSide = 30;
  const std::size_t from = at > kSide ? at - kSide : 0;
  const std::size_t to = std::min(flat.size(), at + kSide);
  std::string excerpt = (from > 0 ? "..." : "") + flat.substr(from, at - from) + "^" +
                        flat.substr(at, to - at) + (to < flat.size() ? "..." : "");
  return config_error("/model/formula", "col " + std::to_string(column) + ": " + what + ": " + excerpt);
}

FormulaAst parse_formula(std::string_view text) {
  if (text.size() > kMaxFormulaLength)
    throw formula_error(text.substr(0, 200), 1,
                        "the formula is longer than " + std::to_string(kMaxFormulaLength) + " characters");
  // Before the tokenizer, which would stop at its ',': R's binomial response.
  const std::size_t first = text.find_first_not_of(" \t");
  const std::size_t paren =
      first == std::string_view::npos ? first : text.find_first_not_of(" \t", first + 5);
  if (first != std::string_view::npos && text.substr(first, 5) == "cbind" &&
      paren != std::string_view::npos && text[paren] == '(')
    throw formula_error(
        text, first + 1,
        "cbind(successes, failures) ~ ... is binomial_logit with successes ~ ... and /data/trials "
        "the column of successes + failures");
  return Parser(text).parse();
}

}  // namespace bvi::spec
