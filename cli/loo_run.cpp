#include "cli/loo_run.hpp"

#include <algorithm>
#include <cmath>
#include <exception>

#include "cli/fit_rows.hpp"
#include "cli/logging.hpp"
#include "cli/number_format.hpp"
#include "common/error.hpp"
#include "models/data/csv_reader.hpp"
#include "models/pointwise_log_lik.hpp"
#include "models/prediction_rows.hpp"
#include "models/response_hash.hpp"
#include "models/spec/config.hpp"

namespace bvi::cli {

namespace {

// Rows per block of one thread (one GEMM each) and per chunk (the rows whose results wait to be
// added in order): S x 64 doubles of scratch per thread, 4096 LooPoints per chunk.
constexpr Eigen::Index kLooBlock = 64;
constexpr Eigen::Index kLooChunk = 4096;

}  // namespace

LooRun compute_loo(const LooRequest& req) {
  spec::Config config = spec::parse_config(req.config);
  FitForConfig applied = load_fit_for_config(config, req.fit);
  models::FitResult& fit = applied.fit;
  const std::string draws_csv = req.fit + "/draws.csv";
  if (req.draws > 0 && req.draws < fit.draws.rows()) {
    fit.draws.conservativeResize(req.draws, Eigen::NoChange);
    fit.log_p.conservativeResize(req.draws);
    fit.log_g.conservativeResize(req.draws);
  }
  if (req.draws > fit.draws.rows())
    cli_logger().warn("the fit in " + req.fit + " has " + std::to_string(fit.draws.rows()) +
                      " draws; loo uses them all (fit with a larger inference.output_draws for more)");
  const Eigen::Index S = fit.draws.rows();
  for (Eigen::Index s = 0; s < S; ++s)
    if (!std::isfinite(fit.log_p[s]) || !std::isfinite(fit.log_g[s]))
      throw data_error(draws_csv,
                       "draw " + std::to_string(s + 1) +
                           ": log_p__ or log_g__ is not a finite number (loo's importance ratios need both)");

  const std::string& path = config.data.csv;
  const models::PredictionRowsReader reader(path, applied.design, fit.response, config.data,
                                            applied.model->likelihood());
  if (!reader.has_response())
    throw data_error(file_line(path, 1), "no response column '" + fit.response + "': loo needs it");
  const Eigen::Index records = reader.records();
  if (records == 0) throw data_error(file_line(path, reader.first_data_line()), "no data rows");
  // log p(theta_s, y) - log q(theta_s): the approximation's correction, shared by every row.
  const Eigen::VectorXd correction = fit.log_p - fit.log_g;

  LooRun run;
  run.config = req.config;
  run.fit = req.fit;
  run.likelihood = fit.likelihood;
  run.response = fit.response;
  run.draws = static_cast<long>(S);
  diagnostics::LooAccumulator acc;
  models::ResponseHash yh;
  long first_impossible = 0;  // the first row whose likelihood is 0 at a draw (reported last)
  std::vector<diagnostics::LooPoint> points(static_cast<std::size_t>(std::min(kLooChunk, records)));
  const int threads = std::max(1, req.threads);
  // A chunk of records at a time: memory bounded by the chunk, not by N.
  for (Eigen::Index c0 = 0; c0 < records; c0 += kLooChunk) {
    const models::PredictionRows rows = reader.read(c0, std::min(records, c0 + kLooChunk), kLooChunk);
    if (rows.missing > 0 && config.data.missing == "error")
      throw data_error(file_line(path, rows.first_missing_line),
                       rows.first_missing_what +
                           "; rows with missing values (empty, NA or NaN) in the columns the model uses are "
                           "refused (with /data/missing \"drop\" they are left out of loo)");
    check_standardized_rows(applied, rows);
    // The fit's own data have no group it never saw.
    for (std::size_t g = 0; g < rows.groups.size(); ++g)
      if (!rows.groups[g].new_levels.empty())
        throw data_error(path, "group '" + rows.groups[g].new_levels[0] + "' of " +
                                   applied.design.groups[g].label + " is not one of the groups the fit in " +
                                   req.fit + " was made with (a fit of other data?)");
    const Eigen::Index cn = rows.x.rows();
    for (Eigen::Index i = 0; i < cn; ++i) yh.add(rows.y[i]);
    if (cn == 0) continue;
    const models::PredictRows prows = predict_rows_of(applied, rows, static_cast<std::uint64_t>(fit.seed));
    const models::PointwiseLogLik loglik(fit, prows);
    std::exception_ptr error;
#pragma omp parallel num_threads(threads)
    {
      Eigen::MatrixXd eta, ll;
#pragma omp for schedule(dynamic)
      for (Eigen::Index b0 = 0; b0 < cn; b0 += kLooBlock) {
        try {
          const Eigen::Index m = std::min(kLooBlock, cn - b0);
          loglik.block(b0, m, eta, ll);
          for (Eigen::Index i = 0; i < m; ++i)
            points[static_cast<std::size_t>(b0 + i)] = diagnostics::loo_point(ll.col(i), correction);
        } catch (...) {
#pragma omp critical(loo_error)
          if (!error) error = std::current_exception();
        }
      }
    }
    if (error) std::rethrow_exception(error);
    // In row order, whatever the threads did.
    for (Eigen::Index i = 0; i < cn; ++i) {
      const diagnostics::LooPoint& p = points[static_cast<std::size_t>(i)];
      const long record = static_cast<long>(rows.record[static_cast<std::size_t>(i)]) + 1;
      if (!std::isfinite(p.elpd_loo)) {
        if (first_impossible == 0) first_impossible = record;
        continue;
      }
      acc.add(p);
      const LooRowValue v{record, p.elpd_loo, p.p_loo, p.looic, p.pareto_k};
      if (!(p.pareto_k <= 0.7)) run.high_k.push_back(v);
      if (req.pointwise) run.pointwise.push_back(v);
    }
  }
  // The fit must be a fit of these data: loo's importance ratios use the fit's log p(theta, y).
  // Checked once every row was read (the rows are streamed): a fit of other data is what a row
  // with an impossible likelihood most likely means too, so this comes first.
  const long used = yh.rows;
  if (used == 0) throw data_error(path, "no rows (every row has a missing value)");
  if (fit.rows >= 0 && fit.rows != used)
    throw data_error(path, "the fit in " + req.fit + " was made with " + std::to_string(fit.rows) +
                               " rows; the config's data have " + std::to_string(used) +
                               " (a fit of other data?)");
  run.response_hash = yh.text();
  if (!fit.response_hash.empty() && fit.response_hash != run.response_hash)
    throw data_error(path, "the fit in " + req.fit + " was made with other values of the response '" +
                               fit.response + "' (response hash " + fit.response_hash + ", these rows " +
                               run.response_hash + "): a fit of other data?");
  if (first_impossible > 0)
    throw data_error(file_line(path, first_impossible + 1),
                     "the log likelihood of this row is not a finite number at some draw of the fit (y "
                     "impossible under it): no importance ratio exists");
  run.totals = acc.totals();
  return run;
}

std::string loo_pointwise_csv(const std::vector<LooRowValue>& rows) {
  std::string out = "row,elpd_loo,p_loo,looic,pareto_k,influence_pareto_k\n";
  for (const LooRowValue& v : rows) {
    out += std::to_string(v.row);
    for (double x : {v.elpd_loo, v.p_loo, v.looic, v.pareto_k, v.pareto_k}) {
      out += ',';
      append_number(out, x);
    }
    out += '\n';
  }
  return out;
}

}  // namespace bvi::cli
