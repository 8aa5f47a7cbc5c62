"""The likelihoods with extra columns (binomial's trials, poisson's and the negative binomial's
offset and exposure) and their own parameters (normal's sigma, the negative binomial's phi) give
the same bits whatever --threads is and however many MPI ranks shard the rows (SPEC.md
"Reproducibility"): the columns and the precomputed constants travel with the rows, and check's
response statistics (the count variance too) cover the whole file under mpirun."""
import json
import os
import shutil
import subprocess
import unittest

import likelihood_models as lm
from bvi_test import BINARY, BinaryTestCase, run

MPIRUN = shutil.which("mpirun")
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
TIMING_KEYS = {"seconds", "threads", "ranks"}
FAMILIES = ["binomial_logit", "poisson_log", "normal", "negative_binomial_log", "lognormal", "gamma_log", "beta_logit"]


def numbers(text):
    return {k: v for k, v in json.loads(text).items() if k not in TIMING_KEYS}


class LikelihoodParallel(BinaryTestCase):
    def config(self, family):
        cols = lm.simulate(family, 3000, 0.2, [0.5, -0.3, 0.1], seed=41)
        lm.write_csv(self.path(family + ".csv"), cols)
        return self.write_config(lm.config(family, self.path(family + ".csv"), ["x1", "x2", "x3"],
                                           inference={"seed": 9, "output_draws": 200}), family + ".json")

    def test_threads_and_ranks_give_the_same_bits(self):
        for family in FAMILIES:
            with self.subTest(family=family):
                cfg = self.config(family)
                one = run(["fit", cfg, "--quiet", "--threads", "1"])
                two = run(["fit", cfg, "--quiet", "--threads", "2"])
                self.assertEqual(one.returncode, 0, one.stderr)
                self.assertEqual(numbers(one.stdout), numbers(two.stdout))
                if MPIRUN:
                    ranks = subprocess.run([MPIRUN, "--oversubscribe", "-n", "2", BINARY, "fit", cfg, "--quiet",
                                            "--threads", "1"], capture_output=True, text=True, timeout=120,
                                           env=MPI_ENV)
                    self.assertEqual(ranks.returncode, 0, ranks.stderr)
                    self.assertEqual(numbers(one.stdout), numbers(ranks.stdout))
                    check_one = run(["check", cfg]).stdout
                    check_two = subprocess.run([MPIRUN, "--oversubscribe", "-n", "3", BINARY, "check", cfg],
                                               capture_output=True, text=True, timeout=60, env=MPI_ENV).stdout
                    self.assertEqual(check_one, check_two)


if __name__ == "__main__":
    unittest.main()
