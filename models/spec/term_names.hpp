#pragma once
// Terms as the structured config writes them: a column ("x") or an interaction of columns joined
// by ':' ("x:sex"). A term is a set of columns: "x:sex" and "sex:x" are the same term.
#include <string>
#include <vector>

namespace bvi::spec {

// "x:sex" -> {"x", "sex"}. Throws a config error at `pointer` for an empty part ("x:", "a::b"),
// formula syntax ('*', '|', '(') or a column named twice ("x:x").
std::vector<std::string> term_columns(const std::string& term, const std::string& pointer);

// The same set of columns.
bool same_term(const std::string& a, const std::string& b);

// {"school", "class"} -> "school:class".
std::string join_term(const std::vector<std::string>& columns);

// The name of a grouping factor inside parameter names (r_F, sd_F, L_F, cor_F): each column's
// characters other than ASCII letters, digits and '_' become '_', a leading digit gets a 'g'
// before it, and the columns are joined by '_': {"school", "class id"} -> "school_class_id".
std::string factor_identifier(const std::vector<std::string>& columns);

}  // namespace bvi::spec
