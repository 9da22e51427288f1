"""The traffic canary on every router (tests/support/routers/: one case per router), through
ansible-playbook against kubesim's stand-in of each: the same behaviour, proven by the same tests.

- the steps set the shares the data plane serves, a header route where the router has header
  matches, the promotion, the weights put back and the route otherwise as it was, a second run
  unchanged;
- check mode with a diff writes nothing but dry runs; a pause until the next run; a record whose step
  a colleague edited is refused; a change a colleague made to the route between the runs, and a
  conflict on the write, never overwrite anyone's edit, and the same task goes on;
- a failed analysis puts the traffic back first, then scales the canary down;
- a judge that refuses the route fails the step and the traffic stays where it was accepted;
- the rules each router's page under docs/routers/ lists, with docs/rbac.md's, are enough, and each
  of the router's own is needed (kubesim's RBAC).
"""

import json
import re
import signal
import time

import jsonpatch
import pytest
import yaml

from tests.support.routers import CASES, case_ids
from tests.support.traffic import NEW, OLD, deployment

from ..conftest import ROOT, Kube, read_log, task
from ..release.test_release_survives_its_runner import interrupted_when
from .conftest import RECORD
from .test_traffic_canary import Failing  # noqa: F401 (the handler of failing_check)
from .test_traffic_canary import failing_check  # noqa: F401 (a fixture)

pytestmark = pytest.mark.integration

NS, APP = 'default', 'web'
HEADER = {'name': 'canary-by-header', 'header': 'x-canary', 'value': 'always'}
ADMIN = 'routers-admin-token-7f21'


class World:
    def __init__(self, case, sim, log):
        self.case, self.sim, self.log = case, sim, log
        self.kube = Kube(sim.kubeconfig)
        self.path = case.path(NS, APP)
        self.t0_wall, self.t0 = time.time(), 0

    def route(self):
        return self.kube.request('GET', self.path)

    def traffic_log(self):
        return self.sim.route_traffic(NS, APP, kind=self.case.kind)

    def canary_shares(self):
        """The canary's share at each change of the shares, repeats dropped."""
        seen = [self.case.canary_share(shares, APP) for _t, _g, shares in self.traffic_log() if shares]
        return [s for i, s in enumerate(seen) if i == 0 or s != seen[i - 1]]

    def errors(self):
        """Every 5xx share the data plane served since the world was set up."""
        return [(key, share) for t, _g, shares in self.traffic_log() if t >= self.t0 for part in shares or []
                for key, share in part['shares'].items() if key in ('500', '503') and share]

    def writes(self):
        return [(e['method'], e['path'], e['dry_run']) for e in read_log(self.log)
                if e['method'] != 'GET' and e['time'] >= self.t0_wall]

    def settle(self):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            shares = self.sim.route_shares(NS, APP, kind=self.case.kind)
            failing = [share for part in shares or [] for key, share in part['shares'].items()
                       if key in ('500', '503') and share]
            if shares and self.case.canary_share(shares, APP) == 0 and not failing:
                self.t0_wall, self.t0 = time.time(), self.sim.clock()
                return
            time.sleep(0.05)
        raise AssertionError('the %s stand-in never served the route' % self.case.router)


def make_world(case, kubesim_factory, tmp_path, **more):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(ready_delay=0.05, request_log=log, **dict(case.sim_options, **more))
    if not hasattr(sim, 'route_traffic'):
        pytest.skip('a real cluster has no stand-in data plane to read the shares from')
    w = World(case, sim, log)
    w.kube.create(deployment(APP, 'stable', 4))
    case.build(w.kube, NS, APP)
    w.kube.rolled_out('Deployment', APP)
    w.settle()
    return w


@pytest.fixture(params=CASES, ids=case_ids())
def world(request, kubesim_factory, tmp_path):
    return make_world(request.param, kubesim_factory, tmp_path)


def canary(world, title, steps, header=True, **options):
    options.setdefault('timeout', 30)
    options.setdefault('fail_fast_seconds', 5)
    options.setdefault('soak_seconds', 0)
    traffic = dict(world.case.traffic(APP), steps=steps)
    if header and world.case.header_route:
        traffic['header_route'] = HEADER
    return task(title, 'rollout_release', traffic=traffic, **options,
                workloads=[{'kind': 'Deployment', 'name': APP, 'images': {'app': NEW}}])


def image(obj):
    return obj['spec']['template']['spec']['containers'][0]['image']


def test_steps_header_route_and_promotion_leave_the_route_as_it_was(world, play):
    spec = world.route()['spec']
    r = play(world.sim, [canary(world, 'canary', [{'weight': 25}, {'weight': 50}])])
    out = r.ok('canary')
    assert out['traffic']['phase'] == 'promoted', out
    assert world.canary_shares() == [0, 0.25, 0.5, 1.0, 0]
    assert world.errors() == []
    assert world.route()['spec'] == spec
    assert image(world.kube.get('Deployment', APP)) == NEW
    assert world.kube.get('Deployment', APP + '-canary')['spec']['replicas'] == 0
    again = play(world.sim, [canary(world, 'canary', [{'weight': 25}, {'weight': 50}])])
    assert again.ok('canary')['changed'] is False


def test_check_mode_a_pause_a_forged_step_and_a_colleague_s_edit(world, play):
    steps = [{'weight': 30, 'pause': 'next_run'}, {'weight': 60}]
    spec = world.route()['spec']
    checked = play(world.sim, [canary(world, 'canary', steps)], check=True, diff=True).ok('canary')
    assert checked['changed'] and checked['traffic']['phase'] == 'paused'
    assert checked['diff'], checked
    assert all(dry for _m, _p, dry in world.writes()), world.writes()
    assert world.route()['spec'] == spec

    paused = play(world.sim, [canary(world, 'canary', steps)]).ok('canary')
    assert paused['traffic']['phase'] == 'paused'
    assert world.canary_shares()[-1] == 0.3
    if world.case.header_route:
        assert HEADER['value'] in json.dumps(world.route()['spec'])

    # A colleague moves the record past the step it holds: no step is taken from it.
    canary_path = '/apis/apps/v1/namespaces/%s/deployments/%s-canary' % (NS, APP)
    record = world.kube.request('GET', canary_path)['metadata']['annotations'][RECORD]
    forged = dict(json.loads(record), step=1, passed=True)
    patch = {'metadata': {'annotations': {RECORD: json.dumps(forged)}}}
    world.kube.request('PATCH', canary_path, patch, 'application/merge-patch+json')
    before = world.route()['metadata']['resourceVersion']
    refused = play(world.sim, [canary(world, 'canary', steps)]).failed('canary')
    assert 'not acted on' in refused['msg'], refused['msg']
    assert world.route()['metadata']['resourceVersion'] == before
    world.kube.request('PATCH', canary_path, {'metadata': {'annotations': {RECORD: record}}},
                       'application/merge-patch+json')

    # A colleague edits what the canary does not own; the next write meets a conflict too.
    edit = world.case.foreign_edit(world.route())
    world.kube.request('PATCH', world.path, edit, 'application/json-patch+json')
    world.sim.set_faults('conflict=%s:1' % world.case.fault_target(NS, APP))
    done = play(world.sim, [canary(world, 'canary', steps)]).ok('canary')
    assert done['traffic']['phase'] == 'promoted', done
    expected = world.kube.request('GET', world.path)['spec']
    # The edit is there, and the rest is as it was before the canary.
    assert expected == jsonpatch.apply_patch({'spec': spec}, edit)['spec']
    assert world.canary_shares()[-1] == 0


def test_a_cancelled_run_is_resumed_by_the_same_task(world, play, tmp_path):
    """AWX's cancel (SIGTERM) in the pause of step 1: the next run of the same task goes on from the
    step its record names, and the route ends as it was."""
    spec = world.route()['spec']
    steps = [{'weight': 20, 'pause': 30}, {'weight': 40}]

    def in_the_pause():
        shares = world.canary_shares()
        return shares and shares[-1] == 0.2 and time.sleep(0.3) is None

    (tmp_path / 'first').mkdir()
    interrupted_when(world.sim, tmp_path / 'first', signal.SIGTERM,
                     [canary(world, 'canary', steps, header=False)], in_the_pause, 'the step at 20%')
    quick = [dict(s, pause=0) for s in steps]
    out = play(world.sim, [canary(world, 'canary', quick, header=False)]).ok('canary')
    assert [s['step'] for s in out['traffic']['steps']] == [1, 2] and out['traffic']['phase'] == 'promoted'
    assert world.canary_shares()[-3:] == [0.4, 1.0, 0]
    assert world.route()['spec'] == spec and world.errors() == []


def test_a_failed_analysis_puts_the_traffic_back_before_the_canary_goes(world, play, failing_check):  # noqa: F811
    spec = world.route()['spec']
    r = play(world.sim, [canary(world, 'canary', [{'weight': 20, 'analysis': False}, {'weight': 40}],
                                analysis=failing_check)])
    out = r.failed('canary')
    assert 'step 2' in out['msg'] and 'rolled back' in out['msg'], out['msg']
    assert world.canary_shares()[-3:] == [0.2, 0.4, 0]
    writes = [(m, p) for m, p, dry in world.writes() if not dry]
    last_route = max(i for i, (m, p) in enumerate(writes) if p == world.path)
    scaled_down = [i for i, (m, p) in enumerate(writes) if p.endswith('/deployments/%s-canary' % APP)]
    assert scaled_down and scaled_down[-1] > last_route  # the traffic back first, then the canary
    assert world.route()['spec'] == spec
    assert image(world.kube.get('Deployment', APP)) == OLD
    assert world.errors() == []


def test_a_refusing_judge_fails_the_step_and_traffic_stays_where_it_was_accepted(world, play):
    if world.case.reject is None:
        pytest.skip('%s has no verdict that refuses a route (the written object and the endpoints are '
                    'verified instead)' % world.case.router)
    world.case.reject(world.sim)
    out = play(world.sim, [canary(world, 'canary', [{'weight': 25}], header=False)]).failed('canary')
    assert world.case.refusal in out['msg'], out['msg']
    assert set(world.canary_shares()) == {0}
    assert 'keeps its pods' in out['msg'], out['msg']  # the judge did not confirm the weight back either
    world.case.accept(world.sim)
    back = play(world.sim, [canary(world, 'canary', [{'weight': 25}], header=False, recover='rollback')])
    assert 'NOT released' in back.ok('canary')['msg']
    assert world.kube.get('Deployment', APP + '-canary')['spec']['replicas'] == 0
    assert set(world.canary_shares()) == {0}


def documented_rules(case):
    """The rules docs/rbac.md's minimal Role and rollout_traffic section give but the HTTPRoute's (what
    every router needs), and those of the router's page (the first yaml block of the RBAC section of its
    docs/routers/ page)."""
    doc = (ROOT / 'docs' / 'rbac.md').read_text()
    sections = {part.split('\n', 1)[0]: part for part in doc.split('\n## ')}
    first = next(text for title, text in sections.items() if title.startswith('A minimal Role'))
    role = next(yaml.safe_load_all(re.search(r'```yaml\n(.*?)```', first, re.S).group(1)))
    traffic = next(text for title, text in sections.items() if title.startswith('rollout_traffic '))
    common = [rule for rule in yaml.safe_load(re.search(r'```yaml\n(.*?)```', traffic, re.S).group(1))
              if rule['apiGroups'] != ['gateway.networking.k8s.io']]
    page = (ROOT / 'docs' / 'routers' / case.rbac_doc).read_text().split('\n## RBAC\n', 1)[1]
    own = yaml.safe_load(re.search(r'```yaml\n(.*?)```', page, re.S).group(1))
    return role['rules'] + common, own


def _without(rules, group, resource, verb):
    out = []
    for rule in rules:
        for g in rule['apiGroups']:
            for r in rule['resources']:
                verbs = [v for v in rule['verbs'] if (g, r, v) != (group, resource, verb)]
                if verbs:
                    out.append({'apiGroups': [g], 'resources': [r], 'verbs': verbs})
    return out


@pytest.mark.parametrize('case', CASES, ids=case_ids())
def test_the_documented_rules_are_enough_and_each_of_the_router_s_is_needed(case, kubesim_factory, tmp_path,
                                                                           play):
    common, own = documented_rules(case)
    w = make_world(case, kubesim_factory, tmp_path, authorization_mode='RBAC', token=ADMIN, tls=True)
    needed = [(g, r, v) for rule in own for g in rule['apiGroups'] for r in rule['resources']
              for v in rule['verbs'] if v != 'watch']  # without watch the waits list again
    users = {'deployer': common + own}
    users.update(('without-%d' % i, common + _without(own, *n)) for i, n in enumerate(needed))
    rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/%s' % NS
    for user, rules in users.items():
        w.kube.request('POST', rbac + '/roles', {'metadata': {'name': user}, 'rules': rules})
        w.kube.request('POST', rbac + '/rolebindings', {
            'metadata': {'name': user}, 'subjects': [{'kind': 'User', 'name': user}],
            'roleRef': {'apiGroup': 'rbac.authorization.k8s.io', 'kind': 'Role', 'name': user}})
    w.kube.create(deployment(APP + '-canary', 'canary', 1, NEW))
    w.kube.rolled_out('Deployment', APP + '-canary')
    step = dict(w.case.traffic(APP), timeout=20)
    # Each user without a rule first, each asking another weight (one refused after its write leaves
    # the weight written), the deployer last.
    tasks = [task(user, 'rollout_traffic', impersonate_user=user, weight=10 + i, **step)
             for i, user in enumerate(list(users)[1:])]
    tasks.append(task('deployer', 'rollout_traffic', impersonate_user='deployer', weight=25, **step))
    r = play(w.sim, tasks)
    assert r.ok('deployer')['changed'] is True
    for i, (group, resource, verb) in enumerate(needed):
        out = r.failed('without-%d' % i)
        assert 'forbidden' in out['msg'].lower() and resource in out['msg'], (group, resource, verb,
                                                                              out['msg'])
