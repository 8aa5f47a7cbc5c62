# Reference values for test_psis.cpp from the R package loo (Vehtari, Gabry et al.), the
# reference implementation of PSIS. Not run by the build; regenerate with
#   apt-get install r-cran-loo   # Debian bookworm: loo 2.5.1
#   Rscript tests/unit/diagnostics/psis_reference.R
suppressMessages(library(loo))
cat("loo", format(packageVersion("loo")), "\n")
p <- function(...) cat(sprintf("%.17g", c(...)), "\n")

cat("\n## gpdfit on fixed exceedances: k (wip = FALSE), sigma, k (wip = TRUE)\n")
gpd <- function(name, x) {
  a <- gpdfit(x, wip = FALSE); b <- gpdfit(x, wip = TRUE)
  cat(name, ": "); p(a$k, a$sigma, b$k)
}
gpd("seven", c(2.0, 0.1, 6.0, 0.7, 1.1, 3.5, 0.3))
n <- 20; gpd("exponential quantiles n=20", -log1p(-((1:n) - 0.5) / n))
n <- 50; k <- 0.7; gpd("pareto k=0.7 quantiles n=50", expm1(-k * log1p(-((1:n) - 0.5) / n)) / k)
n <- 30; gpd("uniform quantiles n=30", ((1:n) - 0.5) / n)
gpd("two", c(1, 3))

cat("\n## psis on deterministic log ratios: k, then normalized log weights at draws (1-based)\n")
ratios <- function(S, mult) {
  i <- 0:(S - 1)
  v <- ((i * mult) %% S + 0.5) / S
  -0.6 * log(v) + 0.3 * sin(7 * i) + 1234.5
}
show <- function(S, mult, at) {
  lr <- ratios(S, mult)
  ps <- suppressWarnings(psis(lr, r_eff = 1))
  lw <- as.vector(weights(ps, log = TRUE, normalize = TRUE))
  cat("S =", S, " tail_len =", attr(ps, "tail_len"), " k = "); p(pareto_k_values(ps))
  top <- order(lr, decreasing = TRUE)[1:3]
  low <- order(lr)[c(1, S %/% 2)]
  cat("  draws (0-based):", c(top, low) - 1, "\n  log weights: "); p(lw[c(top, low)])
}
show(1000, 389, 0)
show(100, 37, 0)
show(21, 4, 0)

cat("\n## zero ratios: ratios(1000, 389) with every 20th draw (0-based 0, 20, ...) at -Inf.\n")
cat("## loo rejects -Inf, so they are given log ratio -1e4 instead: far below the threshold,\n")
cat("## they change neither the fit nor (to double precision) the other weights.\n")
lr <- ratios(1000, 389); lr[seq(1, 1000, by = 20)] <- -1e4
ps <- suppressWarnings(psis(lr, r_eff = 1))
lw <- as.vector(weights(ps, log = TRUE, normalize = TRUE))
top <- order(lr, decreasing = TRUE)[1:3]
cat("k = "); p(pareto_k_values(ps))
cat("  draws (0-based):", top - 1, "\n  log weights: "); p(lw[top])
