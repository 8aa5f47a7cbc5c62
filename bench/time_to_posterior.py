#!/usr/bin/python3
"""Time to the fitted posterior, whole process, bayes-vi against statsmodels' GLM (IRLS).

    /usr/bin/python3 bench/time_to_posterior.py [--build build] [--sizes 10000x10,100000x100,1000000x10]
                                                [--repeats 3] [--threads 2] [--data DIR] [--methods ...]

For each size (rows x features) it simulates logistic data once (`bayes-vi simulate`, cached in
--data), then times, in alternating order and --repeats times each:

* statsmodels: `python3 -c` starting the interpreter, importing pandas and statsmodels, reading
  the CSV with pandas.read_csv, fitting `GLM(y, add_constant(X), Binomial())` by IRLS and taking
  the standard errors: the Laplace answer, what statsmodels users get;
* bayes-vi: `bayes-vi fit CONFIG --threads T` with the default settings (the exact method,
  output draws and PSIS included) and `algorithm` meanfield, fullrank, and auto (the default), the
  same model (intercept, normal(0, 10) priors), summary JSON to a pipe; `mc-meanfield` and
  `mc-fullrank` in --algorithms add the Monte Carlo method (its default rule, natural);

and reports the median wall time of each, its ratio to statsmodels' median in the same run,
the peak RSS (max over repeats), and bayes-vi's iterations and passes over the data. Times on a
shared machine are noisy: the ratios, measured interleaved, are the figures to quote.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

STATSMODELS = r"""
import sys, json
import pandas as pd
import statsmodels.api as sm
df = pd.read_csv(sys.argv[1])
y = df.pop("y").to_numpy()
res = sm.GLM(y, sm.add_constant(df.to_numpy()), family=sm.families.Binomial()).fit()
print(json.dumps({"mean": res.params.tolist(), "sd": res.bse.tolist(), "iterations": int(res.fit_history["iteration"])}))
"""




def inference_of(algo):
    """'auto', a family, or 'mc-FAMILY': the Monte Carlo method's default rule (natural) with it."""
    if algo == "auto":
        return {}
    if algo.startswith("mc-"):
        return {"method": "monte_carlo", "algorithm": algo[3:]}
    return {"algorithm": algo}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--sizes", default="10000x10,100000x100,1000000x10")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--data", default=os.path.join("build", "bench", "data"))
    ap.add_argument("--algorithms", default="meanfield,fullrank,auto")
    args = ap.parse_args()
    bvi = os.path.join(args.build, "bayes-vi")
    os.makedirs(args.data, exist_ok=True)
    rows_out = []
    for size in args.sizes.split(","):
        n, d = (int(v) for v in size.split("x"))
        csv = os.path.abspath(os.path.join(args.data, "logistic_%d_%d.csv" % (n, d)))
        if not os.path.exists(csv):
            subprocess.run([bvi, "simulate", "--rows", str(n), "--features", str(d), "--seed", "1", "--output", csv],
                           check=True)
        configs = {}
        for algo in args.algorithms.split(","):
            cfg = {"data": {"csv": csv, "response": "y"},
                   "model": {"likelihood": "bernoulli_logit", "intercept": True,
                             "priors": {"alpha": {"normal": {"loc": 0, "scale": 10}},
                                        "beta": {"normal": {"loc": 0, "scale": 10}}}},
                   "inference": inference_of(algo)}
            path = os.path.join(args.data, "fit_%d_%d_%s.json" % (n, d, algo))
            with open(path, "w") as f:
                json.dump(cfg, f)
            configs[algo] = path
        times = {k: [] for k in ["statsmodels"] + list(configs)}
        rss = {k: 0.0 for k in times}
        info = {}
        for _ in range(args.repeats):
            for name in times:  # interleaved: each repeat runs every contender once
                if name == "statsmodels":
                    cmd = [sys.executable, "-c", STATSMODELS, csv]
                else:
                    cmd = [bvi, "fit", configs[name], "--quiet", "--threads", str(args.threads)]
                # Peak RSS of this child alone: measured by /usr/bin/time if present.
                if os.path.exists("/usr/bin/time"):
                    cmd = ["/usr/bin/time", "-f", "RSS %M"] + cmd
                t0 = time.perf_counter()
                p = subprocess.run(cmd, capture_output=True, text=True)
                seconds = time.perf_counter() - t0
                if p.returncode != 0:
                    raise SystemExit("failed: %s\n%s" % (" ".join(cmd), p.stderr))
                for line in p.stderr.splitlines():
                    if line.startswith("RSS "):
                        rss[name] = max(rss[name], float(line.split()[1]) / 1024.0)
                times[name].append(seconds)
                if name != "statsmodels":
                    s = json.loads(p.stdout)
                    info[name] = (s["algorithm"], s["iterations"], s.get("passes"))
        base = statistics.median(times["statsmodels"])
        for name, ts in times.items():
            med = statistics.median(ts)
            algo, it, passes = info.get(name, ("IRLS", "", ""))
            rows_out.append((size, name, algo, med, med / base, rss[name], it, passes))
    print("| rows x features | contender | family | s (median of %d) | x statsmodels | peak RSS MB | iterations | "
          "passes |" % args.repeats)
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for size, name, algo, med, ratio, mb, it, passes in rows_out:
        print("| %s | %s | %s | %.3f | %.2f | %.0f | %s | %s |" % (size, name, algo, med, ratio, mb, it,
                                                                   "" if passes is None else passes))


if __name__ == "__main__":
    main()
