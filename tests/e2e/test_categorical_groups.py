"""categorical_logit with group effects (brms's `y ~ x + (1 | g)` with family categorical):
each non-reference category k has its own varying effects r_g.k.l.e, sds sd_g.k.e and correlations
cor_g.k.i.j. eval's log joint and gradient against numpy/scipy written here (softmax, scipy's norm,
halfnorm and multivariate_normal, the LKJ density of multilevel_models.py) for (1 + x1 | g) with
reference 2 and (1 | g); a simulated fit (3 categories, 30 groups, 3000 rows) covering the truth,
sds within a sensible range; the same bits on 1 and 2 threads and 1 and 2 MPI ranks; predict for
known groups against the softmax of draws.csv and for new groups against a population draw made
here; the refusals that remain (the exact method, the structured and sparse families; loo and kfold
run: test_categorical_loo.py).
About 25 CPU-seconds."""
import json
import os
import shutil
import subprocess
import unittest

import numpy as np
from scipy import special, stats

from bvi_test import BINARY, BinaryTestCase, read_csv_rows, run
from multilevel_models import lkj_cholesky_logpdf

MPIRUN = shutil.which("mpirun")
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
K = 3
TRUE_ALPHA = {2: 0.3, 3: -0.4}
TRUE_BETA = {2: [0.8, -0.5], 3: [-0.6, 0.4]}
TRUE_SD = {2: 0.8, 3: 0.5}


def simulate(rows, groups, seed):
    """x1, x2 ~ N(0, 1), group g01 ... by row, r_k[g] ~ N(0, TRUE_SD[k]), y ~ softmax(0, eta_2, eta_3)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, 2))
    g = rng.integers(0, groups, rows)
    r = {k: TRUE_SD[k] * rng.standard_normal(groups) for k in (2, 3)}
    eta = np.zeros((rows, K))
    for k in (2, 3):
        eta[:, k - 1] = TRUE_ALPHA[k] + x @ np.array(TRUE_BETA[k]) + r[k][g]
    p = special.softmax(eta, axis=1)
    u = rng.random(rows)
    y = 1 + (u[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    return x, g, y, r


def write_csv(path, x, g, y):
    with open(path, "w") as f:
        f.write("x1,x2,g,y\n")
        for i in range(len(y)):
            f.write("%r,%r,g%02d,%d\n" % (x[i, 0], x[i, 1], g[i] + 1, y[i]))


def params_csv(names, points):
    return ",".join(names) + "\n" + "".join(",".join(repr(float(p[n])) for n in names) + "\n" for p in points)


def read_draws(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith("#")]
    header = lines[0].strip().split(",")
    return header, np.array([[float(v) for v in l.split(",")] for l in lines[2:]])  # row 1: q's mean


class EvalReference:
    """log p(y, theta) with eta_k = alpha.k + x . beta.k + sum_e Z_e r_g.k.[g].e for k != ref, priors
    alpha ~ N(0, 5), beta ~ N(0, 2), sd ~ half_normal(1.5), cor ~ lkj(2), r as the model says."""

    def __init__(self, x, g, y, G, ref, slope):
        self.x, self.g, self.y, self.G, self.ref, self.slope = x, g, y, G, ref, slope
        self.E = 2 if slope else 1
        self.cats = [k for k in range(1, K + 1) if k != ref]
        self.Z = np.column_stack([np.ones(len(y)), x[:, 0]]) if slope else np.ones((len(y), 1))

    def names(self):
        c = self.cats
        out = ["alpha.%d" % k for k in c] + ["beta.%d.%d" % (k, j) for j in (1, 2) for k in c]
        out += ["sd_g.%d.%d" % (k, e + 1) for k in c for e in range(self.E)]
        if self.slope:
            out += ["cor_g.%d.2.1" % k for k in c]
        out += ["r_g.%d.%d.%d" % (k, l + 1, e + 1) for k in c for l in range(self.G) for e in range(self.E)]
        return out

    def log_joint(self, p):
        eta = np.zeros((len(self.y), K))
        lp = 0.0
        for k in self.cats:
            beta = np.array([p["beta.%d.%d" % (k, j)] for j in (1, 2)])
            lp += stats.norm.logpdf(p["alpha.%d" % k], 0, 5) + stats.norm.logpdf(beta, 0, 2).sum()
            sd = np.array([p["sd_g.%d.%d" % (k, e + 1)] for e in range(self.E)])
            lp += stats.halfnorm.logpdf(sd, 0, 1.5).sum()
            r = np.array([[p["r_g.%d.%d.%d" % (k, l + 1, e + 1)] for e in range(self.E)] for l in range(self.G)])
            if self.slope:
                rho = p["cor_g.%d.2.1" % k]
                omega = np.array([[1.0, rho], [rho, 1.0]])
                lp += lkj_cholesky_logpdf(np.linalg.cholesky(omega), 2.0)
                lp += stats.multivariate_normal(np.zeros(2), np.diag(sd) @ omega @ np.diag(sd)).logpdf(r).sum()
            else:
                lp += stats.norm.logpdf(r, 0, sd[None, :]).sum()
            eta[:, k - 1] = p["alpha.%d" % k] + self.x @ beta + (self.Z * r[self.g]).sum(axis=1)
        return lp + (eta[np.arange(len(self.y)), self.y - 1] - special.logsumexp(eta, axis=1)).sum()

    def gradient(self, p, h=1e-6):
        out = {}
        for n in self.names():
            up, dn = dict(p), dict(p)
            step = h * max(1.0, abs(p[n]))
            up[n] += step
            dn[n] -= step
            out[n] = (self.log_joint(up) - self.log_joint(dn)) / (2 * step)
        return out

    def random_point(self, rng):
        p = {n: 0.4 * rng.standard_normal() for n in self.names()}
        for n in p:
            if n.startswith("sd_"):
                p[n] = 0.3 + abs(0.5 * rng.standard_normal())
            if n.startswith("cor_"):
                p[n] = np.tanh(rng.standard_normal())
        return p


class CategoricalGroups(BinaryTestCase):
    def data(self, rows, groups, seed, name="data.csv"):
        x, g, y, r = simulate(rows, groups, seed)
        path = self.path(name)
        write_csv(path, x, g, y)
        return path, x, g, y, r

    def test_eval_against_numpy(self):
        csv, x, g, y, _ = self.data(240, 6, 3)
        rng = np.random.default_rng(5)
        for ref, slope in ((2, True), (1, False)):
            with self.subTest(ref=ref, slope=slope):
                term = "(1 + x1 | g)" if slope else "(1 | g)"
                priors = {"alpha": {"normal": {"loc": 0, "scale": 5}}, "beta": {"normal": {"loc": 0, "scale": 2}},
                          "sd_g": {"half_normal": {"scale": 1.5}}}
                if slope:
                    priors["cor_g"] = {"lkj": {"eta": 2}}
                cfg = {"data": {"csv": csv},
                       "model": {"likelihood": "categorical_logit", "formula": "y ~ x1 + x2 + " + term,
                                 "reference_category": ref, "priors": priors}}
                ref_model = EvalReference(x, g, y, 6, ref, slope)
                names = ref_model.names()
                points = [ref_model.random_point(rng) for _ in range(2)]
                p = run(["eval", self.write_config(cfg), "--grad", "--params", "-"], stdin=params_csv(names, points))
                self.assertEqual(p.returncode, 0, p.stderr)
                out = read_csv_rows(p.stdout)
                self.assertEqual(sorted(k[5:] for k in out[0] if k.startswith("grad.")), sorted(names))
                for row, pt in zip(out, points):
                    lp = ref_model.log_joint(pt)
                    self.assertLessEqual(abs(float(row["log_joint"]) - lp), 1e-10 * abs(lp), (row["log_joint"], lp))
                    grad = ref_model.gradient(pt)
                    scale = max(1.0, max(abs(v) for v in grad.values()))
                    for n in names:
                        self.assertLessEqual(abs(float(row["grad." + n]) - grad[n]), 2e-5 * scale,
                                             (n, row["grad." + n], grad[n]))

    def fit_config(self, csv, **inference):
        return {"data": {"csv": csv},
                "model": {"likelihood": "categorical_logit", "formula": "y ~ x1 + x2 + (1 | g)"},
                "inference": dict({"seed": 3}, **inference)}

    def test_fit_covers_the_truth(self):
        csv, _, _, _, r = self.data(3000, 30, 11)
        p = run(["fit", self.write_config(self.fit_config(csv)), "--quiet", "--threads", "1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        s = json.loads(p.stdout)
        self.assertEqual(s["method"], "monte_carlo")
        got = {q["name"]: q for q in s["parameters"]}
        self.assertEqual(got["sd_g.2.1"]["label"], "g: sd(mu2_(Intercept))")
        self.assertEqual(got["r_g.3.4.1"]["label"], "g[g04]:mu3_(Intercept)")
        truth = {"alpha.%d" % k: v for k, v in TRUE_ALPHA.items()}
        truth.update({"beta.%d.%d" % (k, j + 1): TRUE_BETA[k][j] for k in (2, 3) for j in range(2)})
        for name, value in truth.items():
            with self.subTest(parameter=name):
                self.assertLessEqual(abs(got[name]["mean"] - value), 3.5 * got[name]["sd"], got[name])
        for k, sd in TRUE_SD.items():
            with self.subTest(sd=k):
                q = got["sd_g.%d.1" % k]
                self.assertGreater(q["mean"], 0.6 * sd, q)
                self.assertLess(q["mean"], 1.5 * sd, q)
                self.assertLess(q["q05"], sd, q)
                self.assertGreater(q["q95"], sd, q)
            # The groups' effects themselves: the posterior means follow the true ones.
            est = np.array([got["r_g.%d.%d.1" % (k, l + 1)]["mean"] for l in range(30)])
            self.assertGreater(np.corrcoef(est, r[k])[0, 1], 0.6)

    def test_threads_and_ranks(self):
        csv = self.data(1200, 12, 4)[0]
        cfg = self.fit_config(csv, output_draws=100)
        config = self.write_config(cfg)
        one = run(["fit", config, "--quiet", "--threads", "1"])
        self.assertEqual(one.returncode, 0, one.stderr)
        two = run(["fit", config, "--quiet", "--threads", "2"])
        self.assertEqual(two.returncode, 0, two.stderr)

        def numbers(text):
            return {k: v for k, v in json.loads(text).items() if k not in ("seconds", "threads", "ranks")}
        self.assertEqual(numbers(one.stdout), numbers(two.stdout))
        if MPIRUN:
            mpi = subprocess.run([MPIRUN, "--oversubscribe", "-n", "2", BINARY, "fit", config, "--quiet", "--threads",
                                  "1"], capture_output=True, text=True, timeout=300, env=MPI_ENV)
            self.assertEqual(mpi.returncode, 0, mpi.stderr)
            self.assertEqual(numbers(one.stdout), numbers(mpi.stdout))

    def test_predict_known_and_new_groups(self):
        csv, x, g, y, _ = self.data(1200, 12, 8)
        cfg = self.fit_config(csv, output_draws=1000)
        cfg["model"]["formula"] = "y ~ x1 + x2 + (1 + x1 | g)"
        config = self.write_config(cfg)
        out = self.path("fit")
        p = run(["fit", config, "--quiet", "--threads", "1", "--output", out])
        self.assertEqual(p.returncode, 0, p.stderr)
        header, draws = read_draws(os.path.join(out, "draws.csv"))
        col = {n: i for i, n in enumerate(header)}
        # New rows: the first 40 rows' groups, then 20 rows of two new groups.
        rng = np.random.default_rng(2)
        xn = np.vstack([x[:40], rng.standard_normal((20, 2))])
        labels = ["g%02d" % (v + 1) for v in g[:40]] + ["new_a"] * 10 + ["new_b"] * 10
        with open(self.path("new.csv"), "w") as f:
            f.write("x1,x2,g\n" + "".join("%r,%r,%s\n" % (a, b, l) for (a, b), l in zip(xn, labels)))
        p = run(["predict", config, "--fit", out, "--data", self.path("new.csv"), "--seed", "4"])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = read_csv_rows(p.stdout)
        got = np.array([[float(r["p_%d" % (k + 1)]) for k in range(K)] for r in rows])
        S = len(draws)
        eta = np.zeros((S, 60, K))
        for k in (2, 3):
            a = draws[:, col["alpha.%d" % k]]
            b = draws[:, [col["beta.%d.%d" % (k, j)] for j in (1, 2)]]
            eta[:, :, k - 1] = a[:, None] + b @ xn.T
            for i in range(40):
                l = g[i] + 1
                eta[:, i, k - 1] += draws[:, col["r_g.%d.%d.1" % (k, l)]] + xn[i, 0] * draws[:, col["r_g.%d.%d.2" % (k, l)]]
        known = special.softmax(eta[:, :40], axis=2).mean(axis=0)
        np.testing.assert_allclose(got[:40], known, rtol=1e-9, atol=1e-12)
        self.assertEqual([int(r["category"]) for r in rows[:40]], list(known.argmax(axis=1) + 1))
        # A new group: per draw, effects from N(0, diag(sd) Omega diag(sd)) of its category, drawn here
        # with numpy (another stream: the same law, so agreement to Monte Carlo error).
        zrng = np.random.default_rng(9)
        for first in (40, 50):
            pops = []
            for rep in range(4):
                e = eta[:, first:first + 10].copy()
                for k in (2, 3):
                    sd = draws[:, [col["sd_g.%d.1" % k], col["sd_g.%d.2" % k]]]
                    rho = draws[:, col["cor_g.%d.2.1" % k]]
                    z1, z2 = zrng.standard_normal(S), zrng.standard_normal(S)
                    u0 = sd[:, 0] * z1
                    u1 = sd[:, 1] * (rho * z1 + np.sqrt(1 - rho ** 2) * z2)
                    e[:, :, k - 1] += u0[:, None] + u1[:, None] * xn[None, first:first + 10, 0]
                pops.append(special.softmax(e, axis=2).mean(axis=0))
            pop = np.mean(pops, axis=0)
            np.testing.assert_allclose(got[first:first + 10], pop, atol=0.04)
        np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-12)
        again = run(["predict", config, "--fit", out, "--data", self.path("new.csv"), "--seed", "4"])
        self.assertEqual(again.stdout, p.stdout)
        # With responses: the metrics are those of the probabilities; replicates (from the draws, group
        # effects included) as frequent as the probabilities say.
        p = run(["predict", config, "--fit", out, "--metrics", self.path("m.json"), "--replicates", "200",
                 self.path("rep.csv")])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = read_csv_rows(p.stdout)
        probs = np.array([[float(r["p_%d" % (k + 1)]) for k in range(K)] for r in rows])
        with open(self.path("m.json")) as f:
            metrics = json.load(f)
        self.assertAlmostEqual(metrics["log_loss"], -np.log(probs[np.arange(len(y)), y - 1]).mean(), places=6)
        reps = np.loadtxt(self.path("rep.csv"), delimiter=",", skiprows=1)
        self.assertEqual(reps.shape, (200, len(y)))
        # Per group: the replicated categories' frequencies against the rows' mean probabilities.
        for l in range(3):
            rows_l = g == l
            for k in range(K):
                self.assertLess(abs((reps[:, rows_l] == k + 1).mean() - probs[rows_l, k].mean()), 0.03)

    def test_refusals(self):
        csv = self.data(300, 6, 1)[0]

        def refused(change, where, contains, command=("check",)):
            cfg = self.fit_config(csv)
            change(cfg)
            self.assert_error(run(list(command[:1]) + [self.write_config(cfg)] + list(command[1:])), 78,
                              where=where, contains=contains)
        refused(lambda c: c["inference"].update(method="exact"), "/inference/method", "monte_carlo")
        refused(lambda c: c["inference"].update(algorithm="structured"), "/inference/algorithm", None)
        # The sparse family is the Monte Carlo method's too, with the natural optimizer only.
        refused(lambda c: c["inference"].update(algorithm="sparse", optimizer={"name": "adam"}),
                "/inference/algorithm", "natural")

    def test_check_says_the_effects_are_per_category(self):
        csv, _, _, _, _ = self.data(300, 10, 5)
        p = run(["check", self.write_config(self.fit_config(csv))])
        self.assertEqual(p.returncode, 0, p.stderr)
        levels = len(set(line.split(",")[-1] for line in open(csv).read().split()[1:]))
        self.assertIn("per non-reference category: %d sets" % (levels - 1), p.stdout)


if __name__ == "__main__":
    unittest.main()
