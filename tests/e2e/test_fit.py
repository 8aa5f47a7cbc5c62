"""bayes-vi fit end to end: the seed notebook's numbers, the summary document, elbo.csv, and
reproducibility (SPEC.md's "Commands", "The summary document", "Files", "Reproducibility").

Reference values are the notebook's exact Gauss-Hermite mean-field optimum
(data/seed_meanfield_optimum.csv, ELBO -73.779), the full-rank optimum of the same problem from
tests/reference/vi_optimum.py (ELBO -72.863193), the normal quantile 1.6449 and SPEC.md's own
rules; nothing here is taken from an earlier run of the binary."""
import json
import math
import os
import pty
import subprocess
import tempfile
import threading
import unittest

from bvi_fit import (PARAMETER_KEYS, RUN_KEYS, SEED_CONFIG, SEED_OPTIMUM_ELBO, SUMMARY_KEYS, Z95,
                     load_json, non_finite_tokens, parse_summary, read_draws, read_elbo_csv,
                     read_optimum_csv, run_fit, seed_config, write_synthetic_csv)
from bvi_test import BINARY, BinaryTestCase

OUTPUT_FILES = ["draws.csv", "elbo.csv", "summary.json"]
# tests/reference/README.md: vi_optimum.py's optima of the seed problem, to six decimals.
SEED_MEANFIELD_ELBO, SEED_FULLRANK_ELBO = -73.779242, -72.863193

_shared = {}


def seed_run():
    """One run of `bayes-vi fit configs/seed_logistic.json --output DIR`, shared by the tests that
    only read its outputs: (CompletedProcess, DIR)."""
    if "seed" not in _shared:
        _shared["tmp"] = tempfile.TemporaryDirectory()
        out = os.path.join(_shared["tmp"].name, "out")
        _shared["seed"] = (run_fit([SEED_CONFIG, "--output", out]), out)
    return _shared["seed"]


def tearDownModule():
    if "tmp" in _shared:
        _shared["tmp"].cleanup()


def without(doc, keys):
    return {k: v for k, v in doc.items() if k not in keys}


class SeedNotebook(BinaryTestCase):
    def test_sgd_config_reaches_the_notebook_optimum(self):
        p, _ = seed_run()
        self.assertEqual(p.returncode, 0, p.stderr)
        s = parse_summary(p.stdout)
        ref = read_optimum_csv()
        self.assertEqual([q["name"] for q in s["parameters"]], list(ref))
        self.assertLessEqual(abs(s["elbo"] - SEED_OPTIMUM_ELBO), 0.15, s["elbo"])
        for q in s["parameters"]:
            self.assertLessEqual(abs(q["mean"] - ref[q["name"]][0]), 0.05, q)
        # tol_rel_obj null runs every iteration, so the stopping rule never fires.
        self.assertEqual((s["iterations"], s["converged"]), (1000, False))
        self.assertEqual((s["algorithm"], s["seed"]), ("meanfield", 10003))

    def test_default_settings_reach_the_optimum(self):
        # The defaults: the exact method, and fullrank, which is cheap at 100 rows x 10 features.
        cfg = self.write_config(seed_config(inference=None))
        p = run_fit([cfg])
        self.assertEqual(p.returncode, 0, p.stderr)
        s = parse_summary(p.stdout)
        self.assertEqual((s["method"], s["algorithm"]), ("exact", "fullrank"))
        self.assertTrue(s["algorithm_choice"].startswith("auto: fullrank"), s["algorithm_choice"])
        self.assertTrue(s["converged"])
        self.assertAlmostEqual(s["elbo"], SEED_FULLRANK_ELBO, delta=1e-6)
        self.assertEqual(s["elbo_se"], 0.0)
        # Meanfield's exact optimum, the notebook's reference, to its printed six decimals.
        cfg = self.write_config(seed_config(inference={"algorithm": "meanfield"}))
        p = run_fit([cfg])
        self.assertEqual(p.returncode, 0, p.stderr)
        s = parse_summary(p.stdout)
        ref = read_optimum_csv()
        self.assertEqual(sorted(q["name"] for q in s["parameters"]), sorted(ref))
        for q in s["parameters"]:
            m, sd = ref[q["name"]]
            self.assertLessEqual(abs(q["mean"] - m), 1e-6, q)
            self.assertLessEqual(abs(q["sd"] - sd), 1e-6, q)
        self.assertAlmostEqual(s["elbo"], SEED_MEANFIELD_ELBO, delta=1e-6)
        self.assertLessEqual(s["passes"], 200)


class SummaryDocument(BinaryTestCase):
    def setUp(self):
        super().setUp()
        self.proc, self.out = seed_run()
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        self.summary = parse_summary(self.proc.stdout)

    def assert_type(self, value, kind, what):
        if kind is float:  # a JSON number; 3.0 may come back as 3
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        elif kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        else:
            ok = isinstance(value, kind)
        self.assertTrue(ok, "%s: expected %s, got %r" % (what, kind.__name__, value))

    def test_stdout_is_exactly_one_json_document(self):
        self.assertTrue(self.proc.stdout.endswith("\n"))
        self.assertIsInstance(json.loads(self.proc.stdout), dict)  # parse_summary already refused more

    def test_keys_and_types_of_the_spec_table(self):
        s = self.summary
        for key, kind in SUMMARY_KEYS.items():
            self.assertIn(key, s)
            self.assert_type(s[key], kind, key)
        self.assertGreater(s["elbo_se"], 0)
        self.assertGreaterEqual(s["seconds"], 0)
        self.assertGreaterEqual(s["threads"], 1)
        self.assertEqual(s["ranks"], 1)
        self.assertEqual(len(s["parameters"]), 10)
        for i, q in enumerate(s["parameters"], start=1):
            # "label" (beyond SPEC.md) names every labelled parameter; a coefficient's is its feature.
            self.assertEqual(set(q) - {"label"}, set(PARAMETER_KEYS), q)
            self.assertEqual(q["label"], q["feature"])
            for key, kind in PARAMETER_KEYS.items():
                self.assert_type(q[key], kind, "%s.%s" % (q["name"], key))
            # CmdStan's names; the feature is the CSV's column name.
            self.assertEqual((q["name"], q["feature"]), ("beta.%d" % i, "x%d" % i))
            self.assertGreater(q["sd"], 0)

    def test_default_threads_are_the_cores_available(self):
        env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
        p = run_fit([SEED_CONFIG, "--quiet"], env=env)
        self.assertEqual(parse_summary(p.stdout)["threads"], len(os.sched_getaffinity(0)))

    def test_quantiles_are_those_of_a_normal_marginal(self):
        for q in self.summary["parameters"]:
            self.assertLess(q["q05"], q["q50"])
            self.assertLess(q["q50"], q["q95"])
            tol = 1e-12 * (abs(q["mean"]) + q["sd"])
            self.assertLessEqual(abs(q["q50"] - q["mean"]), tol, q)
            self.assertLessEqual(abs(q["q95"] - q["q05"] - 2 * Z95 * q["sd"]), 1e-9 * q["sd"], q)
            self.assertLessEqual(abs(q["q05"] - (q["mean"] - Z95 * q["sd"])), 1e-9 * q["sd"], q)

    def test_no_non_finite_number_anywhere(self):
        self.assertEqual(non_finite_tokens(self.proc.stdout), [])
        for k, v in self.summary.items():
            if k in SUMMARY_KEYS:
                self.assertIsNotNone(v, k)
        for name in OUTPUT_FILES:
            with open(os.path.join(self.out, name)) as f:
                self.assertEqual(non_finite_tokens(f.read()), [], name)

    def test_output_folder_holds_the_summary_draws_and_trace(self):
        self.assertEqual(sorted(os.listdir(self.out)), OUTPUT_FILES)
        with open(os.path.join(self.out, "summary.json")) as f:
            self.assertEqual(f.read(), self.proc.stdout)

    def test_stderr_carries_only_log_lines(self):
        for line in self.proc.stderr.splitlines():
            self.assertTrue(line.startswith("bayes-vi: "), line)

    def test_quiet_leaves_stderr_empty(self):
        p = run_fit([SEED_CONFIG, "--quiet"])
        self.assertEqual(p.returncode, 0)
        self.assertEqual(p.stderr, "")
        self.assertEqual(without(parse_summary(p.stdout), RUN_KEYS), without(self.summary, RUN_KEYS))

    def test_progress_on_a_terminal_goes_to_stderr_not_stdout(self):
        # The progress line is drawn only when stderr is a terminal: give it one, keep stdout a pipe.
        cfg = seed_config(inference={"optimizer": {"name": "sgd", "learning_rate": 0.01},
                                     "max_iterations": 6000, "output_draws": 10})
        master, slave = pty.openpty()
        chunks = []

        def drain():
            while True:
                try:
                    data = os.read(master, 4096)
                except OSError:  # EIO once the child has closed its end
                    return
                if not data:
                    return
                chunks.append(data)

        reader = threading.Thread(target=drain)
        reader.start()
        try:
            p = subprocess.run([BINARY, "fit", self.write_config(cfg)], stdout=subprocess.PIPE,
                               stderr=slave, timeout=120)
        finally:
            os.close(slave)
            reader.join(timeout=10)
            os.close(master)
        self.assertEqual(p.returncode, 0)
        terminal = b"".join(chunks).decode(errors="replace")
        self.assertIn("iteration ", terminal)
        self.assertNotIn("\r", p.stdout.decode())
        self.assertNotIn("iteration ", p.stdout.decode())
        parse_summary(p.stdout.decode())

    def test_intercept_and_chosen_features(self):
        cfg = seed_config(inference={"max_iterations": 20, "output_draws": 10})
        cfg["data"]["features"] = ["x3", "x1", "x7"]
        cfg["model"]["intercept"] = True
        cfg["model"]["priors"]["alpha"] = {"normal": {"loc": 0, "scale": 10}}
        p = run_fit([self.write_config(cfg), "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        params = parse_summary(p.stdout)["parameters"]
        self.assertEqual([q["name"] for q in params], ["alpha", "beta.1", "beta.2", "beta.3"])
        self.assertIsNone(params[0].get("feature"), "the intercept has no feature")
        self.assertEqual([q["feature"] for q in params[1:]], ["x3", "x1", "x7"])


class ElboTrace(BinaryTestCase):
    def check_trace(self, path, eval_elbo, last_iteration, rows):
        header, table = read_elbo_csv(path)
        self.assertEqual(header, ["iteration", "seconds", "elbo", "rel_change"])
        its = [int(r[0]) for r in table]
        self.assertEqual(its, [eval_elbo * k for k in range(1, rows + 1)])
        self.assertEqual(its[-1], last_iteration)
        secs = [float(r[1]) for r in table]
        self.assertGreaterEqual(secs[0], 0)
        self.assertEqual(secs, sorted(secs))
        elbo = [float(r[2]) for r in table]
        self.assertTrue(all(math.isfinite(e) for e in elbo))
        self.assertEqual(table[0][3], "", "the first evaluation has no predecessor")
        for prev, cur, row in zip(elbo, elbo[1:], table[1:]):
            want = abs((prev - cur) / cur)
            self.assertLessEqual(abs(float(row[3]) - want), 1e-12 * want + 1e-300, row)

    def test_seed_run_evaluates_every_max_iterations_over_50(self):
        p, out = seed_run()
        self.assertEqual(p.returncode, 0, p.stderr)
        # SPEC's config comment: eval_elbo defaults to max(1, max_iterations / 50) = 20.
        self.check_trace(os.path.join(out, "elbo.csv"), 20, 1000, 50)

    def test_explicit_eval_elbo(self):
        cfg = seed_config(inference={"optimizer": {"name": "adam"}, "max_iterations": 100,
                                     "eval_elbo": 7, "output_draws": 10})
        out = self.path("out")
        p = run_fit([self.write_config(cfg), "--output", out, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(parse_summary(p.stdout)["iterations"], 100)
        self.check_trace(os.path.join(out, "elbo.csv"), 7, 98, 14)  # Stan's rule: multiples only


class Reproducibility(BinaryTestCase):
    """Rows are cut into blocks of at most 1024, so 2500 rows make three chunks for the threads to
    share: the sums must still come out bit for bit the same. (Few iterations: this is about
    bits, not convergence.)"""

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        csv_path = write_synthetic_csv(os.path.join(cls._tmp.name, "data.csv"), 2500, 6, seed=3,
                                       offset=2.0, scale=3.0)
        cfg = {"data": {"csv": csv_path, "response": "y", "standardize": True},
               "model": {"likelihood": "bernoulli_logit", "intercept": True,
                         "priors": {"beta": {"normal": {"loc": 0, "scale": 2.5}},
                                    "alpha": {"normal": {"loc": 0, "scale": 10}}}},
               "inference": {"seed": 77, "max_iterations": 60, "final_elbo_draws": 1000,
                             "output_draws": 300}}
        cls.configs = {}
        # meanfield and fullrank by the exact method (the default), and by Monte Carlo steps.
        for algo in ("meanfield", "fullrank"):
            for method in ("exact", "monte_carlo"):
                c = json.loads(json.dumps(cfg))
                c["inference"]["algorithm"] = algo
                c["inference"]["method"] = method
                name = algo if method == "exact" else algo + "_mc"
                cls.configs[name] = os.path.join(cls._tmp.name, name + ".json")
                with open(cls.configs[name], "w") as f:
                    json.dump(c, f)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def fit_into(self, name, algo, *args):
        out = self.path(name)
        p = run_fit([self.configs[algo], "--output", out, "--quiet"] + list(args))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "draws.csv"), "rb") as f:
            draws = f.read()
        header, trace = read_elbo_csv(os.path.join(out, "elbo.csv"))
        timeless_trace = [[r[0]] + r[2:] for r in trace]  # all but the seconds column
        return parse_summary(p.stdout), draws, timeless_trace

    def test_threads_do_not_change_a_bit(self):
        for algo, threads in (("meanfield", (1, 2, 4)), ("fullrank", (1, 4)), ("meanfield_mc", (1, 2, 4)),
                              ("fullrank_mc", (1, 4))):
            runs = {t: self.fit_into("%s%d" % (algo, t), algo, "--threads", str(t)) for t in threads}
            base = runs[threads[0]]
            for t, (summary, draws, trace) in runs.items():
                self.assertEqual(summary["threads"], t)
                self.assertEqual(draws, base[1], "%s draws.csv with --threads %d" % (algo, t))
                self.assertEqual(without(summary, RUN_KEYS), without(base[0], RUN_KEYS), (algo, t))
                self.assertEqual(trace, base[2], (algo, t))

    def test_seed_option_overrides_the_config_and_is_reported(self):
        # The exact method's approximation does not depend on the seed; its draws do.
        s77, d77, _ = self.fit_into("e77", "meanfield", "--threads", "1")
        s5, d5, _ = self.fit_into("e5", "meanfield", "--seed", "5", "--threads", "1")
        self.assertEqual((s77["seed"], s5["seed"]), (77, 5))
        self.assertNotEqual(d5, d77, "another seed, other draws")
        self.assertEqual(s5["parameters"], s77["parameters"])
        self.assertEqual(s5["elbo"], s77["elbo"])
        # The Monte Carlo method's does.
        s77, d77, _ = self.fit_into("a", "meanfield_mc", "--threads", "1")
        s5, d5, _ = self.fit_into("b", "meanfield_mc", "--seed", "5", "--threads", "1")
        self.assertEqual((s77["seed"], s5["seed"]), (77, 5))
        self.assertNotEqual(d5, d77, "another seed, other draws")
        self.assertNotEqual(s5["parameters"], s77["parameters"])
        self.assertEqual(read_draws(os.path.join(self.path("b"), "draws.csv")).settings()["seed"], "5")
        # --seed 5 over inference.seed 77 is the same run as inference.seed 5.
        cfg = load_json(self.configs["meanfield_mc"])
        cfg["inference"]["seed"] = 5
        p = run_fit([self.write_config(cfg), "--output", self.path("c"), "--quiet", "--threads", "1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.path("c"), "draws.csv"), "rb") as f:
            self.assertEqual(f.read(), d5)


if __name__ == "__main__":
    unittest.main()
