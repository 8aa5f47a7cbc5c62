"""A response far from zero for its spread: normal data near 10^8 with sd about 5. The intercept's
posterior sd is then a few thousandths, a few million spacings of doubles near 10^8, so the exact
method's fixed-point residual cannot fall to tol_grad's 1e-8 (it stayed near 1e-6 for 200
iterations and warned that the fit may not be at its optimum). The fit must say it converged,
at the resolution of double precision, without a warning, and be the same fit as to the response
less 10^8 (the intercept shifted by 10^8): within 1e-4 posterior sd in every mean, 1e-4 in every sd;
in under 25 iterations (10 and 13), where taking y - eta as y - fl(alpha + x . beta), rounded at
10^8's spacing, took 41 and 31.

A positive response far from 1 (gamma_log, y times 10^8): the intercept starts near log y's centre
rather than at 0, and both families converge in under 30 iterations (16 and 19; 47 and 98 from 0)."""
import csv
import json
import math
import unittest

from bvi_test import BinaryTestCase, run

SHIFT = 1e8


class FarLocation(BinaryTestCase):
    def fit(self, csv_name, algorithm):
        cfg = self.write_config({"data": {"csv": csv_name, "response": "y"},
                                 "model": {"likelihood": "normal", "intercept": True},
                                 "inference": {"algorithm": algorithm}},
                                "%s.%s.json" % (csv_name, algorithm))
        p = run(["fit", cfg, "--threads", "2", "--output", self.path("out_%s_%s" % (csv_name, algorithm))])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("warning", p.stderr)
        return json.loads(p.stdout)

    def rewrite_response(self, src_path, name, f):
        """A copy of the CSV at src_path in the test's folder as `name`, with y replaced by f(y)."""
        with open(src_path) as src, open(self.path(name), "w", newline="") as dst:
            rows = csv.reader(src)
            out = csv.writer(dst)
            header = next(rows)
            out.writerow(header)
            y = header.index("y")
            for row in rows:
                row[y] = repr(f(float(row[y])))
                out.writerow(row)

    def test_converges_at_double_precision_and_matches_the_shifted_fit(self):
        near = self.simulate_csv("normal", 20000, 20, "near", 3, "--intercept", "1")
        self.rewrite_response(near, "far.csv", lambda y: y + SHIFT)
        for algorithm in ("meanfield", "fullrank"):
            with self.subTest(algorithm=algorithm):
                got = self.fit("far.csv", algorithm)
                want = self.fit("near.csv", algorithm)
                self.assertTrue(got["converged"], got.get("convergence"))
                self.assertIn("spacings of doubles", got["convergence"])
                self.assertLess(got["iterations"], 25)  # 10 and 13; 41 and 31 with y - eta rounded
                self.assertGreater(got["grad_residual"], 1e-8)  # tol_grad alone is out of reach here
                ref = {p["name"]: p for p in want["parameters"]}
                for p in got["parameters"]:
                    r = ref[p["name"]]
                    shift = SHIFT if p["name"] == "alpha" else 0.0
                    self.assertLess(abs(p["mean"] - shift - r["mean"]) / r["sd"], 1e-4, p["name"])
                    self.assertLess(abs(p["sd"] / r["sd"] - 1.0), 1e-4, p["name"])

    def test_a_far_log_mean_costs_no_walk_there(self):
        near = self.simulate_csv("gamma_log", 20000, 20, "gnear", 3, "--intercept", "1")
        self.rewrite_response(near, "gfar.csv", lambda y: y * SHIFT)
        for algorithm in ("meanfield", "fullrank"):
            with self.subTest(algorithm=algorithm):
                cfg = self.write_config({"data": {"csv": "gfar.csv", "response": "y"},
                                         "model": {"likelihood": "gamma_log", "intercept": True},
                                         "inference": {"algorithm": algorithm}},
                                        "gfar.%s.json" % algorithm)
                p = run(["fit", cfg, "--threads", "2"])
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertNotIn("warning", p.stderr)
                got = json.loads(p.stdout)
                self.assertTrue(got["converged"], got.get("convergence"))
                self.assertLess(got["iterations"], 30)
                alpha = next(q for q in got["parameters"] if q["name"] == "alpha")
                self.assertLess(abs(alpha["mean"] - (1.0 + math.log(SHIFT))), 0.1)


if __name__ == "__main__":
    unittest.main()
