#!/usr/bin/env python3
"""Makes the committed reference datasets for tests/stats/reference-agreement.test.ts.

Run from this folder with Debian's python3-scipy (`apt-get install -y python3-scipy`):
    python3 make_reference.py
It rewrites datasets/*.json. The TypeScript tests read only those JSON files; they never
need scipy at run time.

Per dataset it records, for the paired log ratios r_i = log(candidate_i / baseline_i):
- the point estimate median(r) (numpy), which flameox must match exactly;
- scipy.stats.bootstrap((baseline, candidate), paired=True, method="BCa",
  n_resamples=9999, confidence_level=0.95, rng=default_rng(seed)) bounds of that median;
- the same bounds for RERUNS (200) further seeds, so the Monte-Carlo spread of a BCa bound at
  9,999 resamples is measured rather than assumed (our resampling stream differs from
  numpy's, so agreement on the bounds can only be statistical);
- scipy's jackknife acceleration a (deterministic, must match to rounding);
- scipy.stats.wilcoxon p-value with the method flameox uses: exact when <= 50 non-zero
  differences and no ties, else asymptotic with continuity correction.
Plus Spearman rho/p (scipy.stats.spearmanr), Benjamini-Hochberg q-values
(scipy.stats.false_discovery_control) and least-squares AICc fits (numpy.linalg.lstsq).
"""
import json
import math
import os

import numpy as np
import scipy
from scipy import stats
from scipy.stats._resampling import _bca_interval

RESAMPLES = 9999
RERUNS = 200
LEVEL = 0.95
HERE = os.path.dirname(os.path.abspath(__file__))


def lognormal_pairs(rng, n, sigma, shift, base=100.0):
    b = base * np.exp(rng.normal(0, sigma, n))
    c = base * (1 + shift) * np.exp(rng.normal(0, sigma, n))
    return b, c


def make_datasets():
    specs = []
    g = np.random.default_rng(20261129)
    def add(name, b, c):
        specs.append((name, [float(x) for x in b], [float(x) for x in c]))
    for i, (n, sigma, shift) in enumerate([
        (3, 0.05, 0.0), (4, 0.05, 0.0), (5, 0.05, 0.10), (6, 0.05, -0.05), (7, 0.20, 0.0),
        (9, 0.10, 0.02), (10, 0.10, 0.0), (10, 0.10, 0.10), (15, 0.05, 0.03), (16, 0.10, -0.20),
        (20, 0.02, 0.01), (30, 0.10, 0.0), (30, 0.10, 0.10), (40, 0.08, -0.10), (50, 0.15, 0.50),
        (60, 0.10, 0.0), (80, 0.05, 0.05),
    ]):
        b, c = lognormal_pairs(g, n, sigma, shift)
        add(f"lognormal-n{n}-sigma{sigma}-shift{shift:+}", b, c)
    # heavy tails: Student t(3) noise on the log scale
    b = 50 * np.exp(0.05 * g.standard_t(3, 8)); c = 50 * 1.04 * np.exp(0.05 * g.standard_t(3, 8))
    add("heavy-tail-t3-n8-shift+0.04", b, c)
    # one and two gross outliers
    b, c = lognormal_pairs(g, 11, 0.05, 0.05); c[3] *= 3.0
    add("outlier-n11-shift+0.05", b, c)
    b, c = lognormal_pairs(g, 31, 0.05, -0.05); c[0] *= 0.2; c[17] *= 4.0
    add("two-outliers-n31-shift-0.05", b, c)
    # bimodal: half the blocks ran on a slow core
    b, c = lognormal_pairs(g, 12, 0.03, 0.08); slow = np.array([1.0, 1.3] * 6); b *= slow; c *= slow
    add("bimodal-blocks-n12-shift+0.08", b, c)
    # skewed (exponential) noise on the raw scale
    b = 20 + g.exponential(2.0, 25); c = 21 + g.exponential(2.0, 25)
    add("exponential-noise-n25", b, c)
    # quantized timings (integer milliseconds): tied ratios -> Wilcoxon normal approximation
    b = np.round(100 + g.normal(0, 3, 24)); c = np.round(104 + g.normal(0, 3, 24)); b[5] = 100; c[5] = 104; b[9] = 100; c[9] = 104
    add("quantized-ties-n24", b, c)
    # a zero difference (identical pair) -> zeros dropped, normal approximation
    b, c = lognormal_pairs(g, 13, 0.05, 0.06); c[2] = b[2]
    add("zero-difference-n13", b, c)
    return specs


def bca(b, c, seed):
    args = dict(paired=True, vectorized=True, method="BCa", n_resamples=RESAMPLES, confidence_level=LEVEL)
    statistic = lambda x, y, axis: np.median(np.log(y / x), axis=axis)
    data = (np.array(b), np.array(c))
    try:  # scipy >= 1.15 takes `rng`; Debian's 1.10 takes `random_state`
        res = stats.bootstrap(data, statistic, rng=np.random.default_rng(seed), **args)
    except TypeError:
        res = stats.bootstrap(data, statistic, random_state=np.random.default_rng(seed), **args)
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def acceleration(r):
    """scipy's own jackknife acceleration (private helper; its signature gained `xp` in 1.15)."""
    kwargs = dict(axis=-1, alpha=(1 - LEVEL) / 2, theta_hat_b=np.zeros((RESAMPLES,)), batch=None)
    statistic = lambda x, axis: np.median(x, axis=axis)
    with np.errstate(all="ignore"):
        try:
            return float(_bca_interval((np.array(r),), statistic, xp=np, **kwargs)[2])
        except TypeError:
            return float(_bca_interval((np.array(r),), statistic, **kwargs)[2])


def wilcoxon(r):
    nz = [x for x in r if x != 0]
    ties = len(set(abs(x) for x in nz)) != len(nz)
    exact = len(nz) <= 50 and not ties and len(nz) == len(r)
    res = stats.wilcoxon(r, method="exact" if exact else "asymptotic", correction=True)
    return ("exact" if exact else "normal_approximation"), float(res.pvalue)


def one(index, name, b, c):
    r = [math.log(y / x) for x, y in zip(b, c)]
    seed = index
    low, high = bca(b, c, seed)
    reruns = [bca(b, c, 1000 + k) for k in range(RERUNS)]
    lows = [x for x, _ in reruns]; highs = [y for _, y in reruns]
    a_hat = acceleration(r)
    method, p = wilcoxon(r)
    return {
        "name": name, "seed": seed, "resamples": RESAMPLES, "confidence_level": LEVEL,
        "baseline": b, "candidate": c,
        "expected": {
            "log_ratio_median": float(np.median(np.array(r))),
            "bca_low": low, "bca_high": high,
            "bca_low_reruns": {"sd": float(np.std(lows, ddof=1)), "min": min(lows), "max": max(lows)},
            "bca_high_reruns": {"sd": float(np.std(highs, ddof=1)), "min": min(highs), "max": max(highs)},
            "acceleration": a_hat,
            "wilcoxon_method": method, "wilcoxon_p": p,
        },
    }


def bh(p):
    if hasattr(stats, "false_discovery_control"):  # scipy >= 1.11
        return stats.false_discovery_control(p, method="bh")
    # Debian's scipy 1.10 lacks it: the textbook step-up formula in numpy.
    p = np.asarray(p); order = np.argsort(p); m = len(p)
    q = np.minimum.accumulate((m * p[order] / np.arange(1, m + 1))[::-1])[::-1]
    out = np.empty(m); out[order] = np.minimum(q, 1)
    return out


def extras():
    g = np.random.default_rng(7)
    out = {"spearman": [], "benjamini_hochberg": [], "ols_aicc": []}
    for n in (5, 12, 40):
        x = list(map(float, np.repeat([64, 256, 1024, 4096, 16384], n // 5 or 1)[:n]))
        y = [float(v * (1 + 0.3 * g.normal())) for v in x]
        y2 = [float(v) for v in g.normal(size=len(x))]
        for yy in (y, y2):
            res = stats.spearmanr(x, yy)
            out["spearman"].append({"x": x, "y": yy, "rho": float(res.statistic), "p": float(res.pvalue)})
    for m in (1, 5, 20):
        p = [float(v) for v in g.uniform(0, 0.2, m)]
        out["benjamini_hochberg"].append({"p": p, "q": [float(v) for v in bh(p)]})
    sizes = [100.0, 400.0, 1600.0, 6400.0, 25600.0]
    for truth in ("linear", "n_log_n", "quadratic"):
        f = {"linear": lambda n: n, "n_log_n": lambda n: n * math.log(n), "quadratic": lambda n: n * n}[truth]
        xs = [s for s in sizes for _ in range(4)]
        ys = [float(3 + 2 * f(s) * math.exp(0.1 * g.normal())) for s in xs]
        fits = {}
        for model, basis in [("constant", None), ("logarithmic", np.log), ("linear", lambda v: v),
                             ("n_log_n", lambda v: v * np.log(v)), ("quadratic", lambda v: v * v)]:
            X = np.ones((len(xs), 1)) if basis is None else np.column_stack([np.ones(len(xs)), basis(np.array(xs))])
            coef, *_ = np.linalg.lstsq(X, np.array(ys), rcond=None)
            rss = float(np.sum((np.array(ys) - X @ coef) ** 2)); n = len(xs); k = X.shape[1]
            aic = n * math.log(rss / n) + n * (math.log(2 * math.pi) + 1) + 2 * k
            fits[model] = {"coefficients": [float(v) for v in coef], "rss": rss, "aicc": aic + 2 * k * (k + 1) / (n - k - 1)}
        out["ols_aicc"].append({"truth": truth, "x": xs, "y": ys, "fits": fits})
    return out


def main():
    target = os.path.join(HERE, "datasets")
    os.makedirs(target, exist_ok=True)
    for index, (name, b, c) in enumerate(make_datasets()):
        with open(os.path.join(target, f"{index + 1:02d}-{name}.json"), "w") as fh:
            json.dump(one(index + 1, name, b, c), fh, indent=1)
            fh.write("\n")
    with open(os.path.join(HERE, "extras.json"), "w") as fh:
        json.dump({"scipy_version": scipy.__version__, "numpy_version": np.__version__, **extras()}, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
