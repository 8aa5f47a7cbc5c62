# Reference values for tests/unit/diagnostics/test_loo_subsample.cpp from R's loo_subsample()
# (Debian r-cran-loo 2.5.1): subsampling PSIS-LOO with the difference estimator (Magnusson,
# Riis Andersen, Jonasson and Vehtari 2020, AISTATS; estimator = "diff_srs",
# loo_approximation = "plpd"). Not run by the build; regenerate the fixture with
#   Rscript tests/reference/loo_subsample_reference.R > tests/reference/fixtures/loo_subsample_reference.json
#
# The inputs are those of tests/reference/loo_reference.R (logistic regressions "a" and "b" on
# the same 40 rows, S = 1000 draws of a meanfield q from Weyl sequences, no RNG), given to
# loo_subsample() as a log-likelihood function of (data row, draws) with the draws matrix, log_p
# and log_g, and a fixed subsample of 10 rows (observations = an index vector: no RNG either).
# The fixture holds R's answers: every row's plpd approximation log p(y_i | colMeans(draws)), the
# estimates with their SE and subsampling SE, the subsampled rows' pointwise values, and
# loo_compare() of the two subsampled objects (same rows: the difference estimator on the
# paired differences).
suppressMessages(library(loo))
frac <- function(x) x - floor(x)
num <- function(x) paste0("[", paste(sprintf("%.17g", x), collapse = ", "), "]")

N <- 40
S <- 1000
weyl <- sqrt(c(2, 3, 5, 7, 11, 13)) %% 1
zdraws <- function(S) {
  s <- 0:(S - 1)
  z <- matrix(0, S, 3)
  for (j in 1:3) {
    u1 <- frac((s + 0.5) * weyl[2 * j - 1])
    u2 <- frac((s + 0.5) * weyl[2 * j])
    z[, j] <- sqrt(-2 * log(u1)) * cos(2 * pi * u2)
  }
  z
}
i <- 0:(N - 1)
x <- cbind(sin(1.3 * i + 0.7), cos(0.9 * i + 0.2), sin(0.37 * i * i))
y <- as.numeric(x[, 1] - 0.5 * x[, 2] + 0.8 * cos(3 * i) > 0)
y[c(8, 23)] <- 1 - y[c(8, 23)]

model <- function(cols, mu, sd, S) {
  z <- zdraws(S)[, seq_along(cols), drop = FALSE]
  theta <- sweep(sweep(z, 2, sd, "*"), 2, mu, "+")
  colnames(theta) <- paste0("b", cols)
  eta <- theta %*% t(x[, cols, drop = FALSE])
  ll <- sweep(eta, 2, y, "*") - log1p(exp(eta))
  log_g <- rowSums(sweep(-0.5 * z * z, 2, log(sd), "-")) - 0.5 * length(cols) * log(2 * pi)
  log_p <- rowSums(ll) + rowSums(dnorm(theta, 0, 2.5, log = TRUE))
  list(cols = cols, theta = theta, ll = ll, log_p = log_p, log_g = log_g)
}
models <- list(a = model(1:2, c(1.6, -0.9), c(0.45, 0.4), S),
               b = model(1:3, c(1.5, -0.8, 0.1), c(0.5, 0.45, 0.4), S))
data <- data.frame(x1 = x[, 1], x2 = x[, 2], x3 = x[, 3], y = y)
observations <- c(2L, 5L, 8L, 11L, 17L, 23L, 29L, 31L, 36L, 40L)

subsample <- function(m) {
  cols <- m$cols
  llfun <- function(data_i, draws) {
    eta <- as.vector(draws %*% as.numeric(data_i[1, cols]))
    data_i$y * eta - log1p(exp(eta))
  }
  suppressWarnings(suppressMessages(loo_subsample(llfun, data = data, draws = m$theta,
    observations = observations, log_p = m$log_p, log_g = m$log_g, loo_approximation = "plpd")))
}
ss <- lapply(models, subsample)

show <- function(name, m, l, last) {
  e <- l$estimates
  pw <- l$pointwise
  cat(sprintf('  "%s": {\n', name))
  cat(sprintf('    "checksum_log_lik": %.17g, "checksum_log_p": %.17g, "checksum_log_g": %.17g,\n',
              sum(m$ll), sum(m$log_p), sum(m$log_g)))
  cat(sprintf('    "theta_mean": %s,\n', num(colMeans(m$theta))))
  cat(sprintf('    "elpd_loo_approx": %s,\n', num(l$loo_subsampling$elpd_loo_approx)))
  for (q in c("elpd_loo", "p_loo", "looic"))
    cat(sprintf('    "%s": %.17g, "se_%s": %.17g, "subsampling_se_%s": %.17g,\n', q, e[q, 1], q,
                e[q, 2], q, e[q, 3]))
  cat(sprintf('    "idx": %s,\n', paste0("[", paste(pw[, "idx"], collapse = ", "), "]")))
  cat(sprintf('    "elpd_loo_i": %s,\n', num(pw[, "elpd_loo"])))
  cat(sprintf('    "p_loo_i": %s,\n', num(pw[, "p_loo"])))
  cat(sprintf('    "pareto_k": %s\n', num(pw[, "influence_pareto_k"])))
  cat(sprintf("  }%s\n", if (last) "" else ","))
}

cat("{\n")
cat(sprintf('"loo_version": "%s", "rows": %d, "draws": %d,\n', format(packageVersion("loo")), N, S))
cat(sprintf('"observations": %s,\n', paste0("[", paste(observations, collapse = ", "), "]")))
cat('"loo_subsample": {\n')
show("a", models$a, ss$a, FALSE)
show("b", models$b, ss$b, TRUE)
cat("},\n")
cmp <- suppressMessages(loo_compare(ss$a, ss$b))
cat('"compare": {\n')
cat(sprintf('  "order": ["%s"],\n', paste(rownames(cmp), collapse = '", "')))
cols <- colnames(cmp)
for (k in seq_along(cols))
  cat(sprintf('  "%s": %s%s\n', cols[k], num(cmp[, cols[k]]), if (k == length(cols)) "" else ","))
cat("}\n}\n")
