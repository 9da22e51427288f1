"""A canary's phases (usecases/release/canary.py) against kubesim, each driven as rollout_release's main
drives it (release_targets.build_targets, ReleaseOptions, strategies.strategy): the start of a
Deployment (new images and the record in one write, paused once the new ReplicaSet has pods) and of
a StatefulSet (partitioned), a repeated start, a start of other images refused, the promote, the
abort, a failed start put back; and the record itself."""

import json
import re

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import GateOptions
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import strategies
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import canary
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import (
    targets as release_targets,
)

from tests.support.kube import api_client, create_settled, read_log, settled, wait_until, writes
from tests.support.manifests import workload

from tests.support import seals

pytestmark = pytest.mark.unit

DEPLOY = '/apis/apps/v1/namespaces/default/deployments/web'
STS = '/apis/apps/v1/namespaces/default/statefulsets/db'
RECORD = canary.CANARY_ANNOTATION
CAUSE = 'kubernetes.io/change-cause'
BAD = 'registry.invalid/app:2'


@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log', ready_delay=0.05,
                          fail_image=r'^registry\.invalid/')
    sim.log = tmp_path / 'requests.log'
    sim.client = api_client(sim)
    return sim


def web(sim, replicas=4):
    return create_settled(sim.client, workload('Deployment', 'web', 'nginx:1', replicas,
                                               extra_template={'metadata': {'labels': {'tier': 'front'}}}))


def db(sim, replicas=3):
    return create_settled(sim.client, workload('StatefulSet', 'db', 'redis:1', replicas,
                                               updateStrategy={'type': 'RollingUpdate'}))


def entry(kind, name, image):
    return {'kind': kind, 'name': name, 'images': {'app': image}}


def phase(sim, name, wanted, cause=None, **options):
    """One call of rollout_release with ``canary: name``: (result, progress lines)."""
    options.setdefault('timeout', 30)
    options.setdefault('gates', GateOptions(fail_fast_seconds=1))
    opts = release_targets.ReleaseOptions(canary=name, **options)
    chosen = strategies.strategy(opts)
    assert chosen is canary.PHASES[name]
    lines = []
    targets = release_targets.build_targets(wanted, 'default', cause)
    return chosen(sim.client, targets, opts, progress=lines.append, note=lines.append).run(), lines


def persisted(sim, since=0, path=None):
    return [e for e in writes(read_log(sim.log)[since:], dry_run=False) if path is None or e['path'] == path]


def mark(sim):
    return len(read_log(sim.log))


def record(obj):
    return json.loads(obj['metadata']['annotations'][RECORD])


def pod_images(sim, app):
    pods = sim.client.list('/api/v1/namespaces/default/pods', label_selector='app=%s' % app)['items']
    live = [p for p in pods if not p['metadata'].get('deletionTimestamp')]
    return sorted(p['spec']['containers'][0]['image'] for p in live)


def image(obj):
    return obj['spec']['template']['spec']['containers'][0]['image']


def partition(obj):
    return obj['spec']['updateStrategy']['rollingUpdate']['partition']


# ---- the record ------------------------------------------------------------------------------------

@pytest.mark.parametrize('annotations, expected', [
    ({}, None),
    ({RECORD: ''}, None),
    ({RECORD: '{not json'}, None),
    ({RECORD: '[1]'}, None),
    ({RECORD: '{"template": "x"}'}, None),
    ({RECORD: '{"template": {}, "images": ["nginx:2"]}'}, None),
    ({RECORD: '{"template": {}, "images": "nginx:2"}'}, None),
    ({RECORD: '{"template": {}, "images": {"app": 2}}'}, None),
    ({RECORD: '{"template": {}, "images": {"app": "x"}}'}, {'template': {}, 'images': {'app': 'x'}}),
])
def test_record_of_reads_only_a_well_formed_record(annotations, expected):
    assert canary.record_of({'metadata': {'annotations': annotations}}) == expected
    assert canary.record_of({}) is None


# ---- start -----------------------------------------------------------------------------------------

def test_a_deployment_canary_is_the_new_images_and_the_record_in_one_write_then_paused(sim):
    before = web(sim)
    since = mark(sim)
    result, lines = phase(sim, 'start', [entry('Deployment', 'web', 'nginx:2')], cause='v2')
    assert not result.failed and result.changed, result.message
    assert result.lines == ['Canary started: Deployment default/web']
    (t,) = result.targets
    assert t.outcome == release_targets.UPGRADED and t.status.done and t.status.reason == 'CanaryReady'
    # The write: images, change-cause and the record of what the workload had, in one JSON patch
    # guarded by the generation and annotations the preflight read.
    ops = t.patch[1]
    assert t.patch[0] == 'application/json-patch+json'
    assert {'op': 'test', 'path': '/metadata/generation', 'value': before['metadata']['generation']} in ops
    (template,) = [o['value'] for o in ops if o['path'] == '/spec/template']
    assert [(c['name'], c['image']) for c in template['spec']['containers']] == [('app', 'nginx:2')]
    (annotations,) = [o['value'] for o in ops if o['path'] == '/metadata/annotations' and o['op'] == 'add']
    assert annotations[CAUSE] == 'v2'
    written = json.loads(annotations[RECORD])
    assert written == {'id': written['id'], 'images': {'app': 'nginx:2'},
                       'template': before['spec']['template'], 'changeCause': None, 'v': 2}
    # Sealed on the Lease of the start's release, which stays while the record does.
    assert list(seals.seals_on(sim.client, 'default', written['id'])) == ['Deployment/default/web']
    # Then the pause, once the new ReplicaSet had pods: two writes in all.
    assert [e['content_type'] for e in persisted(sim, since, DEPLOY)] == [
        'application/json-patch+json', 'application/strategic-merge-patch+json']
    assert 'Deployment default/web: paused with the canary pods of the new ReplicaSet' in lines
    now = sim.client.get(DEPLOY)
    assert now['spec']['paused'] is True and image(now) == 'nginx:2'
    assert record(now)['template'] == before['spec']['template']
    assert 1 <= now['status']['updatedReplicas'] < 4 and not now['status'].get('unavailableReplicas')
    assert 'nginx:2' in pod_images(sim, 'web') and 'nginx:1' in pod_images(sim, 'web')


def test_a_statefulset_canary_updates_its_highest_ordinals_only(sim):
    before = db(sim)
    since = mark(sim)
    result, _ = phase(sim, 'start', [entry('StatefulSet', 'db', 'redis:2')], canary_ordinals=1)
    assert not result.failed, result.message
    (t,) = result.targets
    (strategy,) = [o['value'] for o in t.patch[1] if o['path'] == '/spec/updateStrategy']
    assert t.status.done and strategy['rollingUpdate']['partition'] == 2
    assert strategy['type'] == before['spec']['updateStrategy']['type']  # the rest kept
    assert len(persisted(sim, since, STS)) == 1  # the partition is the hold: no second write
    now = settled_canary(sim)
    assert partition(now) == 2 and record(now)['partition'] == 0
    assert record(now)['template'] == before['spec']['template']
    assert pod_images(sim, 'db') == ['redis:1', 'redis:1', 'redis:2']
    pods = sim.client.list('/api/v1/namespaces/default/pods', label_selector='app=db')['items']
    canaries = {p['metadata']['name'] for p in pods if p['spec']['containers'][0]['image'] == 'redis:2'}
    assert canaries == {'db-2'}


def settled_canary(sim):
    """The StatefulSet once its canary pods are Ready."""
    def check():
        obj = sim.client.get(STS)
        st = obj['status']
        done = st.get('observedGeneration') == obj['metadata']['generation'] \
            and st.get('readyReplicas') == 3 and st.get('updatedReplicas') == 3 - partition(obj)
        return obj if done else None
    return wait_until(check, 'the canary of db')


def test_a_second_start_of_the_same_images_is_a_no_op_and_other_images_are_refused(sim):
    web(sim, replicas=2)
    phase(sim, 'start', [entry('Deployment', 'web', 'nginx:2')])
    since = mark(sim)
    again, _ = phase(sim, 'start', [entry('Deployment', 'web', 'nginx:2')])
    assert not again.failed and not again.changed, again.message
    assert again.targets[0].outcome == release_targets.UNCHANGED and again.targets[0].status.done
    other, _ = phase(sim, 'start', [entry('Deployment', 'web', 'nginx:3')])
    assert other.failed and not other.changed
    assert other.lines[1] == ('  Deployment default/web has a canary of other images in progress '
                              '(app=nginx:2): promote it or roll it back (canary: rollback) first')
    assert persisted(sim, since) == []


def test_check_mode_writes_nothing(sim):
    web(sim, replicas=2)
    since = mark(sim)
    result, _ = phase(sim, 'start', [entry('Deployment', 'web', 'nginx:2')], check_mode=True)
    assert result.changed and result.lines == ['Would start a canary of: Deployment default/web']
    assert RECORD in result.targets[0].dry_run['metadata']['annotations']
    assert persisted(sim, since) == [] and [e['dry_run'] for e in writes(read_log(sim.log)[since:])] == [True]
    assert RECORD not in (sim.client.get(DEPLOY)['metadata'].get('annotations') or {})


# ---- promote ---------------------------------------------------------------------------------------

def test_promote_releases_the_hold_rolls_out_the_rest_and_removes_the_record(sim):
    web(sim)
    db(sim)
    wanted = [entry('Deployment', 'web', 'nginx:2'), entry('StatefulSet', 'db', 'redis:2')]
    phase(sim, 'start', wanted)
    unpromoted, _ = phase(sim, 'promote', [entry('Deployment', 'web', 'nginx:3')])
    assert unpromoted.failed and 'has a canary of other images (app=nginx:2)' in unpromoted.message
    result, _ = phase(sim, 'promote', wanted)
    assert not result.failed, result.message
    assert result.lines == ['Promoted: Deployment default/web', 'Promoted: StatefulSet default/db']
    w, d = settled(sim.client, DEPLOY), settled(sim.client, STS)
    assert not w['spec'].get('paused') and partition(d) == 0
    assert RECORD not in w['metadata']['annotations'] and RECORD not in d['metadata']['annotations']
    assert pod_images(sim, 'web') == ['nginx:2'] * 4 and pod_images(sim, 'db') == ['redis:2'] * 3
    since = mark(sim)
    again, _ = phase(sim, 'promote', wanted)
    assert not again.failed and not again.changed and persisted(sim, since) == []
    never, _ = phase(sim, 'promote', [entry('Deployment', 'web', 'nginx:4')])
    assert never.failed and 'has no canary of these images to promote' in never.message


# ---- abort -----------------------------------------------------------------------------------------

def test_rollback_puts_back_the_template_change_cause_and_partition_and_removes_the_record(sim):
    sim.client.create('/apis/apps/v1/namespaces/default/deployments', dict(
        workload('Deployment', 'web', 'nginx:1', 4), metadata={'name': 'web', 'annotations': {CAUSE: 'v1'}}))
    before = {DEPLOY: settled(sim.client, DEPLOY), STS: db(sim)}
    wanted = [entry('Deployment', 'web', 'nginx:2'), entry('StatefulSet', 'db', 'redis:2')]
    phase(sim, 'start', wanted, cause='v2')
    assert sim.client.get(DEPLOY)['metadata']['annotations'][CAUSE] == 'v2'
    result, _ = phase(sim, 'rollback', wanted)
    assert not result.failed and result.changed, result.message
    assert result.lines == ['Canary rolled back: Deployment default/web',
                            'Canary rolled back: StatefulSet default/db']
    for path, old in before.items():
        now = settled(sim.client, path)
        assert now['spec']['template'] == old['spec']['template']
        assert (now['metadata'].get('annotations') or {}).get(CAUSE) == (old['metadata'].get('annotations')
                                                                        or {}).get(CAUSE)
        assert RECORD not in (now['metadata'].get('annotations') or {})
    assert not sim.client.get(DEPLOY)['spec'].get('paused') and partition(sim.client.get(STS)) == 0
    assert pod_images(sim, 'web') == ['nginx:1'] * 4 and pod_images(sim, 'db') == ['redis:1'] * 3
    since = mark(sim)
    again, _ = phase(sim, 'rollback', wanted)
    assert not again.changed and again.lines == ['No canary to roll back: Deployment default/web',
                                                 'No canary to roll back: StatefulSet default/db']
    assert persisted(sim, since) == []


# ---- a start that fails ----------------------------------------------------------------------------

def test_a_failed_start_puts_the_template_and_the_partition_back(sim):
    before = {DEPLOY: web(sim, replicas=2), STS: db(sim)}
    result, _ = phase(sim, 'start', [entry('Deployment', 'web', BAD), entry('StatefulSet', 'db', BAD)])
    assert result.failed and result.changed
    assert [t.outcome for t in result.targets] == [release_targets.ROLLED_BACK] * 2, result.lines
    for t in result.targets:
        assert t.rollback == 'put back to the template it had before the release'
    for t in result.targets:  # stopped early on the pull failure of the canary's pod
        assert re.match(r'%s: 1/1 new pods not ready: (ErrImagePull|ImagePullBackOff)' % t.label(), t.cause)
    for path, old in before.items():
        now = settled(sim.client, path)
        assert now['spec']['template'] == old['spec']['template']
        assert RECORD not in (now['metadata'].get('annotations') or {})
    assert partition(sim.client.get(STS)) == 0 and not sim.client.get(DEPLOY)['spec'].get('paused')
    assert pod_images(sim, 'db') == ['redis:1'] * 3 and pod_images(sim, 'web') == ['nginx:1'] * 2


def test_a_start_stopped_between_its_write_and_its_hold_is_held_by_the_next_start(sim, monkeypatch):
    """Killed after the write (images and record) and before the pause: `start` again pauses it with
    the canary's first pods, as the first run would have (found by the kill tests: it waited for a
    pause that nobody would write)."""
    def killed(self, engine, rollout, timeout):
        raise SystemExit('killed')

    web(sim)
    monkeypatch.setattr(canary.CanaryStart, '_hold', killed)
    with pytest.raises(SystemExit):
        phase(sim, 'start', [entry('Deployment', 'web', 'nginx:2')])
    stopped = sim.client.get(DEPLOY)
    assert not stopped['spec'].get('paused') and RECORD in stopped['metadata']['annotations']
    monkeypatch.undo()
    result, _lines = phase(sim, 'start', [entry('Deployment', 'web', 'nginx:2')])
    assert not result.failed, result.message
    assert sim.client.get(DEPLOY)['spec']['paused'] is True
