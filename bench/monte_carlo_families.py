#!/usr/bin/python3
"""The Monte Carlo method's families on a multilevel model, whole processes, interleaved.

    /usr/bin/python3 bench/monte_carlo_families.py [--build build] [--groups 200,800] [--rows-per-group 10]
                                                   [--repeats 3] [--threads 2] [--families sparse,fullrank,meanfield]
                                                   [--crossed H]

Simulates ordinal_logit data y ~ x + (1 | g) (slope 0.8, group sd 0.6, cutpoints -1.5, -0.5, 0.2,
1.0) for each number of groups, then fits it with each family (`inference.algorithm`, the rest
automatic), alternating, --repeats times. Reports per family the median wall time and CPU seconds,
their ratio to the sparse family's in the same run, the steps, the group sd (mean +- sd) against
the simulation's realized sd, and the slope. With --crossed H a second factor h of H levels (sd 0.4)
is crossed with g, y ~ x + (1 | g) + (1 | h), and its sd and the first cutpoint are reported too. The figures in README.md ("The Monte Carlo sparse
family") come from this script.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np


def simulate(path, groups, per_group, seed, crossed=0):
    rng = np.random.default_rng(seed)
    n = groups * per_group
    g = rng.integers(0, groups, n)
    effects = 0.6 * rng.standard_normal(groups)
    x = rng.standard_normal(n)
    eta = 0.8 * x + effects[g]
    h = rng.integers(0, max(crossed, 1), n)
    if crossed:
        eta += 0.4 * rng.standard_normal(crossed)[h]
    y = 1 + np.searchsorted(np.array([-1.5, -0.5, 0.2, 1.0]), eta + rng.logistic(size=n))
    with open(path, "w") as f:
        f.write("y,x,g,h\n")
        f.writelines("%d,%r,g%d,h%d\n" % (y[i], x[i], g[i], h[i]) for i in range(n))
    return float(np.std(effects, ddof=1))


def timed(cmd):
    cmd = ["/usr/bin/time", "-f", "CPU %U %S"] + cmd
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit("failed: %s\n%s" % (" ".join(cmd), p.stderr))
    cpu = float("nan")
    for line in p.stderr.splitlines():
        if line.startswith("CPU "):
            f = line.split()
            cpu = float(f[1]) + float(f[2])
    return seconds, cpu, json.loads(p.stdout)


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("--build", default="build")
    a.add_argument("--groups", default="200,800")
    a.add_argument("--rows-per-group", type=int, default=10)
    a.add_argument("--repeats", type=int, default=3)
    a.add_argument("--threads", type=int, default=2)
    a.add_argument("--families", default="sparse,fullrank,meanfield")
    a.add_argument("--crossed", type=int, default=0, help="levels of a factor crossed with g (0: none)")
    o = a.parse_args()
    binary = os.path.join(o.build, "bayes-vi")
    families = o.families.split(",")
    work = tempfile.mkdtemp(prefix="bvi_mc_families_")
    for groups in [int(g) for g in o.groups.split(",")]:
        csv = os.path.join(work, "g%d.csv" % groups)
        realized = simulate(csv, groups, o.rows_per_group, groups, o.crossed)
        formula = "y ~ x + (1 | g)" + (" + (1 | h)" if o.crossed else "")
        configs = {}
        for fam in families:
            cfg = {"data": {"csv": csv}, "model": {"likelihood": "ordinal_logit", "formula": formula},
                   "inference": {"seed": 1, "algorithm": fam}}
            configs[fam] = os.path.join(work, "g%d_%s.json" % (groups, fam))
            with open(configs[fam], "w") as f:
                json.dump(cfg, f)
        runs = {fam: [] for fam in families}
        for _ in range(o.repeats):
            for fam in families:
                runs[fam].append(timed([binary, "fit", configs[fam], "--quiet", "--threads", str(o.threads)]))
        print("%d rows in %d groups (realized group sd %.3f), median of %d, %d threads" %
              (groups * o.rows_per_group, groups, realized, o.repeats, o.threads))
        base_wall = statistics.median(r[0] for r in runs[families[0]])
        base_cpu = statistics.median(r[1] for r in runs[families[0]])
        for fam in families:
            wall = statistics.median(r[0] for r in runs[fam])
            cpu = statistics.median(r[1] for r in runs[fam])
            s = runs[fam][0][2]
            p = {q["name"]: q for q in s["parameters"]}
            extra = ""
            if o.crossed:
                extra = "  sd_h %.3f +- %.3f  cutpoint 1 %.3f +- %.4f" % (
                    p["sd_h.1"]["mean"], p["sd_h.1"]["sd"], p["cutpoints.1"]["mean"], p["cutpoints.1"]["sd"])
            print("  %-10s P %5d  steps %3d  wall %7.2f s (x%.2f)  CPU %7.2f s (x%.2f)  sd_g %.3f +- %.3f  slope %.3f +- %.4f%s"
                  % (fam, len(s["parameters"]), s["iterations"], wall, wall / base_wall, cpu, cpu / base_cpu,
                     p["sd_g.1"]["mean"], p["sd_g.1"]["sd"], p["beta.1"]["mean"], p["beta.1"]["sd"], extra))


if __name__ == "__main__":
    main()
