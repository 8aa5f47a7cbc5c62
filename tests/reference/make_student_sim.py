#!/usr/bin/python3
"""Simulated data with outliers for the student_t likelihood's NUTS reference (no public
dataset of 10^3 rows with a heavy-tailed continuous response ships in a Debian package that
would serve better than a known truth). 2000 rows, the four features of make_positive_sim.py
(x1, x2 correlated 0.5, x3 skewed, x4 binary), from a fixed seed:

    data/sim_student.csv    y = 0.5 + x . (0.6, -0.4, 0.3, 0.5) + 0.8 t_4, and 3 % of the rows
                            (chosen at random) shifted by +-(8 to 15): gross outliers beyond the t's

responses rounded to 6 significant digits. Regenerate with
/usr/bin/python3 tests/reference/make_student_sim.py.
"""
import os

import numpy as np

from make_positive_sim import BETA, N, features

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    rng = np.random.default_rng(20261206)
    X = features(rng)
    y = 0.5 + X @ BETA + 0.8 * rng.standard_t(4.0, N)
    out = rng.random(N) < 0.03
    y[out] += rng.choice([-1.0, 1.0], out.sum()) * rng.uniform(8.0, 15.0, out.sum())
    with open(os.path.join(HERE, "data", "sim_student.csv"), "w") as f:
        f.write("x1,x2,x3,x4,y\n")
        for row, v in zip(X, y):
            f.write(",".join("%.4f" % a for a in row[:3]) + ",%d,%.6g\n" % (row[3], v))


if __name__ == "__main__":
    main()
