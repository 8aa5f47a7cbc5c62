"""A multilevel fit gives the same bits for any number of MPI ranks and threads (SPEC.md
"Reproducibility"): the categorical levels are gathered over the whole file (here some levels
appear only in the last rank's rows), rows dropped for missing values keep the file's chunks,
and the group effects travel with the rows. check's report is the same under every rank count."""
import json
import os
import shutil
import subprocess
import unittest

import numpy as np

from bvi_test import BINARY, BinaryTestCase, run

MPIRUN = shutil.which("mpirun")
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
TIMING = {"seconds", "threads", "ranks"}


def mpirun(n, args):
    return subprocess.run([MPIRUN, "--oversubscribe", "-n", str(n), BINARY] + args, capture_output=True, text=True,
                          timeout=300, env=MPI_ENV)


class MultilevelParallel(BinaryTestCase):
    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(8)
        n = 3000
        lines = ["y,x,sex,county,school,note"]
        for i in range(n):
            county = "Zeta" if i > n - 80 else ["north", "South", "east"][i % 3]
            school = 100 if 1500 <= i < 1510 else 1 + i % 9
            x = round(float(rng.standard_normal()), 3)
            sex = ["f", "m"][int(rng.integers(2))]
            eta = 0.3 * x + (0.5 if sex == "m" else 0) + {"north": 0.2, "South": -0.3, "east": 0, "Zeta": 0.8}[county]
            y = int(rng.random() < 1 / (1 + np.exp(-eta)))
            cells = [str(y), str(x), sex, county, str(school), "text%d" % i]
            if i % 97 == 5:
                cells[1] = "NA"  # dropped rows, in every rank's share
            if i % 211 == 7:
                cells[3] = ""
            lines.append(",".join(cells))
        self.csv = self.write("d.csv", "\n".join(lines) + "\n")
        cfg = {"data": {"csv": self.csv, "missing": "drop"},
               "model": {"likelihood": "bernoulli_logit",
                         "formula": "y ~ x * sex + (1 + x | county) + (1 | school)"},
               "inference": {"max_iterations": 25, "draws_per_step": 64, "output_draws": 100,
                             "final_elbo_draws": 1000, "seed": 3}}
        self.config = self.write_config(cfg)

    def outputs(self, p, out):
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "draws.csv"), "rb") as f:
            draws = f.read()
        return {k: v for k, v in json.loads(p.stdout).items() if k not in TIMING}, draws

    def check_layouts(self, config, base, ranks=(1, 2, 3)):
        for threads in (2, 4):
            out = self.path("t%d" % threads)
            got = self.outputs(run(["fit", config, "--quiet", "--threads", str(threads), "--output", out]), out)
            self.assertEqual(got, base, "threads %d" % threads)
        if not MPIRUN:
            return
        for n in ranks:
            out = self.path("r%d" % n)
            got = self.outputs(mpirun(n, ["fit", config, "--quiet", "--threads", "1", "--output", out]), out)
            self.assertEqual(got, base, "ranks %d" % n)

    def test_exact_structured_gives_the_same_bits(self):
        # The exact method's structured family: its ties to the sds come from the same fixed-order
        # reductions as everything else.
        with open(self.config) as f:
            cfg = json.load(f)
        cfg["inference"] = {"algorithm": "structured", "output_draws": 100, "seed": 3}
        config = self.write_config(cfg, "structured.json")
        base = self.outputs(run(["fit", config, "--quiet", "--threads", "1", "--output", self.path("s1")]),
                            self.path("s1"))
        self.assertEqual(base[0]["algorithm"], "structured")
        self.assertTrue(base[0]["converged"], base[0]["convergence"])
        self.check_layouts(config, base, ranks=(2, 3))

    def test_exact_sparse_gives_the_same_bits(self):
        # The sparse family on crossed factors: the level pairs that share rows are gathered from
        # every rank (Zeta's rows are all in the last rank's share), the values reduced in order.
        with open(self.config) as f:
            cfg = json.load(f)
        cfg["model"]["formula"] = "y ~ x * sex + (1 + x || county) + (1 | school)"
        cfg["inference"] = {"algorithm": "sparse", "output_draws": 100, "seed": 3}
        config = self.write_config(cfg, "sparse.json")
        base = self.outputs(run(["fit", config, "--quiet", "--threads", "1", "--output", self.path("p1")]),
                            self.path("p1"))
        self.assertEqual(base[0]["algorithm"], "sparse")
        self.assertTrue(base[0]["converged"], base[0]["convergence"])
        self.check_layouts(config, base, ranks=(2, 3))

    def test_threads_and_ranks_give_the_same_bits(self):
        base = self.outputs(run(["fit", self.config, "--quiet", "--threads", "1", "--output", self.path("t1")]),
                            self.path("t1"))
        names = [q["label"] for q in base[0]["parameters"] if q["name"].startswith("r_county")]
        self.assertIn("county[Zeta]:x", names)
        self.assertEqual(base[0]["dropped_rows"], sum(1 for i in range(3000) if i % 97 == 5 or i % 211 == 7))
        self.check_layouts(self.config, base)
        if not MPIRUN:
            return
        check = run(["check", self.config]).stdout
        self.assertIn("categorical school: 10 levels: 1, 2, 3, 4, 5, 6, 7, 8, 9, 100; numeric order", check)
        for ranks in (2, 3):
            self.assertEqual(mpirun(ranks, ["check", self.config]).stdout, check)


if __name__ == "__main__":
    unittest.main()
