"""bayes-vi predict for the likelihoods beyond bernoulli_logit: per-row expected responses
(P(y = 1), expected successes n p, expected counts with offset and exposure, normal means, negative binomial means with
Var = mu + mu^2 / phi, lognormal means exp(eta + sigma^2 / 2), gamma means exp(eta) with Var = mu^2 / shape), their
posterior sd and quantiles, the predictive sd (law of total variance, normal's with sigma), and the
held-out metrics (log predictive density with scipy.stats densities; accuracy, Brier and AUC for
the probit; RMSE and MAE otherwise), all recomputed with numpy from the fit's draws.csv on rows
the fit did not see. Also: the trials/offset/exposure columns are required in new rows, and new
responses are validated as the training ones are."""
import json
import unittest

import numpy as np
from scipy import special, stats

import likelihood_models as lm
from bvi_test import BinaryTestCase, read_csv_rows, run

FEATURES = ["x1", "x2", "x3"]


def read_draws(path):
    with open(path) as f:
        lines = [l.strip() for l in f if not l.startswith("#")]
    header = lines[0].split(",")
    values = np.array([[float(v) for v in l.split(",")] for l in lines[2:]])  # lines[1]: the mean
    return {h: values[:, j] for j, h in enumerate(header)}


def quantile(v, q):
    return np.quantile(v, q)  # numpy's default (linear) is what predict documents


class PredictFamilies(BinaryTestCase):
    def fit_and_predict(self, family):
        train = lm.simulate(family, 400, 0.3, [0.7, -0.4, 0.2], seed=31)
        new = lm.simulate(family, 25, 0.3, [0.7, -0.4, 0.2], seed=32)
        lm.write_csv(self.path("train.csv"), train)
        lm.write_csv(self.path("new.csv"), new)
        cfg = self.write_config(lm.config(family, self.path("train.csv"), FEATURES,
                                          inference={"seed": 3, "output_draws": 400}))
        p = run(["fit", cfg, "--quiet", "--output", self.path("fit")])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["predict", cfg, "--fit", self.path("fit"), "--data", self.path("new.csv"),
                 "--metrics", self.path("m.json")])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.path("m.json")) as f:
            metrics = json.load(f)
        return cfg, new, read_draws(self.path("fit/draws.csv")), read_csv_rows(p.stdout), metrics

    def check_family(self, family):
        cfg, new, d, got, m = self.fit_and_predict(family)
        self.assertEqual(len(got), 25)
        x = np.column_stack([new[f] for f in FEATURES])
        eta = d["alpha"][:, None] + np.column_stack([d["beta.%d" % j] for j in (1, 2, 3)]) @ x.T  # S x n
        y = new["y"]
        if family == "bernoulli_probit":
            mu, var = special.ndtr(eta), None
            logp = stats.bernoulli.logpmf(y, special.ndtr(eta))
        elif family == "binomial_logit":
            n = new["trials"]
            mu, var = n * special.expit(eta), n * special.expit(eta) * special.expit(-eta)
            logp = stats.binom.logpmf(y, n, special.expit(eta))
        elif family == "poisson_log":
            rate = np.exp(eta + new["offset"] + np.log(new["exposure"]))
            mu, var = rate, rate
            logp = stats.poisson.logpmf(y, rate)
        elif family == "negative_binomial_log":
            rate = np.exp(eta + new["offset"] + np.log(new["exposure"]))
            phi = d["phi"][:, None]
            mu, var = rate, rate + rate**2 / phi
            logp = stats.nbinom.logpmf(y, phi, phi / (phi + rate))
        elif family == "lognormal":
            sigma = d["sigma"][:, None]
            mu, var = np.exp(eta + sigma**2 / 2), np.expm1(sigma**2) * np.exp(2 * eta + sigma**2)
            logp = stats.lognorm.logpdf(y, s=sigma, scale=np.exp(eta))
        elif family == "gamma_log":
            a = d["shape"][:, None]
            mu = np.exp(eta)
            var = mu**2 / a
            logp = stats.gamma.logpdf(y, a, scale=mu / a)
        elif family == "beta_logit":
            phi = d["phi"][:, None]
            mu = special.expit(eta)
            var = mu * (1 - mu) / (1 + phi)
            logp = stats.beta.logpdf(y, mu * phi, (1 - mu) * phi)
        else:
            sigma = d["sigma"][:, None]
            mu, var = eta, np.broadcast_to(sigma**2, eta.shape)
            logp = stats.norm.logpdf(y, eta, sigma)
        mean = mu.mean(axis=0)
        for i, row in enumerate(got):
            with self.subTest(family=family, row=i):
                scale = max(1.0, abs(mean[i]))
                self.assertLessEqual(abs(float(row["mean"]) - mean[i]), 1e-10 * scale)
                self.assertLessEqual(abs(float(row["sd"]) - mu[:, i].std(ddof=1)), 1e-8 * scale)
                self.assertLessEqual(abs(float(row["q05"]) - quantile(mu[:, i], 0.05)), 1e-10 * scale)
                self.assertLessEqual(abs(float(row["q95"]) - quantile(mu[:, i], 0.95)), 1e-10 * scale)
                if var is None:
                    self.assertNotIn("predictive_sd", row)
                else:
                    psd = np.sqrt(mu[:, i].var() + var[:, i].mean())
                    self.assertLessEqual(abs(float(row["predictive_sd"]) - psd), 1e-8 * max(1.0, psd))
        lpd = special.logsumexp(logp, axis=0) - np.log(logp.shape[0])
        self.assertEqual(m["rows"], 25)
        self.assertEqual(m["draws"], 400)
        self.assertLessEqual(abs(m["mean_log_predictive_density"] - lpd.mean()), 1e-9 * abs(lpd.mean()))
        if family == "bernoulli_probit":
            self.assertAlmostEqual(m["accuracy"], np.mean((mean >= 0.5) == (y == 1)))
            self.assertAlmostEqual(m["brier"], np.mean((mean - y) ** 2), delta=1e-12)
            pos, neg = mean[y == 1], mean[y == 0]
            auc = np.mean([(a > b) + 0.5 * (a == b) for a in pos for b in neg])
            self.assertAlmostEqual(m["roc_auc"], auc, delta=1e-12)
        else:
            self.assertAlmostEqual(m["rmse"], np.sqrt(np.mean((mean - y) ** 2)), delta=1e-10 * max(1, m["rmse"]))
            self.assertAlmostEqual(m["mae"], np.mean(np.abs(mean - y)), delta=1e-10 * max(1, m["mae"]))
        return cfg

    def test_bernoulli_probit(self):
        self.check_family("bernoulli_probit")

    def test_binomial_logit(self):
        cfg = self.check_family("binomial_logit")
        # New rows without the trials column: 65 at FILE:1; a response above its trials: 65 at its line.
        self.write("notrials.csv", "x1,x2,x3,y\n0.1,0.2,0.3,1\n")
        self.assert_error(run(["predict", cfg, "--fit", self.path("fit"), "--data", self.path("notrials.csv")]), 65,
                          where=self.path("notrials.csv") + ":1", contains="'trials'")
        self.write("over.csv", "x1,x2,x3,trials,y\n0.1,0.2,0.3,4,1\n0.1,0.2,0.3,4,5\n")
        self.assert_error(run(["predict", cfg, "--fit", self.path("fit"), "--data", self.path("over.csv")]), 65,
                          where=self.path("over.csv") + ":3", contains="trials")

    def test_poisson_log_with_offset_and_exposure(self):
        cfg = self.check_family("poisson_log")
        self.write("noexp.csv", "x1,x2,x3,offset,y\n0.1,0.2,0.3,0,1\n")
        self.assert_error(run(["predict", cfg, "--fit", self.path("fit"), "--data", self.path("noexp.csv")]), 65,
                          where=self.path("noexp.csv") + ":1", contains="'exposure'")
        self.write("negy.csv", "x1,x2,x3,offset,exposure,y\n0.1,0.2,0.3,0,1,-2\n")
        self.assert_error(run(["predict", cfg, "--fit", self.path("fit"), "--data", self.path("negy.csv")]), 65,
                          where=self.path("negy.csv") + ":2", contains="non-negative integer")

    def test_normal(self):
        self.check_family("normal")

    def test_negative_binomial_log(self):
        cfg = self.check_family("negative_binomial_log")
        self.write("frac.csv", "x1,x2,x3,offset,exposure,y\n0.1,0.2,0.3,0,1,2\n0.1,0.2,0.3,0,1,2.5\n")
        self.assert_error(run(["predict", cfg, "--fit", self.path("fit"), "--data", self.path("frac.csv")]), 65,
                          where=self.path("frac.csv") + ":3", contains="non-negative integer")

    def test_lognormal(self):
        cfg = self.check_family("lognormal")
        self.write("zero.csv", "x1,x2,x3,y\n0.1,0.2,0.3,2\n0.1,0.2,0.3,0\n")
        self.assert_error(run(["predict", cfg, "--fit", self.path("fit"), "--data", self.path("zero.csv")]), 65,
                          where=self.path("zero.csv") + ":3", contains="positive")

    def test_gamma_log(self):
        cfg = self.check_family("gamma_log")
        self.write("neg.csv", "x1,x2,x3,y\n0.1,0.2,0.3,2\n0.1,0.2,0.3,-1\n")
        self.assert_error(run(["predict", cfg, "--fit", self.path("fit"), "--data", self.path("neg.csv")]), 65,
                          where=self.path("neg.csv") + ":3", contains="positive")

    def test_beta_logit(self):
        cfg = self.check_family("beta_logit")
        self.write("one.csv", "x1,x2,x3,y\n0.1,0.2,0.3,0.5\n0.1,0.2,0.3,1\n")
        self.assert_error(run(["predict", cfg, "--fit", self.path("fit"), "--data", self.path("one.csv")]), 65,
                          where=self.path("one.csv") + ":3", contains="strictly between 0 and 1")


if __name__ == "__main__":
    unittest.main()
