"""The plain release (usecases/release/release.py) against kubesim, driven as rollout_release's main drives
it (release_targets.build_targets, ReleaseOptions, strategies.strategy): every workload written
then waited for, a failing rollout put back with the others (atomic), a preflight refusal and check
mode that write nothing, a refused write that is not put back."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import GateOptions
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import strategies
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import (
    targets as release_targets,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.release import Release

from tests.support.kube import api_client, create_settled, read_log, settled, writes
from tests.support.manifests import workload

pytestmark = pytest.mark.unit

DEPLOY = '/apis/apps/v1/namespaces/default/deployments/web'
STS = '/apis/apps/v1/namespaces/default/statefulsets/db'
CAUSE = 'kubernetes.io/change-cause'
BAD = 'registry.invalid/redis:2'
FAST = {'ready_delay': 0.02, 'fail_image': r'^registry\.invalid/'}


@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log', **FAST)
    sim.log = tmp_path / 'requests.log'
    sim.client = api_client(sim)
    create_settled(sim.client, workload('Deployment', 'web', 'nginx:1', 2))
    create_settled(sim.client, workload('StatefulSet', 'db', 'redis:1', 2))
    return sim


def entries(web='nginx:2', db='redis:2'):
    out = []
    if web:
        out.append({'kind': 'Deployment', 'name': 'web', 'images': {'app': web}})
    if db:
        out.append({'kind': 'StatefulSet', 'name': 'db', 'images': {'app': db}})
    return out


def release(client, wanted, cause=None, **options):
    """What rollout_release's main does with its options: (result, progress lines)."""
    options.setdefault('timeout', 30)
    options.setdefault('gates', GateOptions(fail_fast_seconds=1))
    opts = release_targets.ReleaseOptions(**options)
    targets = release_targets.build_targets(wanted, 'default', cause)
    chosen = strategies.strategy(opts)
    assert chosen is Release
    lines = []
    return chosen(client, targets, opts, progress=lines.append, note=lines.append).run(), lines


def image(obj):
    return obj['spec']['template']['spec']['containers'][0]['image']


def persisted_writes(sim, since=0):
    return writes(read_log(sim.log)[since:], dry_run=False)


def specs(client, *paths):
    """What a write would change (status writes by the controllers aside)."""
    out = {}
    for path in paths:
        obj = client.get(path)
        out[path] = (obj['metadata']['generation'], obj['metadata'].get('annotations'), obj['spec'])
    return out


def test_a_release_writes_every_workload_and_waits_for_each(sim):
    result, lines = release(sim.client, entries(), cause='release 2')
    assert not result.failed and result.changed, result.message
    assert result.lines == ['Upgraded: Deployment default/web', 'Upgraded: StatefulSet default/db']
    assert result.message == 'Upgraded: Deployment default/web; Upgraded: StatefulSet default/db'
    assert [t.outcome for t in result.targets] == [release_targets.UPGRADED] * 2
    assert all(t.status.done for t in result.targets) and result.warnings == []
    web, db = settled(sim.client, DEPLOY), settled(sim.client, STS)
    assert (image(web), image(db)) == ('nginx:2', 'redis:2')
    assert web['metadata']['annotations'][CAUSE] == db['metadata']['annotations'][CAUSE] == 'release 2'
    assert any(line.startswith('Deployment default/web: new images written (generation 2)') for line in lines)
    # One dry run and one guarded write per workload (the images with the release record), then,
    # the release passed, the record's removal.
    patches = [(e['path'], e['dry_run']) for e in writes(read_log(sim.log)) if e['method'] == 'PATCH']
    assert patches[:4] == [(DEPLOY, True), (STS, True), (DEPLOY, False), (STS, False)]
    assert sorted(patches[4:]) == [(DEPLOY, False), (STS, False)]  # the removals, at once
    assert 'kubeops.rollout/release' not in web['metadata']['annotations']
    assert 'kubeops.rollout/release' not in db['metadata']['annotations']

    # Again: nothing to write, nothing written, still judged healthy.
    mark = len(read_log(sim.log))
    again, _ = release(sim.client, entries(), cause='release 2')
    assert not again.failed and not again.changed
    assert again.lines == ['Already up to date: Deployment default/web',
                           'Already up to date: StatefulSet default/db']
    assert writes(read_log(sim.log)[mark:]) == []


def test_a_failing_rollout_puts_every_written_workload_back(sim):
    before = {path: sim.client.get(path) for path in (DEPLOY, STS)}
    result, lines = release(sim.client, entries(db=BAD))
    assert result.failed and result.changed
    web, db = result.targets
    assert (web.outcome, db.outcome) == (release_targets.ROLLED_BACK, release_targets.ROLLED_BACK)
    # Stopped early (fail_fast_seconds) on the pull back-off of the new pod, and said why.
    assert db.cause.startswith('StatefulSet default/db: 1/1 new pods not ready: ImagePullBackOff')
    assert 'stopped early' in db.cause and db.status.reason == 'RolloutStuck'
    assert web.cause == 'put back because the release failed'
    assert db.rollback == web.rollback == 'put back to the template it had before the release'
    assert db.deleted_pods == ['db-1']  # the pod stuck on the broken revision, replaced
    assert result.message.startswith('release failed: StatefulSet default/db: 1/1 new pods not ready')
    assert result.message.endswith('ROLLED BACK: Deployment default/web, StatefulSet default/db')
    assert 'putting back Deployment default/web, StatefulSet default/db' in lines
    for path in (DEPLOY, STS):
        now = settled(sim.client, path)
        assert now['spec']['template'] == before[path]['spec']['template']
        assert CAUSE not in (now['metadata'].get('annotations') or {})
    pods = sim.client.list('/api/v1/namespaces/default/pods', label_selector='app=db')['items']
    assert sorted(p['spec']['containers'][0]['image'] for p in pods) == ['redis:1', 'redis:1']


def test_without_atomic_only_the_failed_workload_is_put_back(sim):
    result, _ = release(sim.client, entries(db=BAD), atomic=False)
    web, db = result.targets
    assert result.failed
    assert (web.outcome, db.outcome) == (release_targets.UPGRADED, release_targets.ROLLED_BACK)
    assert result.lines[0] == 'Upgraded: Deployment default/web'
    assert image(settled(sim.client, DEPLOY)) == 'nginx:2' and image(settled(sim.client, STS)) == 'redis:1'


def test_a_refused_preflight_writes_nothing(sim):
    sim.client.patch(DEPLOY, {'spec': {'paused': True}})
    create_settled(sim.client, workload('Deployment', 'api', 'api:1', 1))
    before = specs(sim.client, DEPLOY, STS)
    mark = len(read_log(sim.log))
    wanted = entries(db='redis:2 ') + [  # trailing whitespace: the API server refuses the image
        {'kind': 'Deployment', 'name': 'gone', 'images': {'app': 'x:1'}},
        {'kind': 'Deployment', 'name': 'api', 'images': {'sidecar': 'x:1'}}]
    result, _ = release(sim.client, wanted)
    assert result.failed and not result.changed
    assert [t.outcome for t in result.targets] == [release_targets.UNTOUCHED] * 4
    assert result.lines[0] == 'preflight failed, nothing was changed:'
    problems = result.lines[1:]
    assert problems[0].startswith('  Deployment default/web is paused')
    assert problems[1].startswith('  StatefulSet default/db: the API server refused the change in a dry run')
    assert 'must not have leading or trailing whitespace' in problems[1]
    assert problems[2] == '  Deployment default/gone: not found'
    assert problems[3].startswith('  Deployment default/api: ') and 'sidecar' in problems[3]
    assert result.message.startswith('release refused before any write: Deployment default/web is paused')
    assert persisted_writes(sim, mark) == []
    assert specs(sim.client, DEPLOY, STS) == before


def test_check_mode_writes_nothing_and_says_what_would_change(sim):
    before = specs(sim.client, DEPLOY, STS)
    mark = len(read_log(sim.log))
    result, _ = release(sim.client, entries(db='redis:1'), check_mode=True)
    assert not result.failed and result.changed
    assert result.lines == ['Would upgrade: Deployment default/web',
                            'Already up to date: StatefulSet default/db']
    web, db = result.targets
    assert web.would_change and image(web.dry_run) == 'nginx:2' and db.patch is None
    assert [e['dry_run'] for e in writes(read_log(sim.log)[mark:])] == [True]
    assert specs(sim.client, DEPLOY, STS) == before


def test_credentials_that_may_only_read_are_warned_in_the_dry_run_and_refused_the_write(kubesim_factory,
                                                                                          tmp_path):
    sim = kubesim_factory(token='admin-token', readonly_token='viewer-token', **FAST)
    admin = api_client(sim, allow_insecure_credentials=True)
    create_settled(admin, workload('Deployment', 'web', 'nginx:1', 2))
    sim.write_kubeconfig(tmp_path / 'viewer', readonly=True)
    viewer = api_client(sim, allow_insecure_credentials=True)
    checked, _ = release(viewer, entries(db=None), check_mode=True)
    assert not checked.failed and checked.lines == ['Would upgrade: Deployment default/web']
    assert checked.warnings == ['Deployment default/web: the API server refused a dry run of the change '
                                '(403 Forbidden); it was not validated before the write']
    # The run that would write first takes the release's Lease: read-only credentials cannot, and
    # nothing is written.
    result, _ = release(viewer, entries(db=None))
    (web,) = result.targets
    assert result.failed and web.outcome == release_targets.UNTOUCHED and web.rollback is None
    assert 'could not take its Lease default/kubeops-release-' in result.message
    assert 'forbidden (403)' in result.message and 'docs/rbac.md' in result.message
    assert result.lines[0] == 'preflight failed, nothing was changed:'
    assert image(admin.get(DEPLOY)) == 'nginx:1'


def test_a_workload_another_tool_manages_is_released_with_a_warning(sim):
    sim.client.patch(DEPLOY, {'metadata': {'labels': {'app.kubernetes.io/managed-by': 'Helm'},
                                           'annotations': {'meta.helm.sh/release-name': 'shop'}}})
    result, _ = release(sim.client, entries(db=None))
    assert not result.failed
    assert result.warnings == ['Deployment default/web is managed by Helm (release shop): its next sync or '
                               'upgrade will revert this release; release through Helm instead, or expect '
                               'the change to be undone']


def test_the_loser_of_two_racing_releases_says_it_wrote_nothing_and_leaves_the_winner_alone(sim, monkeypatch):
    """Another release writes web between this one's preflight and its write: the guard refuses this
    write; this release reports nothing changed, puts nothing back and advises nothing about the
    record, which is the live winner's."""
    real = Release.preflight
    winner = {'kubeops.rollout/release': '{"id":"r-winner"}'}

    def preflight_then_lose_the_race(self):
        problems = real(self)
        sim.client.patch(DEPLOY, {'metadata': {'annotations': winner}, 'spec': {'template': {'spec': {
            'containers': [{'name': 'app', 'image': 'nginx:winner'}]}}}})
        return problems

    monkeypatch.setattr(Release, 'preflight', preflight_then_lose_the_race)
    result, _lines = release(sim.client, entries(db=None))
    (t,) = result.targets
    assert result.failed and not result.changed and t.outcome == release_targets.UNTOUCHED
    assert 'changed by someone else since the preflight' in t.cause
    assert 'ROLLBACK FAILED' not in result.message and 'kubectl annotate' not in result.message
    assert 'rollout_undo' not in result.message
    assert result.fields['next_step'] == 'rerun'  # release it again, to decide from what it is now
    now = sim.client.get(DEPLOY)
    assert image(now) == 'nginx:winner' and now['metadata']['annotations']['kubeops.rollout/release'] == \
        winner['kubeops.rollout/release']


def test_recover_rollback_with_nothing_recorded_says_so_and_reports_the_images_that_run(sim):
    for check_mode in (True, False):
        result, _lines = release(sim.client, entries(db=None), recover='rollback', check_mode=check_mode)
        (t,) = result.targets
        assert not result.failed and not result.changed and t.outcome == release_targets.UNCHANGED
        assert 'Nothing to put back (no release record): Deployment default/web' in result.message
        entry = t.entry()
        assert entry['images'] == entry['images_before'] == {'app': 'nginx:1'}, entry
    assert image(sim.client.get(DEPLOY)) == 'nginx:1'


def test_an_interrupted_release_names_its_next_step_rerun(sim, monkeypatch):
    def interrupted(self):
        raise KeyboardInterrupt()

    monkeypatch.setattr(Release, 'wait_all', interrupted)
    result, _lines = release(sim.client, entries(db=None))
    assert result.interrupted and result.failed
    assert result.fields['next_step'] == 'rerun' and 'run the same task again to resume' in result.message


def test_a_release_put_back_says_so_when_the_same_release_runs_again(sim):
    """The put-back marks the workload (in its own write); the same release again warns, before it
    writes, that it was put back and why; its write removes the mark."""
    failed, _lines = release(sim.client, entries(web=BAD, db=None), timeout=10)
    assert failed.failed and failed.targets[0].outcome == release_targets.ROLLED_BACK
    marked = sim.client.get(DEPLOY)['metadata']['annotations']
    assert 'kubeops.rollout/put-back' in marked and 'kubeops.rollout/release' not in marked
    again, _lines = release(sim.client, entries(web=BAD, db=None), timeout=10)
    assert any('was put back at' in w and 'this run releases the same images again' in w
               for w in again.warnings), again.warnings
    good, _lines = release(sim.client, entries(web='nginx:3', db=None))
    assert not good.failed and good.warnings == []
    assert 'kubeops.rollout/put-back' not in (sim.client.get(DEPLOY)['metadata'].get('annotations') or {})
