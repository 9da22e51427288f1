"""Small robust statistics: the machine is noisy, so medians and quartiles, never means."""

import statistics


def quantile(values, q):
    """Linear-interpolated quantile of a non-empty sequence (q in [0, 1])."""
    data = sorted(values)
    if len(data) == 1:
        return data[0]
    pos = (len(data) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def summary(values):
    """median, quartiles, extremes and count; None for no samples."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {'median': statistics.median(values), 'p25': quantile(values, 0.25),
            'p75': quantile(values, 0.75), 'min': min(values), 'max': max(values), 'n': len(values)}


def ratio(a, b):
    if a is None or b in (None, 0):
        return None
    return a / b
