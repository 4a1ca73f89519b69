"""The latency-bandwidth model of a copy: t(s) = t0 + s / B.

t0 is the fixed cost of one copy, B the asymptotic bandwidth, and s_half = t0 * B the size at
which a copy reaches half of B (Hockney's n_1/2).
"""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LatencyBandwidthFit:
    t0_s: float
    bandwidth_bytes_per_s: float

    @property
    def half_bandwidth_bytes(self) -> float:
        return self.t0_s * self.bandwidth_bytes_per_s

    def seconds(self, sizes_bytes: np.ndarray) -> np.ndarray:
        return self.t0_s + np.asarray(sizes_bytes, dtype=float) / self.bandwidth_bytes_per_s

    def bytes_per_second(self, sizes_bytes: np.ndarray) -> np.ndarray:
        return np.asarray(sizes_bytes, dtype=float) / self.seconds(sizes_bytes)


def fit_latency_bandwidth(
    sizes_bytes: np.ndarray, seconds: np.ndarray
) -> LatencyBandwidthFit | None:
    """Fit t0 and B, or None where the data cannot determine them.

    Sizes span many decades, so plain least squares would fit only the largest copies. We
    minimise the relative error sum(((t0 + s/B - t) / t)^2) instead, which is linear in
    (t0, 1/B); non-negative least squares keeps both physically meaningful.
    """
    s = np.asarray(sizes_bytes, dtype=float)
    t = np.asarray(seconds, dtype=float)
    usable = np.isfinite(s) & np.isfinite(t) & (t > 0) & (s >= 0)
    s, t = s[usable], t[usable]
    if np.unique(s).size < 2:
        return None
    from scipy.optimize import nnls  # here: scipy is most of a command's start-up time

    (t0, inverse_bandwidth), _ = nnls(np.column_stack([1 / t, s / t]), np.ones_like(t))
    if inverse_bandwidth <= 0:
        return None
    return LatencyBandwidthFit(float(t0), float(1 / inverse_bandwidth))
