#!/usr/bin/python3
"""The coefficients of Weideman's rational approximation of the scaled complementary error function
(J. A. C. Weideman, Computation of the complex error function, SIAM J. Numer. Anal. 31, 1994), for
inference/ad/ops/ordinal_probit_packet.hpp: for u >= 0

    erfcx(u) = e^{u^2} erfc(u) ~ 2 p(Z) / (L + u)^2 + (1/sqrt pi) / (L + u),  Z = (L - u) / (L + u),

with p of degree N - 1 and L = sqrt(N / sqrt 2), the coefficients by FFT as the paper computes them.
Prints L, the N = 40 coefficients (highest degree first) and the largest relative error against
mpmath on [0, 5] and 2000 points log-spaced over [1e-3, 1e3].

    /usr/bin/python3 tests/reference/erfcx_weideman.py
"""
import mpmath as mp
import numpy as np

N = 40


def coefficients(n):
    m = 2 * n
    k = np.arange(-m + 1, m)
    L = np.sqrt(n / np.sqrt(2))
    t = L * np.tan(k * np.pi / m / 2)
    f = np.concatenate([[0.0], np.exp(-t ** 2) * (L ** 2 + t ** 2)])
    a = np.real(np.fft.fft(np.fft.fftshift(f))) / (2 * m)
    return np.flipud(a[1:n + 1]), L


def main():
    a, L = coefficients(N)
    print("L =", repr(float(L)))
    print(", ".join(repr(float(v)) for v in a))
    mp.mp.dps = 30
    xs = np.concatenate([np.linspace(0, 5, 2001), np.logspace(-3, 3, 2000)])
    want = np.array([float(mp.erfc(mp.mpf(x)) * mp.exp(mp.mpf(x) ** 2)) for x in xs])
    z = (L - xs) / (L + xs)
    got = 2 * np.polyval(a, z) / (L + xs) ** 2 + (1 / np.sqrt(np.pi)) / (L + xs)
    print("largest relative error", np.max(np.abs(got / want - 1)))


if __name__ == "__main__":
    main()
