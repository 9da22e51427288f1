"""How every verb writes and reports (usecases/writes.py): the Outcome of one verb on one workload,
``write`` (a PATCH, or in check mode the same request with dryRun=All; credentials that may only
read get the local answer and a warning) and ``decide_and_write`` (decided again from a fresh read
after a conflict), against kubesim."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.api import client as client_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds import patches
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import writes as writes_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.writes import (
    Outcome,
    annotations_of,
    decide_and_write,
    template_of,
    write,
)

from tests.support.kube import api_client, create_settled, read_log, writes
from tests.support.manifests import deployment, workload

pytestmark = pytest.mark.unit

DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments'
WEB = DEPLOYMENTS + '/web'
LABEL = {'metadata': {'labels': {'team': 'shop'}}}


# ---- the outcome -----------------------------------------------------------------------------------

def test_an_outcome_is_the_entry_of_one_workload_and_its_diff():
    web = Deployment(deployment())
    out = Outcome(web, True, {'paused': True}, before={'spec': {'paused': False}},
                  after={'spec': {'paused': True}}, warnings=('careful',))
    assert out.entry() == {'kind': 'Deployment', 'name': 'web', 'namespace': 'default', 'changed': True,
                           'paused': True}
    assert out.diff() == {'before': {'spec': {'paused': False}}, 'after': {'spec': {'paused': True}},
                          'before_header': 'Deployment default/web', 'after_header': 'Deployment default/web'}
    assert out.obj is web.obj and out.warnings == ['careful'] and out.error is None
    assert not out.diff_unchanged


def test_an_outcome_waits_from_the_latest_object_and_its_fields_do_not_override_identity_copies():
    web = Deployment(deployment())
    written = deployment(rv='101')
    out = Outcome(web, False, obj=written)
    assert out.obj is written and out.fields == {} and out.entry()['changed'] is False
    entry = out.entry()
    entry['name'] = 'other'
    assert out.entry()['name'] == 'web'


def test_the_template_and_annotations_of_any_answer():
    obj = deployment(annotations={'a': 'b'})
    assert template_of(obj) is obj['spec']['template'] and annotations_of(obj) == {'a': 'b'}
    for empty in (None, {}, {'spec': None, 'metadata': None}):
        assert template_of(empty) == {} and annotations_of(empty) == {}


# ---- write, against kubesim ------------------------------------------------------------------------

@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log', token='admin-token',
                          readonly_token='viewer-token', ready_delay=0.02)
    sim.log = tmp_path / 'requests.log'
    sim.client = api_client(sim, allow_insecure_credentials=True)
    create_settled(sim.client, workload('Deployment', 'web', 'nginx:1', 1))  # the controller idle after
    return sim


def viewer(sim, tmp_path):
    sim.write_kubeconfig(tmp_path / 'viewer', readonly=True)
    return api_client(sim, allow_insecure_credentials=True)


def local(obj):
    def after():
        raise AssertionError('the local answer is only for a dry run the server refused')
    return after if obj is None else (lambda: obj)


def test_a_write_is_a_patch_that_persists(sim):
    web = Deployment(sim.client.get(WEB))
    warnings = []
    answer = write(sim.client, web, patches.STRATEGIC_MERGE, LABEL, False, local(None), warnings)
    assert answer['metadata']['labels']['team'] == 'shop' and warnings == []
    (entry,) = writes(read_log(sim.log)[-1:])
    assert (entry['method'], entry['path'], entry['dry_run']) == ('PATCH', WEB, False)
    assert entry['content_type'] == 'application/strategic-merge-patch+json'
    assert 'fieldManager=kubeops-rollout' in entry['query']
    assert sim.client.get(WEB)['metadata']['labels'] == {'team': 'shop'}


def test_check_mode_sends_the_same_request_as_a_dry_run(sim):
    web = Deployment(sim.client.get(WEB))
    version = web.resource_version
    body = [{'op': 'test', 'path': '/metadata/generation', 'value': 1},
            {'op': 'replace', 'path': '/spec/template/spec/containers/0/image', 'value': 'nginx:2'}]
    warnings = []
    answer = write(sim.client, web, patches.JSON_PATCH, body, True, local(None), warnings)
    # The server's answer: its validation and defaulting applied (the pull policy a tag gets).
    container = answer['spec']['template']['spec']['containers'][0]
    assert container['image'] == 'nginx:2' and container['imagePullPolicy'] == 'IfNotPresent'
    assert warnings == []
    (entry,) = writes(read_log(sim.log)[-1:])
    assert entry['dry_run'] is True and 'dryRun=All' in entry['query']
    assert entry['content_type'] == 'application/json-patch+json'
    assert sim.client.get(WEB)['metadata']['resourceVersion'] == version


def test_check_mode_with_credentials_that_may_only_read_answers_locally_and_warns(sim, tmp_path):
    reader = viewer(sim, tmp_path)
    web = Deployment(reader.get(WEB))
    warnings = []
    mine = {'metadata': {'labels': {'team': 'shop'}}}
    assert write(reader, web, patches.STRATEGIC_MERGE, LABEL, True, local(mine), warnings) is mine
    assert warnings == [writes_mod.DRY_RUN_FORBIDDEN % 'Deployment default/web']
    assert 'computed locally' in warnings[0]
    entry = read_log(sim.log)[-1]
    assert (entry['status'], entry['dry_run'], entry['user']) == (403, True, 'kubesim-viewer')
    # Without check mode the 403 is the answer.
    with pytest.raises(ApiError) as err:
        write(reader, web, patches.STRATEGIC_MERGE, LABEL, False, local(mine), [])
    assert err.value.status == 403


def test_check_mode_surfaces_what_the_server_refuses_for_another_reason(sim):
    web = Deployment(sim.client.get(WEB))
    bad = {'spec': {'template': {'spec': {'containers': [{'name': 'app', 'image': ' nginx:2'}]}}}}
    with pytest.raises(ApiError) as err:
        write(sim.client, web, patches.STRATEGIC_MERGE, bad, True, local(None), [])
    assert err.value.status == 422 and 'leading or trailing whitespace' in err.value.message


# ---- decide_and_write ------------------------------------------------------------------------------

def guarded_label(workload, value):
    """A JSON patch adding the label ``team``, guarded by the labels it was decided from (the
    Deployment controller never writes them)."""
    labels = workload.metadata.get('labels')
    return [{'op': 'test', 'path': '/metadata/labels', 'value': labels},
            {'op': 'add', 'path': '/metadata/labels/team', 'value': value}]


def test_after_a_conflict_the_workload_is_read_again_and_the_decision_made_again(sim):
    sim.client.patch(WEB, {'metadata': {'labels': {'app': 'web'}}})
    stale = Deployment(sim.client.get(WEB))
    sim.client.patch(WEB, {'metadata': {'labels': {'someone': 'else'}}})  # written meanwhile
    seen = []

    def attempt(workload, conflicted):
        labels = workload.metadata['labels']
        seen.append((workload.resource_version, conflicted, labels.get('someone')))
        written = write(sim.client, workload, patches.JSON_PATCH, guarded_label(workload, 'shop'), False,
                        local(None), [])
        return Outcome(workload, True, obj=written)

    since = len(read_log(sim.log))
    out = decide_and_write(sim.client, stale, attempt)
    assert [(c, s) for _rv, c, s in seen] == [(False, None), (True, 'else')]
    assert seen[0][0] == stale.resource_version != seen[1][0]
    assert isinstance(out.workload, Deployment) and out.workload.metadata['labels']['someone'] == 'else'
    assert out.obj['metadata']['labels'] == {'app': 'web', 'someone': 'else', 'team': 'shop'}
    log = read_log(sim.log)[since:]
    assert [(e['method'], e['status']) for e in log] == [('PATCH', 422), ('GET', 200), ('PATCH', 200)]


def test_a_409_is_decided_again_and_conflicts_are_bounded(sim):
    sim.set_faults('conflict=apps/deployments/default/web:1')
    calls = []

    def attempt(workload, conflicted):
        calls.append(conflicted)
        return write(sim.client, workload, patches.STRATEGIC_MERGE, LABEL, False, local(None), [])

    decide_and_write(sim.client, Deployment(sim.client.get(WEB)), attempt)
    assert calls == [False, True]
    sim.set_faults('conflict=apps/deployments/default/web:%d' % client_mod.WRITE_ATTEMPTS)
    calls[:] = []
    with pytest.raises(ApiError) as err:
        decide_and_write(sim.client, Deployment(sim.client.get(WEB)), attempt)
    assert err.value.status == 409 and len(calls) == client_mod.WRITE_ATTEMPTS


def test_an_error_that_is_no_conflict_is_not_decided_again(sim):
    calls = []

    def attempt(workload, conflicted):
        calls.append(conflicted)
        bad = {'spec': {'replicas': -1}}
        return write(sim.client, workload, patches.STRATEGIC_MERGE, bad, False, local(None), [])

    with pytest.raises(ApiError) as err:
        decide_and_write(sim.client, Deployment(sim.client.get(WEB)), attempt)
    assert err.value.status == 422 and calls == [False]
