# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The Prometheus provider: an instant query (``/api/v1/query``) whose value, or every series of
its vector, must stay within the check's ``min`` and ``max``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import math

try:
    from urllib.parse import urlencode
except ImportError:  # pragma: no cover - Python 2 is not supported, this keeps sanity's import test quiet
    from urllib import urlencode  # noqa: F401

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import (
    ERROR,
    FAILED,
    INCONCLUSIVE,
    PASSED,
    AnalysisError,
    Measurement,
    Provider,
    fmt,
)


def bounds_text(low, high):
    """``between 1 and 5``, ``min 1`` or ``max 5``."""
    if low is not None and high is not None:
        return 'between %s and %s' % (fmt(low), fmt(high))
    if low is not None:
        return 'min %s' % fmt(low)
    return 'max %s' % fmt(high)


def values(data):
    """[(label text, float)] of a Prometheus instant-query result, or None for another shape."""
    if not isinstance(data, dict):
        return None
    kind, result = data.get('resultType'), data.get('result')
    try:
        if kind == 'scalar':
            return [('', float(result[1]))]
        if kind == 'vector':
            out = []
            for sample in result:
                metric = dict(sample.get('metric') or {})
                name = metric.pop('__name__', '')
                labels = ', '.join('%s="%s"' % (k, metric[k]) for k in sorted(metric))
                series = name + ('{%s}' % labels if labels else '')
                out.append((' of %s' % series if series else '', float(sample['value'][1])))
            return out
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        return None
    return None


class PrometheusProvider(Provider):
    """A check's ``prometheus`` option: ``url`` (the server) and ``query``; the check needs ``min`` or
    ``max``. No data (an empty result, NaN) is ``inconclusive``; a query error, a non-Prometheus
    answer or a range vector is an ``error``."""

    KEY = 'prometheus'
    OPTIONS = dict(Provider.ENDPOINT_OPTIONS, query={'type': 'str', 'required': True})

    def __init__(self, name, options, low=None, high=None):
        if low is None and high is None:
            raise AnalysisError(
                'analysis check "%s" needs min or max: the bounds its query\'s value must stay within' % name
            )
        super(PrometheusProvider, self).__init__(name, options, low, high)

    def describe(self):
        out = super(PrometheusProvider, self).describe()
        out.update(query=self.endpoint['query'], min=self.min, max=self.max)
        return out

    def _out_of_bounds(self, value):
        return (self.min is not None and value < self.min) or (self.max is not None and value > self.max)

    def _measure(self, opener):
        base = self.endpoint['url'].rstrip('/')
        url = '%s/api/v1/query?%s' % (base, urlencode({'query': self.endpoint['query']}))
        status, body = self.request(opener, url, 'GET')
        try:
            answer = json.loads(body.decode('utf-8', 'replace'))
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            message = 'check "%s": %s answered %d without a Prometheus result'
            return Measurement(ERROR, message % (self.name, self.where, status))
        if answer.get('status') != 'success':
            why = answer.get('error') or answer.get('errorType') or 'no error given'
            return Measurement(
                ERROR, 'check "%s": the query failed at %s (%d): %s' % (self.name, self.where, status, why)
            )
        found = values(answer.get('data'))
        if found is None:
            return Measurement(
                ERROR,
                'check "%s": %s answered a %s, not a number or a vector'
                % (self.name, self.where, (answer.get('data') or {}).get('resultType')),
            )
        numbers = [(labels, v) for labels, v in found if not math.isnan(v)]
        if not numbers:
            nan = ' (NaN)' if found else ''
            return Measurement(INCONCLUSIVE, 'check "%s": the query returned no data%s' % (self.name, nan))
        bounds = bounds_text(self.min, self.max)
        for labels, value in numbers:
            if self._out_of_bounds(value):
                return Measurement(
                    FAILED,
                    'check "%s": value %s%s is out of bounds (%s)' % (self.name, fmt(value), labels, bounds),
                    value,
                )
        if len(numbers) == 1:
            value, text = numbers[0][1], fmt(numbers[0][1])
        else:
            value, text = [v for _labels, v in numbers], ', '.join(fmt(v) for _labels, v in numbers)
        message = 'check "%s": value %s within bounds (%s)' % (self.name, text, bounds)
        return Measurement(PASSED, message, value)
