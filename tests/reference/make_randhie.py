#!/usr/bin/python3
"""Writes tests/reference/data/randhie.csv, the negative binomial's NUTS reference data, from the
statsmodels package's copy of the RAND Health Insurance Experiment data (Debian's
python3-statsmodels: statsmodels/datasets/randhie/randhie.csv, 20,190 rows), byte for byte
reproducibly:

    /usr/bin/python3 tests/reference/make_randhie.py      # needs python3-statsmodels (apt)

Every fifth data row (rows 1, 6, 11, ... of the file: 4,038 rows), lines copied as they are:
mdvis (outpatient visits to a doctor, the overdispersed count: mean 2.9, variance 20 in the whole
set), then lncoins, idp, lpi, fmde, physlm, disea, hlthg, hlthf, hlthp (statsmodels' data.py
describes them). The fifth keeps the NUTS run to minutes while staying above the 10^3 rows.

Licence: public domain (statsmodels' COPYRIGHT for the set); collected by the RAND corporation's
Health Insurance Experiment, as used in Cameron & Trivedi, Microeconometrics (2005).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "randhie.csv")


def main():
    import statsmodels.datasets.randhie as randhie
    src = os.path.join(os.path.dirname(randhie.__file__), "randhie.csv")
    with open(src, newline="") as f:
        lines = f.read().splitlines()
    assert lines[0] == "mdvis,lncoins,idp,lpi,fmde,physlm,disea,hlthg,hlthf,hlthp" and len(lines) == 20191
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", newline="\n") as f:
        f.write("\n".join([lines[0]] + lines[1::5]) + "\n")


if __name__ == "__main__":
    main()
