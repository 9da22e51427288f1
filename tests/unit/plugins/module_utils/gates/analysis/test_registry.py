"""The provider registry (pure): which check option selects which provider, the check's argument
spec built from the providers' classes, and a new provider added as a class."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis import registry
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.gate import AnalysisGate
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.http import HttpProvider
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.job import Cluster, JobProvider
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.prometheus import (
    PrometheusProvider,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.provider import (
    PASSED,
    AnalysisError,
    Measurement,
    Provider,
)

pytestmark = pytest.mark.unit

PROM = {'url': 'http://prom:9090', 'query': 'up'}
WEB = {'url': 'http://web'}


def test_each_provider_is_selected_by_its_key():
    assert list(registry.PROVIDERS.items()) == [
        ('prometheus', PrometheusProvider), ('http', HttpProvider), ('job', JobProvider)]
    assert [key for key, cls in registry.PROVIDERS.items() if key != cls.KEY] == []


def test_the_check_spec_is_the_name_each_providers_options_and_the_bounds():
    spec = registry.CHECK_OPTIONS
    assert list(spec) == ['name', 'prometheus', 'http', 'job', 'max', 'min', 'namespace', 'timeout']
    assert spec['job'] == {'type': 'dict'}  # a batch/v1 JobSpec, sent as given
    assert spec['prometheus'] == {'type': 'dict', 'options': PrometheusProvider.OPTIONS}
    assert spec['http']['options'] is HttpProvider.OPTIONS
    assert spec['name'] == {'type': 'str', 'required': True}


def test_a_check_becomes_its_providers_instance():
    check = registry.make_check({'name': 'e', 'prometheus': PROM, 'max': 1, 'min': None})
    assert isinstance(check, PrometheusProvider) and (check.name, check.min, check.max) == ('e', None, 1.0)
    check = registry.make_check({'name': 'smoke', 'http': {'url': 'http://web'}, 'prometheus': {}})
    assert isinstance(check, HttpProvider)


@pytest.mark.parametrize('options, message', [
    ({}, 'every analysis check needs a name'),
    ({'name': '  ', 'http': {'url': 'http://web'}}, 'every analysis check needs a name'),
    ({'name': 'a'}, 'analysis check "a" needs exactly one of prometheus, http or job'),
    ({'name': 'a', 'prometheus': PROM, 'http': WEB}, 'needs exactly one of prometheus, http or job'),
    ({'name': 'a', 'prometheus': PROM, 'min': float('nan')}, 'min of analysis check "a" must be a finite'),
    ({'name': 'a', 'http': WEB, 'max': float('inf')}, 'max of analysis check "a" must be a finite'),
])
def test_a_check_without_one_provider_or_with_bad_bounds_is_refused(options, message):
    with pytest.raises(AnalysisError) as err:
        registry.make_check(options)
    assert message in str(err.value)


JOB = {'template': {'spec': {'containers': [{'name': 'c', 'image': 'busybox'}]}}}


def test_a_job_check_takes_the_checks_namespace_and_timeout():
    cluster = Cluster(lambda: None, lambda: 'shop')
    check = registry.make_check({'name': 'smoke', 'job': JOB, 'namespace': 'tests', 'timeout': 60}, cluster)
    assert isinstance(check, JobProvider) and (check.namespace, check.endpoint['timeout']) == ('tests', 60)
    check = registry.make_check({'name': 'smoke', 'job': JOB}, cluster)
    assert (check.namespace, check.endpoint['timeout']) == ('shop', JobProvider.DEFAULT_TIMEOUT)


@pytest.mark.parametrize('options, message', [
    ({'name': 'e', 'prometheus': PROM, 'max': 1, 'timeout': 3},
     'analysis check "e": timeout beside the check\'s name is taken only by job checks; a prometheus check '
     'takes its options under prometheus'),
    ({'name': 'e', 'http': WEB, 'namespace': 'x'}, 'namespace beside the check\'s name is taken only by job'),
    ({'name': 'smoke', 'job': JOB, 'max': 1}, 'min and max do not apply to a job check'),
    ({'name': 'smoke', 'job': JOB, 'min': 0}, 'min and max do not apply to a job check'),
])
def test_check_level_options_and_bounds_only_where_they_apply(options, message):
    with pytest.raises(AnalysisError) as err:
        registry.make_check(options, Cluster(lambda: None, lambda: 'default'))
    assert message in str(err.value)


class Fixed(Provider):
    """A provider added as a class: a value read from the endpoint's body, bounded."""

    KEY = 'fixed'

    def _measure(self, opener):
        _status, body = self.request(opener, self.endpoint['url'], 'GET')
        value = float(body)
        return Measurement(PASSED if value <= self.max else 'failed', 'value %s' % body.decode(), value)


def test_a_new_provider_is_a_new_class_in_the_registry(monkeypatch):
    monkeypatch.setitem(registry.PROVIDERS, 'fixed', Fixed)
    with pytest.raises(AnalysisError, match='needs exactly one of prometheus, http, job or fixed$'):
        registry.make_check({'name': 'a'})
    gate = AnalysisGate({'checks': [{'name': 'f', 'fixed': {'url': 'http://f'}, 'max': 2}]},
                        opener=lambda url, **_kw: (200, b'3'))
    assert not gate.measure()
    assert gate.message == 'analysis failed: value 3 (1 failed measurement, failure_limit 0)'
    assert gate.result()['checks'][0]['type'] == 'fixed'
