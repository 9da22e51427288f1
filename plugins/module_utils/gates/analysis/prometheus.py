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

# A passed measurement of a vector shows (and keeps as its value) this many of its series' values.
MAX_VALUES_SHOWN = 10


def bounds_text(low, high):
    """``between 1 and 5``, ``min 1`` or ``max 5``."""
    if low is not None and high is not None:
        return 'between %s and %s' % (fmt(low), fmt(high))
    if low is not None:
        return 'min %s' % fmt(low)
    return 'max %s' % fmt(high)


def _sample_value(value):
    """A sample's value (``[time, "text"]``) as a float: Prometheus sends text, ``+Inf``, ``-Inf`` and
    ``NaN`` included; anything else is not a sample."""
    if not isinstance(value, list) or len(value) != 2 or not isinstance(value[1], (str, int, float)):
        raise ValueError('not a sample')
    if isinstance(value[1], bool):
        raise ValueError('not a sample')
    return float(value[1])


def values(data):
    """[(label text, float)] of a Prometheus instant-query result, or None for another shape. Label
    names and values must be text (they are shown as the endpoint sent them: the caller escapes
    and cuts them)."""
    if not isinstance(data, dict):
        return None
    kind, result = data.get('resultType'), data.get('result')
    try:
        if kind == 'scalar':
            return [('', _sample_value(result))]
        if kind == 'vector':
            if not isinstance(result, list):
                return None
            out = []
            for sample in result:
                metric = dict(sample.get('metric') or {})
                if not all(isinstance(k, str) and isinstance(v, str) for k, v in metric.items()):
                    return None
                name = metric.pop('__name__', '')
                labels = ', '.join('%s="%s"' % (k, metric[k]) for k in sorted(metric))
                series = name + ('{%s}' % labels if labels else '')
                out.append((' of %s' % series if series else '', _sample_value(sample['value'])))
            return out
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        return None
    return None


class PrometheusProvider(Provider):
    """A check's ``prometheus`` option: ``url`` (the server) and ``query``; the check needs ``min`` or
    ``max``. Every series is compared with the bounds (``+Inf`` and ``-Inf`` as numbers); one out of
    them fails the measurement. No data (an empty result, or NaN in any series) is
    ``inconclusive``; an answer that is not a 2xx (whatever its body), a query error, a
    non-Prometheus answer or a range vector is an ``error``."""

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

    def _answer(self, body):
        """The JSON object of the answer, or None (not JSON, not an object, nested too deeply)."""
        try:
            answer = json.loads(body.decode('utf-8', 'replace'))
        except (ValueError, RecursionError):
            return None
        return answer if isinstance(answer, dict) else None

    def _measure(self, opener):
        base = self.endpoint['url'].rstrip('/')
        url = '%s/api/v1/query?%s' % (base, urlencode({'query': self.endpoint['query']}))
        status, body = self.request(opener, url, 'GET')
        answer = self._answer(body)
        if answer is not None and answer.get('status') == 'error' or not 200 <= status < 300:
            if answer is not None and answer.get('status') == 'error':
                why = answer.get('error') or answer.get('errorType')
                why = self.endpoint_text(why) if isinstance(why, str) else 'no error given'
            else:  # an error status fails the measurement whatever the body says
                why = 'an HTTP error status, whatever the body says'
            return Measurement(
                ERROR, 'check "%s": the query failed at %s (%d): %s' % (self.name, self.where, status, why)
            )
        if answer is None:
            message = 'check "%s": %s answered %d without a Prometheus result'
            return Measurement(ERROR, message % (self.name, self.where, status))
        if answer.get('status') != 'success':
            message = 'check "%s": %s answered %d without a Prometheus result'
            return Measurement(ERROR, message % (self.name, self.where, status))
        found = values(answer.get('data'))
        if found is None:
            kind = answer.get('data').get('resultType') if isinstance(answer.get('data'), dict) else None
            return Measurement(
                ERROR,
                'check "%s": %s answered a %s, not a number or a vector'
                % (self.name, self.where, self.endpoint_text(str(kind), 40)),
            )
        if not found:
            return Measurement(INCONCLUSIVE, 'check "%s": the query returned no data' % self.name)
        bounds = bounds_text(self.min, self.max)
        shown_values = [v for _labels, v in found[:MAX_VALUES_SHOWN]]
        value = shown_values[0] if len(found) == 1 else shown_values
        for labels, number in found:
            if not math.isnan(number) and self._out_of_bounds(number):
                return Measurement(
                    FAILED,
                    'check "%s": value %s%s is out of bounds (%s)'
                    % (self.name, fmt(number), self.endpoint_text(labels, 300), bounds),
                    number,
                )
        nan = [labels for labels, number in found if math.isnan(number)]
        if nan:
            series = ' for %s' % self.endpoint_text(nan[0][len(' of '):], 300) if nan[0] else ''
            if len(nan) > 1:
                series += ' and %d more series' % (len(nan) - 1)
            count = ' (%d of %d series)' % (len(nan), len(found)) if len(found) > 1 else ''
            return Measurement(
                INCONCLUSIVE,
                'check "%s": the query returned no data (NaN)%s%s' % (self.name, series, count),
                value,
            )
        text = ', '.join(fmt(v) for v in shown_values)
        if len(found) > MAX_VALUES_SHOWN:
            text += ' and %d more series' % (len(found) - MAX_VALUES_SHOWN)
        message = 'check "%s": value %s within bounds (%s)' % (self.name, text, bounds)
        return Measurement(PASSED, message, value)
