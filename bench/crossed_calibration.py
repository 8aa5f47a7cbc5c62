#!/usr/bin/env python3
"""A large crossed multilevel fit (a users x items design) checked against the simulation's truth.

Simulates N rows of D standard-normal predictors, each row a random user of U and a random item
of I (uniform, so about N/U rows a user and N/I an item), logistic, with a varying intercept per
user (sd 0.5) and per item (sd 0.3): `y ~ x1 + ... + xD + (1 | user) + (1 | item)`. Writes the
CSV in chunks, fits it once with the default family (or `--algorithm`), float32, 200 output draws,
and reports: the whole process's wall and CPU time and peak RSS (GNU time), the family auto chose and
its iterations, the population effects' largest |mean - truth| / sd, each factor's sd against the
realized sd of its drawn effects (z: mean - truth, in posterior sds), and each factor's effects'
calibration: z = (mean - truth) / sd over every effect, its mean and sd (0 and 1 when calibrated)
and the share within 1.96 sd (95 % when calibrated).

Crossed factors fill the sparse precision's Cholesky factor in: eliminating a user joins the items
it shares rows with, so the items' block ends up dense (I x I), which the fit counts before it
starts (README, "Variational families").

  /usr/bin/python3 bench/crossed_calibration.py [--rows 1000000] [--users 10000] [--items 1000]
      [--features 5] [--seed 1] [--algorithm auto] [--threads 2] [--binary build/bayes-vi] [--keep DIR]

With --keep DIR the CSV, config, outputs and the truth stay in DIR, and a later run with the same
sizes fits the same CSV again without simulating it anew.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SD = {"user": 0.5, "item": 0.3}


def simulate(path, rows, users, items, features, seed=1):
    """Writes the CSV; returns the truth: population effects, and each factor's effects."""
    rng = np.random.default_rng(seed)
    alpha, beta = -0.2, rng.normal(0, 0.5, features)
    effects = {"user": rng.normal(0, SD["user"], users), "item": rng.normal(0, SD["item"], items)}
    chunk = 1_000_000
    with open(path, "w") as f:
        f.write(",".join(["y"] + ["x%d" % (j + 1) for j in range(features)] + ["user", "item"]) + "\n")
        for start in range(0, rows, chunk):
            n = min(chunk, rows - start)
            u, i = rng.integers(0, users, n), rng.integers(0, items, n)
            x = rng.standard_normal((n, features))
            eta = alpha + x @ beta + effects["user"][u] + effects["item"][i]
            y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
            np.savetxt(f, np.column_stack([y, x, u, i]), fmt=["%d"] + ["%.4f"] * features + ["u%d", "i%d"],
                       delimiter=",")
    # The realized sds of the drawn effects: what the posterior concentrates on as the levels grow.
    return {"alpha": alpha, "beta": beta, "user": effects["user"], "item": effects["item"],
            "sd_user": effects["user"].std(), "sd_item": effects["item"].std()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--users", type=int, default=10_000)
    ap.add_argument("--items", type=int, default=1_000)
    ap.add_argument("--features", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1, help="the simulation's seed")
    ap.add_argument("--algorithm", default="auto")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--binary", default=os.path.join(HERE, "..", "build", "bayes-vi"))
    ap.add_argument("--keep", help="a folder to keep the CSV, config and outputs in")
    a = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    folder = a.keep or tmp.name
    os.makedirs(folder, exist_ok=True)
    csv = os.path.join(folder, "data.csv")
    saved = os.path.join(folder, "truth.npz")
    sizes = np.array([a.rows, a.users, a.items, a.features, a.seed])
    if a.keep and os.path.exists(saved) and os.path.exists(csv) and np.array_equal(np.load(saved)["sizes"], sizes):
        t = np.load(saved)
        truth = {k: t[k] for k in ("beta", "user", "item")}
        truth.update({k: float(t[k]) for k in ("alpha", "sd_user", "sd_item")})
    else:
        t0 = time.perf_counter()
        truth = simulate(csv, a.rows, a.users, a.items, a.features, a.seed)
        print("simulated %d rows in %.0f s" % (a.rows, time.perf_counter() - t0), file=sys.stderr)
        if a.keep:
            np.savez(saved, sizes=sizes, **truth)
    formula = "y ~ " + " + ".join("x%d" % (j + 1) for j in range(a.features)) + " + (1 | user) + (1 | item)"
    cfg = os.path.join(folder, "config.json")
    with open(cfg, "w") as f:
        json.dump({"data": {"csv": csv, "dtype": "float32"},
                   "model": {"likelihood": "bernoulli_logit", "formula": formula},
                   "inference": {"algorithm": a.algorithm, "output_draws": 200}}, f)
    out = os.path.join(folder, "out")
    start = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", a.binary, "fit", cfg, "--quiet", "--threads", str(a.threads),
                        "--output", out], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit("bayes-vi failed: " + p.stderr)
    s = json.loads(p.stdout)
    rss_kb, user, system = p.stderr.strip().split()[-3:]
    rss_mb, cpu = float(rss_kb) / 1024, float(user) + float(system)
    by_name = {q["name"]: q for q in s["parameters"]}
    pop = [(by_name["alpha"]["mean"] - truth["alpha"]) / by_name["alpha"]["sd"]]
    for j in range(a.features):
        q = by_name["beta.%d" % (j + 1)]
        pop.append((q["mean"] - truth["beta"][j]) / q["sd"])
    z = {"user": [], "item": []}
    label = re.compile(r"^(user|item)\[[ui](\d+)\]:\(Intercept\)$")
    for q in s["parameters"]:
        m = label.match(q.get("label", ""))
        if m:
            z[m.group(1)].append((q["mean"] - truth[m.group(1)][int(m.group(2))]) / q["sd"])
    print("| rows | users × items | family | iterations | whole process (CPU) | peak RSS | population max z "
          "| factor | sd (z) | effects: mean z, sd z, within 1.96 sd |")
    print("|---:|---:|---|---:|---:|---:|---:|---|---|---|")
    for k, factor in enumerate(("user", "item")):
        q = by_name["sd_%s.1" % factor]
        zz = np.array(z[factor])
        if zz.size != (a.users if factor == "user" else a.items):
            sys.exit("expected one effect per %s, found %d" % (factor, zz.size))
        head = ("| %d | %d × %d | %s | %d | %.1f s (%.0f CPU-s) | %.0f MB | %.2f " % (
            a.rows, a.users, a.items, s["algorithm"], s["iterations"], wall, cpu, rss_mb, max(abs(v) for v in pop))
            if k == 0 else "| | | | | | | ")
        print(head + "| %s | %.3f ± %.4f (%+.2f) | %+.3f, %.3f, %.1f %% |" % (
            factor, q["mean"], q["sd"], (q["mean"] - truth["sd_" + factor]) / q["sd"], zz.mean(), zz.std(),
            100 * np.mean(np.abs(zz) < 1.96)))
    print("\npopulation effects' z (alpha, beta.1, ...): " + ", ".join("%+.2f" % v for v in pop))


if __name__ == "__main__":
    main()
