// i_many_groups_uncorrelated: normal likelihood, y ~ x + (1 + x || g), 400 groups.
// Non-centred: r_g[j, k] = sd_g[k] z_g[k, j], z ~ N(0, 1), the same model as bayes-vi's independent
// r_g[j, k] ~ N(0, sd_g[k]). Prior families fixed here, numbers from the config (checked by
// nuts_multilevel.py). Names as bayes-vi's: alpha, beta[1], sigma, sd_g[k], r_g[group, k] (k = 1
// intercept, 2 slope).
//
// The likelihood is summed group by group from sufficient statistics: the only population
// predictor is the varying slope's column (X[, 1] == Z_g, checked), so row i of group j has mean
// a_j + b_j x_i with a_j = alpha + r_g[j, 1], b_j = beta[1] + r_g[j, 2], and
//   sum_i (y_i - a_j - b_j x_i)^2 = Syy_j - 2 b_j Sxy_j + b_j^2 Sxx_j + n_j (ybar_j - a_j - b_j xbar_j)^2
// with the within-group centred sums Sxx, Sxy, Syy: the same log density as the row-wise
// normal_lpdf (up to rounding and the constant Stan drops), at O(groups) per gradient.
data {
  int<lower=1> N;
  int<lower=1> D;
  matrix[N, D] X;
  vector[N] y;
  int<lower=2> G_g;
  int<lower=1, upper=G_g> g[N];
  vector[N] Z_g;                      // the varying slope's column (x)
  real alpha_loc;
  real<lower=0> alpha_scale;
  vector[D] beta_loc;
  vector<lower=0>[D] beta_scale;
  real<lower=0> sigma_scale;          // half_normal
  vector<lower=0>[2] sd_g_scale;      // half_normal
}
transformed data {
  vector[G_g] n = rep_vector(0, G_g);
  vector[G_g] xbar = rep_vector(0, G_g);
  vector[G_g] ybar = rep_vector(0, G_g);
  vector[G_g] Sxx = rep_vector(0, G_g);
  vector[G_g] Sxy = rep_vector(0, G_g);
  vector[G_g] Syy = rep_vector(0, G_g);
  if (D != 1) reject("the program's only population predictor is the slope's column");
  for (i in 1:N) {
    if (X[i, 1] != Z_g[i]) reject("X[, 1] must equal Z_g");
    n[g[i]] += 1;
    xbar[g[i]] += Z_g[i];
    ybar[g[i]] += y[i];
  }
  for (j in 1:G_g) {
    if (n[j] == 0) reject("group ", j, " has no rows");
    xbar[j] /= n[j];
    ybar[j] /= n[j];
  }
  for (i in 1:N) {
    real dx = Z_g[i] - xbar[g[i]];
    real dy = y[i] - ybar[g[i]];
    Sxx[g[i]] += dx * dx;
    Sxy[g[i]] += dx * dy;
    Syy[g[i]] += dy * dy;
  }
}
parameters {
  real alpha;
  vector[D] beta;
  real<lower=0> sigma;
  vector<lower=0>[2] sd_g;
  matrix[2, G_g] z_g;
}
transformed parameters {
  matrix[G_g, 2] r_g = diag_pre_multiply(sd_g, z_g)';
}
model {
  vector[G_g] b = beta[1] + col(r_g, 2);
  vector[G_g] d = ybar - (alpha + col(r_g, 1)) - b .* xbar;
  alpha ~ normal(alpha_loc, alpha_scale);
  beta ~ normal(beta_loc, beta_scale);
  sigma ~ normal(0, sigma_scale);
  sd_g ~ normal(0, sd_g_scale);
  to_vector(z_g) ~ std_normal();
  target += -N * log(sigma)
            - (sum(Syy) - 2 * dot_product(b, Sxy) + dot_product(b .* b, Sxx) + dot_product(n, d .* d))
              / (2 * square(sigma));
}
