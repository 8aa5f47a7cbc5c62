#include "cli/loo_run.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <queue>
#include <utility>

#include "cli/fit_rows.hpp"
#include "cli/logging.hpp"
#include "cli/refuse_weights.hpp"
#include "cli/number_format.hpp"
#include "common/error.hpp"
#include "inference/reduce/collective_error.hpp"
#include "inference/rng/uniform_stream.hpp"
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

namespace {

// What loo needs before the rows: the fit checked against the config, and the data's reader.
struct LooSetup {
  spec::Config config;
  FitForConfig applied;
  std::unique_ptr<models::PredictionRowsReader> reader;
  Eigen::VectorXd correction;  // log p(theta_s, y) - log q(theta_s), shared by every row
  // --subsample: the sampled records (0-based, ascending) and the fit reduced to one draw, the
  // draws' column means (loo's plpd approximation: log p(y_i | colMeans(draws))).
  std::vector<long> sample;
  models::FitResult mean_fit;
};

// Step of the simulation stream that chooses the subsample: its own, apart from kfold's (3000),
// the new groups' effects (1000 + factor) and simulate's rows.
constexpr std::uint64_t kSubsampleStep = 4000;

// The m records with the smallest Philox uniforms keyed by (seed, record), ties by record: a
// simple random sample without replacement, a pure function of (seed, records, m). The uniforms
// are made a block at a time and the m smallest kept in a heap: memory m, not N.
std::vector<long> subsample_records(Eigen::Index records, long m, std::uint64_t seed) {
  using Key = std::pair<double, long>;
  std::priority_queue<Key> heap;  // the largest kept key on top
  const auto keep = static_cast<std::size_t>(m);
  constexpr Eigen::Index kBlock = 65536;
  Eigen::MatrixXd u;
  for (Eigen::Index r0 = 0; r0 < records; r0 += kBlock) {
    const Eigen::Index n = std::min(kBlock, records - r0);
    u.resize(n, 1);
    rng::standard_uniform(seed, rng::Purpose::simulation, kSubsampleStep, 0, static_cast<std::uint64_t>(r0), u);
    for (Eigen::Index i = 0; i < n; ++i) {
      const Key k{u(i, 0), static_cast<long>(r0 + i)};
      if (heap.size() < keep) {
        heap.push(k);
      } else if (k < heap.top()) {
        heap.pop();
        heap.push(k);
      }
    }
  }
  std::vector<long> out;
  out.reserve(heap.size());
  for (; !heap.empty(); heap.pop()) out.push_back(heap.top().second);
  std::sort(out.begin(), out.end());
  return out;
}

// On the heap and never moved: the reader refers to the fit's design and model.
std::unique_ptr<LooSetup> loo_setup(const LooRequest& req, bool warn) {
  auto owned = std::make_unique<LooSetup>();
  LooSetup& st = *owned;
  st.config = spec::parse_config(req.config);
  refuse_weights(st.config, "loo");
  st.applied = load_fit_for_config(st.config, req.fit);
  models::FitResult& fit = st.applied.fit;
  const std::string draws_csv = req.fit + "/draws.csv";
  if (req.draws > 0 && req.draws < fit.draws.rows()) {
    fit.draws.conservativeResize(req.draws, Eigen::NoChange);
    fit.log_p.conservativeResize(req.draws);
    fit.log_g.conservativeResize(req.draws);
  }
  if (warn && req.draws > fit.draws.rows())
    cli_logger().warn("the fit in " + req.fit + " has " + std::to_string(fit.draws.rows()) +
                      " draws; loo uses them all (fit with a larger inference.output_draws for more)");
  for (Eigen::Index s = 0; s < fit.draws.rows(); ++s)
    if (!std::isfinite(fit.log_p[s]) || !std::isfinite(fit.log_g[s]))
      throw data_error(draws_csv,
                       "draw " + std::to_string(s + 1) +
                           ": log_p__ or log_g__ is not a finite number (loo's importance ratios need both)");
  const std::string& path = st.config.data.csv;
  st.reader = std::make_unique<models::PredictionRowsReader>(path, st.applied.design, fit.response,
                                                             st.config.data, st.applied.model->likelihood());
  if (!st.reader->has_response())
    throw data_error(file_line(path, 1), "no response column '" + fit.response + "': loo needs it");
  if (st.reader->records() == 0)
    throw data_error(file_line(path, st.reader->first_data_line()), "no data rows");
  st.correction = fit.log_p - fit.log_g;
  if (req.subsample != 0) {
    const Eigen::Index records = st.reader->records();
    if (req.subsample < 2 || req.subsample > records)
      throw usage_error("--subsample " + std::to_string(req.subsample) + ": must be between 2 and the " +
                        std::to_string(records) + " data rows of " + path);
    const std::uint64_t seed = req.seed ? *req.seed : static_cast<std::uint64_t>(st.config.inference.seed);
    st.sample = subsample_records(records, req.subsample, seed);
    st.mean_fit = fit;
    st.mean_fit.draws = fit.draws.colwise().mean();
    st.mean_fit.log_p = fit.log_p.head(1);
    st.mean_fit.log_g = fit.log_g.head(1);
  }
  return owned;
}

// One chunk of records: per kept row, kLooFields doubles (record + 1, y, elpd_loo, p_loo, k), the
// layout the ranks exchange.
constexpr int kLooFields = 5;

// categorical_logit's K and reference, from the fit's layout (0 categories for the others).
models::PointwiseCategories pointwise_categories(const FitForConfig& applied) {
  const models::ParameterLayout& layout = applied.model->layout();
  return {layout.categories(), layout.reference_category()};
}

// A chunk's rows, checked as the fit's own: no missing values unless dropped, the fit's
// standardization, no group the fit never saw.
models::PredictionRows loo_rows(const LooSetup& st, const std::string& fit_dir, Eigen::Index begin,
                                Eigen::Index end) {
  const std::string& path = st.config.data.csv;
  const FitForConfig& applied = st.applied;
  models::PredictionRows rows = st.reader->read(begin, end, kLooChunk);
  if (rows.missing > 0 && st.config.data.missing == "error")
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
                                 fit_dir + " was made with (a fit of other data?)");
  return rows;
}

// A chunk's rows read ahead (loo_rows' result, or the error it threw), or nothing yet.
struct LooChunkRows {
  bool read = false;
  models::PredictionRows rows;
  std::exception_ptr error;
};

void read_loo_chunk(const LooSetup& st, const std::string& fit_dir, Eigen::Index begin, Eigen::Index end,
                    LooChunkRows& into) {
  into.read = true;
  try {
    into.rows = loo_rows(st, fit_dir, begin, end);
  } catch (...) {
    into.error = std::current_exception();
  }
}

// The chunk [begin, end) from `rows` (read here when they were not read ahead). With `next_end` >
// `next_begin`, one thread reads that chunk into `next` while the others compute this one (the
// reader is the only serial part: with 2 threads the other one waited for it); its error, if any,
// is kept for its own round, so every error is reported where it was before.
std::vector<double> loo_chunk(const LooSetup& st, const std::string& fit_dir, Eigen::Index begin,
                              Eigen::Index end, int threads, LooChunkRows& rows_in, Eigen::Index next_begin,
                              Eigen::Index next_end, LooChunkRows& next) {
  const FitForConfig& applied = st.applied;
  if (!rows_in.read) read_loo_chunk(st, fit_dir, begin, end, rows_in);
  if (rows_in.error) std::rethrow_exception(rows_in.error);
  const models::PredictionRows& rows = rows_in.rows;
  const bool read_ahead = next_end > next_begin;
  const Eigen::Index n = rows.x.rows();
  std::vector<double> out(static_cast<std::size_t>(n * kLooFields));
  if (n == 0) {
    if (read_ahead) read_loo_chunk(st, fit_dir, next_begin, next_end, next);
    return out;
  }
  const models::PredictRows prows =
      predict_rows_of(applied, rows, static_cast<std::uint64_t>(applied.fit.seed));
  const models::PointwiseLogLik loglik(applied.fit, prows, pointwise_categories(applied));
  std::exception_ptr error;
#pragma omp parallel num_threads(threads)
  {
    models::PointwiseLogLik::Scratch eta;
    Eigen::MatrixXd ll;
#pragma omp single nowait
    if (read_ahead) read_loo_chunk(st, fit_dir, next_begin, next_end, next);
#pragma omp for schedule(dynamic)
    for (Eigen::Index b0 = 0; b0 < n; b0 += kLooBlock) {
      try {
        const Eigen::Index m = std::min(kLooBlock, n - b0);
        loglik.block(b0, m, eta, ll);
        for (Eigen::Index i = 0; i < m; ++i) {
          const diagnostics::LooPoint p = diagnostics::loo_point(ll.col(i), st.correction);
          double* f = out.data() + (b0 + i) * kLooFields;
          f[0] = static_cast<double>(rows.record[static_cast<std::size_t>(b0 + i)] + 1);
          f[1] = rows.y[b0 + i];
          f[2] = p.elpd_loo;
          f[3] = p.p_loo;
          f[4] = p.pareto_k;
        }
      } catch (...) {
#pragma omp critical(loo_error)
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
  return out;
}

// --subsample: per kept row kSubsampleFields doubles (record + 1, y, approximation, sampled 0/1,
// elpd_loo, p_loo, k; the last three NaN unless sampled). Every row's approximation is one log
// likelihood at the mean draw; PSIS-LOO is computed for the sampled rows only.
constexpr int kSubsampleFields = 7;

std::vector<double> loo_subsample_chunk(const LooSetup& st, const std::string& fit_dir, Eigen::Index begin,
                                        Eigen::Index end, int threads) {
  const FitForConfig& applied = st.applied;
  const models::PredictionRows rows = loo_rows(st, fit_dir, begin, end);
  const Eigen::Index n = rows.x.rows();
  std::vector<double> out(static_cast<std::size_t>(n * kSubsampleFields));
  if (n == 0) return out;
  const models::PredictRows prows =
      predict_rows_of(applied, rows, static_cast<std::uint64_t>(applied.fit.seed));
  const models::PointwiseLogLik loglik(applied.fit, prows, pointwise_categories(applied));
  const models::PointwiseLogLik at_mean(st.mean_fit, prows, pointwise_categories(applied));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::exception_ptr error;
#pragma omp parallel num_threads(threads)
  {
    models::PointwiseLogLik::Scratch eta, eta1;
    Eigen::MatrixXd ll, ll1;
#pragma omp for schedule(dynamic)
    for (Eigen::Index b0 = 0; b0 < n; b0 += kLooBlock) {
      try {
        const Eigen::Index m = std::min(kLooBlock, n - b0);
        at_mean.block(b0, m, eta1, ll1);
        for (Eigen::Index i = 0; i < m; ++i) {
          const long record = rows.record[static_cast<std::size_t>(b0 + i)];
          double* f = out.data() + (b0 + i) * kSubsampleFields;
          f[0] = static_cast<double>(record + 1);
          f[1] = rows.y[b0 + i];
          f[2] = ll1(0, i);
          f[3] = 0;
          f[4] = f[5] = f[6] = nan;
          if (!std::binary_search(st.sample.begin(), st.sample.end(), record)) continue;
          loglik.block(b0 + i, 1, eta, ll);
          const diagnostics::LooPoint p = diagnostics::loo_point(ll.col(0), st.correction);
          f[3] = 1;
          f[4] = p.elpd_loo;
          f[5] = p.p_loo;
          f[6] = p.pareto_k;
        }
      } catch (...) {
#pragma omp critical(loo_subsample_error)
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
  return out;
}

}  // namespace

LooRun compute_loo(const LooRequest& req, reduce::Communicator& comm) {
  const std::unique_ptr<LooSetup> setup =
      reduce::collectively(comm, [&] { return loo_setup(req, comm.is_root()); });
  const LooSetup& st = *setup;
  const models::FitResult& fit = st.applied.fit;
  const std::string& path = st.config.data.csv;
  const Eigen::Index records = st.reader->records();

  LooRun run;
  run.config = req.config;
  run.fit = req.fit;
  run.likelihood = fit.likelihood;
  run.response = fit.response;
  run.draws = static_cast<long>(fit.draws.rows());
  diagnostics::LooAccumulator acc;
  diagnostics::LooSubsampleAccumulator sub;
  const bool subsampled = !st.sample.empty();
  const int fields = subsampled ? kSubsampleFields : kLooFields;
  run.subsample = req.subsample;
  run.subsample_seed = req.seed ? *req.seed : static_cast<std::uint64_t>(st.config.inference.seed);
  models::ResponseHash yh;
  long first_impossible = 0;  // the first row whose likelihood is 0 at a draw (reported last)
  long first_impossible_mean = 0;  // --subsample: the same at the mean draw
  const int threads = std::max(1, req.threads);
  // Chunks of records in rounds: in round r rank k takes chunk r * ranks + k; every rank gets every
  // chunk's rows (allgatherv, in rank order = chunk order) and adds them in row order. A row's
  // values do not depend on who computed them, so any number of ranks and threads gives the same
  // bytes; the memory is one round's rows (and this rank's next chunk, read ahead).
  const int ranks = comm.size();
  const Eigen::Index chunks = (records + kLooChunk - 1) / kLooChunk;
  // This rank's next chunk, read while the current one is computed (full loo).
  auto rows_now = std::make_unique<LooChunkRows>(), rows_next = std::make_unique<LooChunkRows>();
  for (Eigen::Index round = 0; round * ranks < chunks; ++round) {
    const Eigen::Index c = round * ranks + comm.rank();
    const std::vector<double> mine = reduce::collectively(comm, [&] {
      if (c >= chunks) return std::vector<double>();
      const Eigen::Index begin = c * kLooChunk, end = std::min(records, (c + 1) * kLooChunk);
      if (subsampled) return loo_subsample_chunk(st, req.fit, begin, end, threads);
      const Eigen::Index cn = c + ranks;
      const Eigen::Index next_begin = cn < chunks ? cn * kLooChunk : 0;
      const Eigen::Index next_end = cn < chunks ? std::min(records, (cn + 1) * kLooChunk) : 0;
      return loo_chunk(st, req.fit, begin, end, threads, *rows_now, next_begin, next_end, *rows_next);
    });
    std::swap(rows_now, rows_next);
    *rows_next = LooChunkRows();
    std::vector<long> counts(static_cast<std::size_t>(ranks), 0);
    counts[static_cast<std::size_t>(comm.rank())] = static_cast<long>(mine.size());
    comm.allreduce_sum(counts.data(), ranks);
    long total = 0;
    for (long k : counts) total += k;
    std::vector<double> all(static_cast<std::size_t>(total));
    comm.allgatherv(mine.data(), counts, all.data());
    for (std::size_t i = 0; i < all.size(); i += static_cast<std::size_t>(fields)) {
      const double* f = all.data() + i;
      const long record = static_cast<long>(f[0]);
      yh.add(f[1]);  // every rank adds every row in row order: its index is the rows added before
      LooRowValue v{record, f[2], f[3], -2.0 * f[2], f[4], 0.0, true};
      if (subsampled) {
        v = {record, f[4], f[5], -2.0 * f[4], f[6], f[2], f[3] != 0};
        if (!std::isfinite(v.approximation)) {
          if (first_impossible_mean == 0) first_impossible_mean = record;
          continue;
        }
      }
      if (v.sampled && !std::isfinite(v.elpd_loo)) {
        if (first_impossible == 0) first_impossible = record;
        continue;
      }
      diagnostics::LooPoint p;
      p.elpd_loo = v.elpd_loo;
      p.p_loo = v.p_loo;
      p.looic = v.looic;
      p.pareto_k = v.pareto_k;
      if (subsampled) {
        sub.add_approximation(v.approximation);
        if (v.sampled) sub.add_sampled(v.approximation, p);
      } else {
        acc.add(p);
      }
      if (v.sampled && !(p.pareto_k <= 0.7)) run.high_k.push_back(v);
      if (req.pointwise) run.pointwise.push_back(v);
    }
  }
  // The fit must be a fit of these data: loo's importance ratios use the fit's log p(theta, y).
  // Checked once every row was read (the rows are streamed): a fit of other data is what a row
  // with an impossible likelihood most likely means too, so this comes first. Every rank holds
  // the same numbers, so every rank throws the same error.
  reduce::collectively(comm, [&] {
    const long used = yh.rows;
    if (used == 0) throw data_error(path, "no rows (every row has a missing value)");
    if (fit.rows >= 0 && fit.rows != used)
      throw data_error(path, "the fit in " + req.fit + " was made with " + std::to_string(fit.rows) +
                                 " rows; the config's data have " + std::to_string(used) +
                                 " (a fit of other data?)");
    if (!fit.response_hash.empty() && fit.response_hash != yh.text())
      throw data_error(path, "the fit in " + req.fit + " was made with other values of the response '" +
                                 fit.response + "' (response hash " + fit.response_hash + ", these rows " +
                                 yh.text() + "): a fit of other data?");
    // The same responses in another order (the rows shuffled). loo's totals would not change
    // (log p(theta, y) is a sum over rows), but its rows would be numbered as the config's file
    // numbers them, not as the fit's, and compare pairs models row by row: refused, as the fit
    // of another file it most likely is.
    if (!fit.row_hash.empty() && fit.row_hash != yh.row_text())
      throw data_error(path, "the fit in " + req.fit + " was made with the same values of the response '" +
                                 fit.response + "' in another order (row hash " + fit.row_hash + ", these rows " +
                                 yh.row_text() + "): the rows must be in the order the fit used");
    if (first_impossible > 0)
      throw data_error(file_line(path, first_impossible + 1),
                       "the log likelihood of this row is not a finite number at some draw of the fit (y "
                       "impossible under it): no importance ratio exists");
    if (first_impossible_mean > 0)
      throw data_error(file_line(path, first_impossible_mean + 1),
                       "the log likelihood of this row is not a finite number at the mean of the fit's draws "
                       "(y impossible under it): --subsample's approximation does not exist");
    if (subsampled && sub.sampled() < 2)
      throw data_error(path, "--subsample " + std::to_string(req.subsample) + " left " +
                                 std::to_string(sub.sampled()) +
                                 " sampled rows once rows with missing values were dropped (2 are needed)");
  });
  run.response_hash = yh.text();
  run.row_hash = yh.row_text();
  if (subsampled) {
    run.subsample_totals = sub.totals();
  } else {
    run.totals = acc.totals();
  }
  return run;
}

std::string loo_pointwise_csv(const std::vector<LooRowValue>& rows, bool subsampled) {
  std::string out = subsampled ? "row,elpd_loo_approx,subsampled,elpd_loo,p_loo,looic,pareto_k,influence_pareto_k\n"
                               : "row,elpd_loo,p_loo,looic,pareto_k,influence_pareto_k\n";
  for (const LooRowValue& v : rows) {
    out += std::to_string(v.row);
    if (subsampled) {
      out += ',';
      append_number(out, v.approximation);
      out += v.sampled ? ",1" : ",0";
      if (!v.sampled) {
        out += ",NA,NA,NA,NA,NA\n";
        continue;
      }
    }
    for (double x : {v.elpd_loo, v.p_loo, v.looic, v.pareto_k, v.pareto_k}) {
      out += ',';
      append_number(out, x);
    }
    out += '\n';
  }
  return out;
}

}  // namespace bvi::cli
