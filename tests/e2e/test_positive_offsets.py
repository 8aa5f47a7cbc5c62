"""data.offset and data.exposure for lognormal and gamma_log: eval --grad against scipy.stats with
lambda = eta + offset + log exposure (lognorm(s = sigma, scale = e^lambda), gamma(a = k, scale =
e^lambda / k)), the same through `offset(col)` in a formula, the exact fit recovering the truth
when the rows' exposures vary twentyfold, predict's means carrying the new rows' exposure, and
lognormal's default priors on log y - offset."""
import json
import unittest

import numpy as np
from scipy import special, stats

from bvi_test import BinaryTestCase, read_csv_rows, run

ALPHA, BETA, SIGMA, SHAPE = 0.4, np.array([0.6, -0.3]), 0.5, 3.0


def simulate(family, n, seed):
    rng = np.random.default_rng(seed)
    x = np.round(rng.standard_normal((n, 2)), 4)
    off = np.round(0.3 * rng.standard_normal(n), 4)
    exposure = np.round(rng.uniform(0.1, 2.0, n), 4)
    lam = ALPHA + x @ BETA + off + np.log(exposure)
    if family == "lognormal":
        y = np.exp(lam + SIGMA * rng.standard_normal(n))
    else:
        y = rng.gamma(SHAPE, np.exp(lam) / SHAPE)
    return {"x1": x[:, 0], "x2": x[:, 1], "off": off, "exposure": exposure, "y": y}


class PositiveOffsets(BinaryTestCase):
    def write_data(self, cols, name):
        path = self.path(name)
        with open(path, "w") as f:
            f.write(",".join(cols) + "\n")
            for i in range(len(cols["y"])):
                f.write(",".join(repr(float(cols[c][i])) for c in cols) + "\n")
        return path

    def config(self, family, csv, formula=False):
        own = "sigma" if family == "lognormal" else "shape"
        priors = {"alpha": {"normal": {"loc": 0, "scale": 5}}, "beta": {"normal": {"loc": 0, "scale": 2.5}},
                  own: {"gamma": {"shape": 2, "rate": 1}}}
        if formula:
            return {"data": {"csv": csv, "exposure": "exposure"},
                    "model": {"likelihood": family, "formula": "y ~ x1 + x2 + offset(off)", "priors": priors}}
        return {"data": {"csv": csv, "response": "y", "features": ["x1", "x2"], "offset": "off",
                         "exposure": "exposure"},
                "model": {"likelihood": family, "intercept": True, "priors": priors}}

    def test_eval_against_scipy(self):
        for family in ("lognormal", "gamma_log"):
            cols = simulate(family, 60, 1)
            csv = self.write_data(cols, family + ".csv")
            points = np.array([[0.3, 0.5, -0.2, 0.7], [-0.1, 0.2, 0.4, 2.5]])
            params = "alpha,beta.1,beta.2,%s\n" % ("sigma" if family == "lognormal" else "shape")
            params += "".join(",".join(repr(v) for v in p) + "\n" for p in points)
            for formula in (False, True):
                with self.subTest(family=family, formula=formula):
                    p = run(["eval", self.write_config(self.config(family, csv, formula)), "--grad", "--params", "-"],
                            stdin=params)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    for row, (a, b1, b2, s) in zip(read_csv_rows(p.stdout), points):
                        x = np.column_stack([cols["x1"], cols["x2"]])
                        lam = a + x @ [b1, b2] + cols["off"] + np.log(cols["exposure"])
                        y = cols["y"]
                        if family == "lognormal":
                            ll = stats.lognorm.logpdf(y, s=s, scale=np.exp(lam))
                            g = (np.log(y) - lam) / s**2
                        else:
                            ll = stats.gamma.logpdf(y, s, scale=np.exp(lam) / s)
                            g = s * (y * np.exp(-lam) - 1)
                        lp = (ll.sum() + stats.norm.logpdf(a, 0, 5) + stats.norm.logpdf([b1, b2], 0, 2.5).sum()
                              + stats.gamma.logpdf(s, 2, scale=1.0))
                        self.assertLessEqual(abs(float(row["log_joint"]) - lp), 1e-9 * abs(lp))
                        self.assertAlmostEqual(float(row["grad.alpha"]), g.sum() - a / 25, delta=1e-8 * abs(g).sum())
                        self.assertAlmostEqual(float(row["grad.beta.1"]), x[:, 0] @ g - b1 / 6.25,
                                               delta=1e-8 * abs(g).sum())

    def test_exact_fit_recovers_the_truth_and_predict_uses_the_exposure(self):
        for family in ("lognormal", "gamma_log"):
            with self.subTest(family=family):
                cols = simulate(family, 500, 2)
                cfg = self.write_config(self.config(family, self.write_data(cols, "fit.csv")), family + ".json")
                p = run(["fit", cfg, "--quiet", "--output", self.path("fit_" + family)])
                self.assertEqual(p.returncode, 0, p.stderr)
                s = json.loads(p.stdout)
                self.assertEqual(s["method"], "exact")
                self.assertTrue(s["converged"])
                got = {q["name"]: q for q in s["parameters"]}
                own = ("sigma", SIGMA) if family == "lognormal" else ("shape", SHAPE)
                for name, t in (("alpha", ALPHA), ("beta.1", BETA[0]), ("beta.2", BETA[1]), own):
                    self.assertLessEqual(abs(got[name]["mean"] - t), 4 * got[name]["sd"], (name, got[name], t))
                # Doubling a new row's exposure doubles its predicted mean (gamma) or median (lognormal).
                new = {k: v[:4].copy() for k, v in cols.items()}
                new["exposure"][2:] = 2 * new["exposure"][:2]
                for k in ("x1", "x2", "off", "y"):
                    new[k][2:] = new[k][:2]
                p = run(["predict", cfg, "--fit", self.path("fit_" + family), "--data", self.write_data(new, "new.csv")])
                self.assertEqual(p.returncode, 0, p.stderr)
                mean = [float(r["mean"]) for r in read_csv_rows(p.stdout)]
                for i in (0, 1):
                    self.assertAlmostEqual(mean[i + 2] / mean[i], 2.0, delta=1e-12)

    def test_lognormal_default_priors_are_on_log_y_minus_the_offset(self):
        cols = simulate("lognormal", 200, 3)
        cfg = self.config("lognormal", self.write_data(cols, "d.csv"))
        del cfg["model"]["priors"]
        p = run(["check", self.write_config(cfg), "--explain"])
        self.assertEqual(p.returncode, 0, p.stderr)
        priors = json.loads(p.stdout)["model"]["priors"]
        r = np.log(cols["y"]) - cols["off"] - np.log(cols["exposure"])
        self.assertAlmostEqual(priors["alpha"]["student_t"]["loc"], r.mean(), delta=1e-12)
        self.assertAlmostEqual(priors["sigma"]["exponential"]["rate"], 1 / r.std(ddof=1), delta=1e-10)


if __name__ == "__main__":
    unittest.main()
