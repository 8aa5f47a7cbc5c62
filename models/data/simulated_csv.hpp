#pragma once
// The text of a simulated dataset (simulate.hpp): the CSV `x1,...,xD,y` (`x1,...,xD,trials,y`
// for binomial_logit) and the true values in the layout of data/seed_true_beta.csv
// (`name,true_value`: `alpha` when there is an intercept, `beta.1` ..., then `sigma`, `phi` or
// `shape` when the likelihood has one).
//
// Numbers are float32 values written as the shortest text that reads back as the same float
// (std::to_chars), about 11 bytes a feature. Reading that text as a float (or as a double and
// rounding to float, as the float32 loader does) gives back exactly the value generated; read
// as a double it is the decimal, within half a float32 ulp of that value. Real responses are
// doubles, written as the shortest text that reads back as the same double; 0/1 and counts are
// written as integers.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "models/data/simulate.hpp"

namespace bvi::data {

// Receives the text in order, in pieces of a few hundred kilobytes; may throw (a full disk),
// which stops the writing and is rethrown by write_simulated_csv.
using TextSink = std::function<void(std::string_view)>;

// Writes the whole CSV (header, then rows 1..N) to `sink`. Blocks of rows are made and
// formatted by `threads` OpenMP threads and handed to the sink in row order, so the text is
// byte-identical for any thread count, and only a few blocks are in memory at a time.
void write_simulated_csv(const SimulationSpec& spec, int threads, const TextSink& sink);

// `x1,...,xD,y` (with `trials,` before `y` for binomial_logit) and a newline.
std::string simulated_csv_header(const SimulationSpec& spec);

// Appends the block's rows, one line each: the features, the trials for binomial_logit, then y.
void append_csv_rows(const SimulationSpec& spec, const SimulatedBlock& block, std::string& text);

// `name,true_value` then `alpha` (with an intercept), `beta.j` for each coefficient, and the
// likelihood's own parameter when it has one.
std::string true_values_csv(const SimulationSpec& spec, const std::vector<float>& beta);

}  // namespace bvi::data
