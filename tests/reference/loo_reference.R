# Reference values for tests/unit/diagnostics/test_loo.cpp and test_compare.cpp from the R
# package loo (Debian r-cran-loo 2.5.1), the reference implementation of PSIS-LOO. Not run by the
# build; regenerate the fixture with
#   apt-get install -y r-cran-loo
#   Rscript tests/reference/loo_reference.R > tests/reference/fixtures/loo_reference.json
#
# The inputs are deterministic formulas (no RNG), written again in the C++ test, so the fixture
# holds only R's answers (and checksums of the inputs, which the test checks it rebuilt to 1e-12):
#   - three logistic regressions on the same 40 rows, S draws theta_s = mu + sd * z_s from a
#     meanfield q (z_s: Box-Muller on Weyl sequences); log_lik[s, i] = log p(y_i | theta_s),
#     log_p[s] = sum_i log_lik[s, i] + sum_j log N(theta_sj | 0, 2.5), log_g[s] = log q(theta_s);
#   - loo_approximate_posterior(log_lik, log_p, log_g) for each model (Magnusson et al. 2019), and
#     loo(log_lik, r_eff = 1) for model "a" (draws taken as posterior draws: no correction);
#   - loo_compare of the three, and loo_model_weights(method = "stacking") (and the optimum of
#     its objective to tight tolerances: see below).
suppressMessages(library(loo))
frac <- function(x) x - floor(x)
num <- function(x) paste0("[", paste(sprintf("%.17g", x), collapse = ", "), "]")

N <- 40
S <- 1000
weyl <- sqrt(c(2, 3, 5, 7, 11, 13)) %% 1
# Standard normal z[s, j], j = 1..3, by Box-Muller from two Weyl sequences each.
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
y[c(8, 23)] <- 1 - y[c(8, 23)]  # two rows at odds with the rest: large Pareto k

model <- function(cols, mu, sd, S) {
  z <- zdraws(S)[, seq_along(cols), drop = FALSE]
  theta <- sweep(sweep(z, 2, sd, "*"), 2, mu, "+")
  eta <- theta %*% t(x[, cols, drop = FALSE])  # S x N
  ll <- sweep(eta, 2, y, "*") - log1p(exp(eta))
  log_g <- rowSums(sweep(-0.5 * z * z, 2, log(sd), "-")) - 0.5 * length(cols) * log(2 * pi)
  log_p <- rowSums(ll) + rowSums(dnorm(theta, 0, 2.5, log = TRUE))
  list(ll = ll, log_p = log_p, log_g = log_g)
}
models <- list(
  a = model(1:2, c(1.6, -0.9), c(0.45, 0.4), S),
  b = model(1:3, c(1.5, -0.8, 0.1), c(0.5, 0.45, 0.4), S),
  c = model(1, 0.9, 0.9, S)
)
fits <- lapply(models, function(m) suppressWarnings(loo_approximate_posterior(m$ll, m$log_p, m$log_g)))
post <- suppressWarnings(loo(models$a$ll, r_eff = rep(1, N)))

show_loo <- function(name, m, l, correction, last) {
  e <- l$estimates
  pw <- l$pointwise
  cat(sprintf('  "%s": {\n', name))
  cat(sprintf('    "correction": %s,\n', if (correction) "true" else "false"))
  cat(sprintf('    "checksum_log_lik": %.17g, "checksum_log_p": %.17g, "checksum_log_g": %.17g,\n',
              sum(m$ll), sum(m$log_p), sum(m$log_g)))
  cat(sprintf('    "elpd_loo": %.17g, "se_elpd_loo": %.17g,\n', e["elpd_loo", 1], e["elpd_loo", 2]))
  cat(sprintf('    "p_loo": %.17g, "se_p_loo": %.17g,\n', e["p_loo", 1], e["p_loo", 2]))
  cat(sprintf('    "looic": %.17g, "se_looic": %.17g,\n', e["looic", 1], e["looic", 2]))
  cat(sprintf('    "elpd_loo_i": %s,\n', num(pw[, "elpd_loo"])))
  cat(sprintf('    "p_loo_i": %s,\n', num(pw[, "p_loo"])))
  cat(sprintf('    "pareto_k": %s\n', num(pareto_k_values(l))))
  cat(sprintf("  }%s\n", if (last) "" else ","))
}

cat("{\n")
cat(sprintf('"loo_version": "%s", "rows": %d, "draws": %d,\n', format(packageVersion("loo")), N, S))
cat('"loo": {\n')
show_loo("a", models$a, fits$a, TRUE, FALSE)
show_loo("b", models$b, fits$b, TRUE, FALSE)
show_loo("c", models$c, fits$c, TRUE, FALSE)
show_loo("a_posterior", models$a, post, FALSE, TRUE)
cat("},\n")

cmp <- loo_compare(fits)
cat('"compare": {\n')
cat(sprintf('  "order": ["%s"],\n', paste(rownames(cmp), collapse = '", "')))
for (col in colnames(cmp)) cat(sprintf('  "%s": %s,\n', col, num(cmp[, col])))
w <- loo_model_weights(fits, method = "stacking")
cat(sprintf('  "stacking_weights": %s,\n', num(as.vector(w))))
# loo_model_weights stops where constrOptim's outer loop does (outer.eps = 1e-5 relative change of
# the score, which its optim_control cannot reach): on this flat score that is ~6e-5 short of the
# optimum. The same objective and gradient as loo's stacking_weights(), minimized by the same
# constrOptim with the tolerances tightened, give the optimum itself.
lpd <- do.call(cbind, lapply(fits, function(l) l$pointwise[, "elpd_loo"]))
K <- ncol(lpd)
neg_score <- function(v) -sum(log(exp(lpd) %*% c(v, 1 - sum(v))))
neg_grad <- function(v) {
  e <- exp(lpd)
  -colSums((e[, 1:(K - 1), drop = FALSE] - e[, K]) / as.vector(e %*% c(v, 1 - sum(v))))
}
opt <- constrOptim(rep(1 / K, K - 1), neg_score, neg_grad, ui = rbind(rep(-1, K - 1), diag(K - 1)),
                   ci = c(-1, rep(0, K - 1)), method = "BFGS", outer.eps = 1e-14, outer.iterations = 1000,
                   control = list(reltol = 1e-15, maxit = 10000))
cat(sprintf('  "stacking_weights_tight": %s,\n', num(c(opt$par, 1 - sum(opt$par)))))
cat(sprintf('  "stacking_score_default": %.17g, "stacking_score_tight": %.17g\n',
            -neg_score(as.vector(w)[-K]), -opt$value))
cat("}\n}\n")
