#!/usr/bin/python3
"""The simulated datasets of configs/multilevel/, deterministic:

    /usr/bin/python3 data/make_multilevel_data.py     # rewrites data/ml_*.csv

ml_radon.csv    10000 homes in 85 counties (names): log_radon = 1.3 - 0.7 floor + u_county + e,
                u ~ N(0, 0.35), e ~ N(0, 0.75)                     (a varying intercept)
ml_sleep.csv    200 subjects (numeric IDs 301 ...) x 50 days: reaction = 250 + 10 days
                + u0 + u1 days + e, (u0, u1) ~ N(0, [[25^2, 0.3 25 6], [.., 6^2]]), e ~ N(0, 25)
                                                                   (correlated varying slopes)
ml_survey.csv   10000 voters: P(voted) = expit(-0.2 + 0.4 age_std + 0.2 [female] + income effect
                + u_state + v_occupation), income low / middle / high, 40 states (names),
                60 occupation codes (numeric IDs)                   (crossed factors, logistic)
ml_clinics.csv  10000 patients in 30 clinics: visits ~ Poisson(months exp(-1 + 0.3 age_std
                + u_clinic)), with 3 % of the age and clinic cells missing (NA or empty)
                                                                   (missing values, dropped)
"""
import os

import numpy as np
from scipy import special

HERE = os.path.dirname(os.path.abspath(__file__))
PLACES = [a + b for a in ("North", "South", "East", "West", "Upper", "Lower", "Lake", "River", "Pine")
          for b in ("field", "wood", "ford", "ton", "burg", "dale", "view", "port", "wick", "ham")]


def write(name, header, rows):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(r) + "\n")


def radon(rng):
    counties = PLACES[:85]
    u = rng.normal(0, 0.35, len(counties))
    rows = []
    for _ in range(10000):
        c = int(rng.integers(len(counties)))
        floor = int(rng.random() < 0.2)
        y = 1.3 - 0.7 * floor + u[c] + rng.normal(0, 0.75)
        rows.append(["%.4f" % y, str(floor), counties[c]])
    write("ml_radon.csv", ["log_radon", "floor", "county"], rows)


def sleep(rng):
    cov = np.array([[25.0 ** 2, 0.3 * 25 * 6], [0.3 * 25 * 6, 6.0 ** 2]])
    rows = []
    for s in range(200):
        u0, u1 = rng.multivariate_normal([0, 0], cov)
        for day in range(50):
            d = day / 10  # tens of days, so the slope is on the scale of the intercept
            y = 250 + 10 * d + u0 + u1 * d + rng.normal(0, 25)
            rows.append(["%.2f" % y, "%.1f" % d, str(301 + s)])
    write("ml_sleep.csv", ["reaction", "days", "subject"], rows)


def survey(rng):
    states = PLACES[10:50]
    u = rng.normal(0, 0.5, len(states))
    v = rng.normal(0, 0.3, 60)
    income = {"low": -0.3, "middle": 0.0, "high": 0.4}
    rows = []
    for _ in range(10000):
        s, o = int(rng.integers(len(states))), int(rng.integers(60))
        age = rng.normal()
        sex = ["female", "male"][int(rng.integers(2))]
        inc = ["low", "middle", "high"][int(rng.integers(3))]
        eta = -0.2 + 0.4 * age + (0.2 if sex == "female" else 0.0) + income[inc] + u[s] + v[o]
        voted = int(rng.random() < special.expit(eta))
        rows.append([str(voted), "%.3f" % age, sex, inc, states[s], str(1000 + 7 * o)])
    write("ml_survey.csv", ["voted", "age_std", "sex", "income", "state", "occupation"], rows)


def clinics(rng):
    names = ["clinic_%02d" % (k + 1) for k in range(30)]
    u = rng.normal(0, 0.4, len(names))
    rows = []
    for _ in range(10000):
        c = int(rng.integers(len(names)))
        age = rng.normal()
        months = int(rng.integers(1, 13))
        visits = rng.poisson(months * np.exp(-1 + 0.3 * age + u[c]))
        row = [str(visits), "%.3f" % age, names[c], str(months), "note"]
        if rng.random() < 0.03:
            row[1] = "NA"
        if rng.random() < 0.03:
            row[2] = ""
        rows.append(row)
    write("ml_clinics.csv", ["visits", "age_std", "clinic", "months", "comment"], rows)


def main():
    rng = np.random.default_rng(20261203)
    radon(rng)
    sleep(rng)
    survey(rng)
    clinics(rng)


if __name__ == "__main__":
    main()
