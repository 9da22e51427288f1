"""rollout_restart tied to configuration (usecases/config_restart.py) against kubesim: the ConfigMaps
and Secrets read once per task, a missing required one refused before any write, a restart when the
digest differs from the one recorded (in the same write as the stamp), nothing when it does not, a
first run that only records, check mode, a paused Deployment, and a decision made again after a
conflict."""

import base64

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import config_digest
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workload import Refused
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import config_restart as on_config

from tests.support.kube import api_client, create_settled, read_log, writes
from tests.support.manifests import workload

pytestmark = pytest.mark.unit

NS = '/api/v1/namespaces/default'
WEB = '/apis/apps/v1/namespaces/default/deployments/web'
DIGEST = config_digest.CONFIG_DIGEST_ANNOTATION
STAMP = 'kubectl.kubernetes.io/restartedAt'


def clock(*stamps):
    """``now`` answering each of ``stamps`` once."""
    left = list(stamps)
    return lambda: left.pop(0)


@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log', ready_delay=0.02)
    sim.log = tmp_path / 'requests.log'
    sim.client = api_client(sim)
    sim.client.create(NS + '/configmaps', {'metadata': {'name': 'settings'}, 'data': {'level': 'info'}})
    sim.client.create(NS + '/secrets', {'metadata': {'name': 'creds'},
                                        'data': {'password': base64.b64encode(b'pw-1').decode()}})
    env_from = [{'configMapRef': {'name': 'settings'}}, {'secretRef': {'name': 'creds'}},
                {'configMapRef': {'name': 'extra', 'optional': True}}]
    create_settled(sim.client, workload('Deployment', 'web', 'nginx:1', 1, extra_template={
        'spec': {'containers': [{'name': 'app', 'image': 'nginx:1', 'envFrom': env_from}]}}))
    return sim


def web(sim):
    return Deployment(sim.client.get(WEB))


def since(sim):
    return len(read_log(sim.log))


def requests_since(sim, mark):
    return [(e['method'], e['path'], e['dry_run']) for e in read_log(sim.log)[mark:]]


def template_annotations(obj):
    return obj['spec']['template']['metadata'].get('annotations') or {}


# ---- reading the configuration ---------------------------------------------------------------------

def test_the_referenced_objects_are_read_once_per_task_and_missing_ones_skipped(sim):
    w = web(sim)
    refs = config_digest.references(w.template)
    assert [r.key for r in refs] == ['ConfigMap/extra', 'ConfigMap/settings', 'Secret/creds']
    cache, mark = {}, since(sim)
    objects = on_config.read_configs(sim.client, 'default', refs, cache)
    assert sorted(objects) == ['ConfigMap/settings', 'Secret/creds']
    assert objects['ConfigMap/settings']['data'] == {'level': 'info'}
    assert sorted(requests_since(sim, mark)) == [('GET', NS + '/configmaps/extra', False),
                                                 ('GET', NS + '/configmaps/settings', False),
                                                 ('GET', NS + '/secrets/creds', False)]
    mark = since(sim)
    assert on_config.read_configs(sim.client, 'default', refs, cache) == objects
    assert requests_since(sim, mark) == []  # a second workload of the task reads nothing again


def test_a_missing_required_object_is_refused_before_any_write(sim):
    w = web(sim)
    refs, objects = on_config.config_references(sim.client, w, from_template=True)
    assert [r.key for r in refs] == ['ConfigMap/extra', 'ConfigMap/settings', 'Secret/creds']
    assert sorted(objects) == ['ConfigMap/settings', 'Secret/creds']  # the optional one may be absent
    mark = since(sim)
    with pytest.raises(Refused) as err:
        on_config.config_restart(sim.client, w, config_maps=['settings', 'extra'], secrets=['gone'])
    assert str(err.value).startswith('deployments.apps "web": ConfigMap "extra", Secret "gone" not found in '
                                     'namespace "default"; nothing was restarted')
    assert writes(read_log(sim.log)[mark:]) == []


# ---- restart or not --------------------------------------------------------------------------------

def test_the_first_run_restarts_and_records_the_digest_in_the_same_write(sim):
    mark = since(sim)
    out = on_config.config_restart(sim.client, web(sim), from_template=True,
                                   now=clock('2026-01-02T03:04:05Z'))
    assert out.changed and out.fields['restarted_at'] == '2026-01-02T03:04:05Z'
    assert out.fields['restart_reason'] == 'no configuration digest recorded yet'
    assert out.fields['config_objects'] == ['ConfigMap/extra', 'ConfigMap/settings', 'Secret/creds']
    assert out.fields['recorded_only'] is False
    digest = out.fields['config_digest']
    assert digest.startswith('ConfigMap/extra=absent,ConfigMap/settings=') and ',Secret/creds=' in digest
    (patch,) = writes(read_log(sim.log)[mark:])
    assert (patch['method'], patch['dry_run']) == ('PATCH', False)
    assert patch['content_type'] == 'application/json-patch+json'
    now = sim.client.get(WEB)
    assert template_annotations(now) == {DIGEST: digest, STAMP: '2026-01-02T03:04:05Z'}
    assert out.obj['metadata']['generation'] == now['metadata']['generation'] == 2
    assert out.before['spec']['template']['metadata'].get('annotations') is None
    assert out.after['spec']['template']['metadata']['annotations'][DIGEST] == digest


def test_an_unchanged_configuration_restarts_nothing_and_a_change_restarts(sim):
    first = on_config.config_restart(sim.client, web(sim), from_template=True, now=clock('T1'))
    mark = since(sim)
    same = on_config.config_restart(sim.client, web(sim), from_template=True, now=clock())
    assert not same.changed and same.fields['config_digest'] == first.fields['config_digest']
    assert same.fields['config_changes'] == [] and same.fields['restarted_at'] is None
    assert writes(read_log(sim.log)[mark:]) == []
    sim.client.patch(NS + '/configmaps/settings', {'data': {'level': 'debug'}})
    sim.client.create(NS + '/configmaps', {'metadata': {'name': 'extra'}, 'data': {'x': '1'}})
    changed = on_config.config_restart(sim.client, web(sim), from_template=True, now=clock('T2'))
    assert changed.changed and changed.fields['restarted_at'] == 'T2'
    assert changed.fields['config_changes'] == [{'object': 'ConfigMap/extra', 'change': 'changed'},
                                                {'object': 'ConfigMap/settings', 'change': 'changed'}]
    assert changed.fields['restart_reason'] == 'ConfigMap/extra changed, ConfigMap/settings changed'
    assert template_annotations(sim.client.get(WEB))[STAMP] == 'T2'


def test_a_first_run_that_records_restarts_nothing_then_the_template_takes_the_record_over(sim):
    before = sim.client.get(WEB)
    out = on_config.config_restart(sim.client, web(sim), secrets=['creds'], now=clock(),
                                   first_run=on_config.FIRST_RUN_RECORD)
    assert out.changed and out.fields['recorded_only'] is True and out.fields['restarted_at'] is None
    now = sim.client.get(WEB)
    assert now['metadata']['annotations'][DIGEST] == out.fields['config_digest']
    assert now['spec']['template'] == before['spec']['template']  # no pod replaced
    replica_sets = sim.client.list('/apis/apps/v1/namespaces/default/replicasets')['items']
    assert len(replica_sets) == 1
    again = on_config.config_restart(sim.client, web(sim), secrets=['creds'], now=clock(),
                                     first_run=on_config.FIRST_RUN_RECORD)
    assert not again.changed
    sim.client.patch(NS + '/secrets/creds', {'data': {'password': base64.b64encode(b'pw-2').decode()}})
    rotated = on_config.config_restart(sim.client, web(sim), secrets=['creds'], now=clock('T3'),
                                       first_run=on_config.FIRST_RUN_RECORD)
    assert rotated.changed and rotated.fields['restart_reason'] == 'Secret/creds changed'
    now = sim.client.get(WEB)
    assert DIGEST not in now['metadata']['annotations']  # the template records it from now on
    assert template_annotations(now) == {DIGEST: rotated.fields['config_digest'], STAMP: 'T3'}


def test_check_mode_is_a_dry_run_of_the_same_patch(sim):
    before = sim.client.get(WEB)
    mark = since(sim)
    out = on_config.config_restart(sim.client, web(sim), from_template=True, check_mode=True,
                                   now=clock('T1'))
    assert out.changed and out.fields['restarted_at'] == 'T1' and out.warnings == []
    assert [e['dry_run'] for e in writes(read_log(sim.log)[mark:])] == [True]
    assert template_annotations({'spec': out.after['spec']})[STAMP] == 'T1'
    assert out.obj is out.workload.obj  # nothing to wait for
    assert sim.client.get(WEB)['spec'] == before['spec']


def test_a_paused_deployment_is_refused_only_when_it_needs_a_restart(sim):
    on_config.config_restart(sim.client, web(sim), config_maps=['settings'], now=clock('T1'))
    sim.client.patch(WEB, {'spec': {'paused': True}})
    assert not on_config.config_restart(sim.client, web(sim), config_maps=['settings'], now=clock()).changed
    sim.client.patch(NS + '/configmaps/settings', {'data': {'level': 'debug'}})
    with pytest.raises(Refused, match="can't restart paused deployment"):
        on_config.config_restart(sim.client, web(sim), config_maps=['settings'], now=clock('T2'))


def test_a_template_changed_since_the_read_is_decided_again_with_the_same_stamp(sim):
    stale = web(sim)
    other = {'spec': {'template': {'spec': {'containers': [{'name': 'app', 'image': 'nginx:2'}]}}}}
    sim.client.patch(WEB, other)  # written by someone else after the read
    mark = since(sim)
    out = on_config.config_restart(sim.client, stale, config_maps=['settings'], now=clock('T1'))
    assert out.changed and out.fields['restarted_at'] == 'T1'
    assert [(e['method'], e['status']) for e in read_log(sim.log)[mark:] if e['path'] == WEB] == [
        ('PATCH', 422), ('GET', 200), ('PATCH', 200)]
    now = sim.client.get(WEB)
    assert now['spec']['template']['spec']['containers'][0]['image'] == 'nginx:2'  # the other write kept
    assert template_annotations(now)[STAMP] == 'T1'
