#!/usr/bin/python3
"""The cost of `bayes-vi loo` against the fit it evaluates, whole processes, interleaved.

    /usr/bin/python3 bench/loo_cost.py [--build build] [--rows 100000] [--features 20] [--draws 1000]
                                       [--repeats 5] [--threads 2] [--subsample M] [--data DIR]
                                       [--baseline OTHER/bayes-vi] [--no-full]

Simulates logistic data once (`bayes-vi simulate`, cached in --data), fits it once with
`inference.output_draws` = --draws (the default exact method; draws.csv is what loo reads), then
times, alternating and --repeats times each: `bayes-vi fit` (the same config, --output to a
scratch folder, as a user runs it before loo), `bayes-vi loo` (full PSIS-LOO) and, with
--subsample M, `bayes-vi loo --subsample M`. Reports each one's median wall time, its ratio to the
fit's median in the same run (the figure to quote on a shared machine), the same for CPU seconds
(user + sys, steadier than wall time when other jobs share the cores) and the peak RSS, and for
--subsample the estimate's distance to the full loo's in subsampling standard errors.
The targets: full loo at 10^5 x 20 x 1000 in less time than the fit; at 10^6 rows,
--subsample 1000 within 2 subsampling se of the full loo, in less time than the fit.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import time


def timed(cmd):
    if os.path.exists("/usr/bin/time"):
        cmd = ["/usr/bin/time", "-f", "RSS %M CPU %U %S"] + cmd
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit("failed: %s\n%s" % (" ".join(cmd), p.stderr))
    rss, cpu = 0.0, float("nan")
    for line in p.stderr.splitlines():
        if line.startswith("RSS "):
            f = line.split()
            rss, cpu = float(f[1]) / 1024.0, float(f[3]) + float(f[4])
    return seconds, rss, cpu, p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--rows", type=int, default=100000)
    ap.add_argument("--features", type=int, default=20)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--subsample", type=int, default=0)
    ap.add_argument("--no-full", action="store_true", help="skip the full loo (its figure is known)")
    ap.add_argument("--baseline", help="another bayes-vi binary whose full loo is timed too (before/after)")
    ap.add_argument("--data", default=os.path.join("build", "bench", "data"))
    args = ap.parse_args()
    bvi = os.path.abspath(os.path.join(args.build, "bayes-vi"))
    os.makedirs(args.data, exist_ok=True)
    n, d = args.rows, args.features
    csv = os.path.abspath(os.path.join(args.data, "logistic_%d_%d.csv" % (n, d)))
    if not os.path.exists(csv):
        subprocess.run([bvi, "simulate", "--rows", str(n), "--features", str(d), "--seed", "1", "--output", csv],
                       check=True)
    cfg = {"data": {"csv": csv, "response": "y"},
           "model": {"likelihood": "bernoulli_logit", "intercept": True,
                     "priors": {"alpha": {"normal": {"loc": 0, "scale": 10}},
                                "beta": {"normal": {"loc": 0, "scale": 10}}}},
           "inference": {"output_draws": args.draws}}
    cfg_path = os.path.abspath(os.path.join(args.data, "loo_cost_%d_%d.json" % (n, d)))
    with open(cfg_path, "w") as f:
        json.dump(cfg, f)
    fit_dir = os.path.abspath(os.path.join(args.data, "loo_cost_fit_%d_%d" % (n, d)))
    scratch = fit_dir + "_scratch"
    th = ["--threads", str(args.threads)]
    subprocess.run([bvi, "fit", cfg_path, "--output", fit_dir, "--quiet"] + th, check=True, capture_output=True)
    contenders = {"fit": [bvi, "fit", cfg_path, "--output", scratch, "--quiet"] + th}
    if not args.no_full:
        contenders["loo"] = [bvi, "loo", cfg_path, "--fit", fit_dir] + th
    if args.baseline:
        contenders["loo (baseline)"] = [os.path.abspath(args.baseline), "loo", cfg_path, "--fit", fit_dir] + th
    if args.subsample:
        contenders["loo --subsample %d" % args.subsample] = [bvi, "loo", cfg_path, "--fit", fit_dir,
                                                             "--subsample", str(args.subsample)] + th
    times = {k: [] for k in contenders}
    cpus = {k: [] for k in contenders}
    rss = {k: 0.0 for k in contenders}
    docs = {}
    for _ in range(args.repeats):
        for name, cmd in contenders.items():
            if name == "fit":
                shutil.rmtree(scratch, ignore_errors=True)
            s, mb, cpu, out = timed(cmd)
            times[name].append(s)
            cpus[name].append(cpu)
            rss[name] = max(rss[name], mb)
            if name != "fit":
                docs[name] = json.loads(out)
    shutil.rmtree(scratch, ignore_errors=True)
    base = statistics.median(times["fit"])
    cpu_base = statistics.median(cpus["fit"])
    print("%d rows x %d features x %d draws, %d threads, median of %d" % (n, d, args.draws, args.threads,
                                                                          args.repeats))
    print("| command | wall s (median) | x fit | CPU s (median) | x fit | peak RSS MB | elpd_loo | se | subsampling se |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, ts in times.items():
        doc = docs.get(name, {})
        c = statistics.median(cpus[name])
        print("| %s | %.3f | %.2f | %.2f | %.2f | %.0f | %s | %s | %s |" % (
            name, statistics.median(ts), statistics.median(ts) / base, c, c / cpu_base, rss[name],
            "%.2f" % doc["elpd_loo"] if doc else "", "%.2f" % doc["se_elpd_loo"] if doc else "",
            "%.2f" % doc["subsampling_se_elpd_loo"] if "subsampling_se_elpd_loo" in doc else ""))
    if args.subsample and "loo" in docs:
        ss = docs["loo --subsample %d" % args.subsample]
        z = (ss["elpd_loo"] - docs["loo"]["elpd_loo"]) / ss["subsampling_se_elpd_loo"]
        print("subsampled - full elpd_loo: %.3f = %.2f subsampling se" % (ss["elpd_loo"] - docs["loo"]["elpd_loo"], z))


if __name__ == "__main__":
    main()
