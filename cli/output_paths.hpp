#pragma once
// Output paths checked against each other and against the files a command reads, before any
// work: two outputs on one file would leave only the one renamed last, and an output over an
// input (loo --output FIT/summary.json) would replace the fit it was computed from.
#include <string>
#include <utility>
#include <vector>

namespace bvi::cli {

// The same path spelled two ways (`a.csv`, `./a.csv`), or two links to one file.
bool same_file(const std::string& a, const std::string& b);

// A named path: the option or the role that gives it ("--output", "the fit's draws.csv").
using NamedPath = std::pair<std::string, std::string>;

// Usage error (64) when two of `outputs` (empty paths are skipped) name one file, or one of them
// names one of `inputs`.
void refuse_clashing_paths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

}  // namespace bvi::cli
