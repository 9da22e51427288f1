"""Records cannot turn the operator against itself: attacks by a colleague with the bootstrap `edit`
role on the app's namespace (Deployments, Services; plus HTTPRoutes), none on Leases, against kubesim
authorizing with RBAC, while the operator runs real ansible-playbook tasks as a ServiceAccount of
another namespace bound to the Roles of docs/rbac.md (an identity the colleague cannot impersonate).

Each attack writes a record (or a route) the colleague can write; each test proves the operator
writes nothing of it back: the object is exactly as the colleague left it (its resourceVersion), or
what the operator wrote is what it decided itself. And the boundary, both sides: the same colleague
may impersonate a ServiceAccount of the app's namespace, and so forge a seal for an operator running
as one (docs/rbac.md says so); an operator identity from another namespace cannot be impersonated.
"""

import hashlib
import json

import pytest

from tests.kubesim import KubeSim
from tests.support import traffic as tr

from ..conftest import Kube, run_playbook, task, workload
from .test_least_privilege_rbac import documented_roles, make_bluegreen_and_traffic_apps

pytestmark = pytest.mark.integration

ADMIN = 'records-admin-token-7d1e'
NS, OPS = 'shop', 'ops'
OPERATOR = 'system:serviceaccount:ops:deployer'
LOCAL_SA = 'system:serviceaccount:shop:deployer'
RELEASE = 'kubeops.rollout/release'
TRAFFIC = 'kubeops.rollout/traffic-canary'
LEASES = f'/apis/coordination.k8s.io/v1/namespaces/{NS}/leases'
PRIVILEGED = {'metadata': {'labels': {'app': 'bg', 'kubeops.rollout/color': 'green'}},
              'spec': {'hostPID': True, 'containers': [
                  {'name': 'app', 'image': 'evil:1', 'securityContext': {'privileged': True},
                   'volumeMounts': [{'name': 'root', 'mountPath': '/host'}]}],
                  'volumes': [{'name': 'root', 'hostPath': {'path': '/'}}]}}


@pytest.fixture(scope='module')
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp('records-rbac')
    roles, bindings = documented_roles()
    users = {'operator': (OPERATOR, 'system:serviceaccounts,system:serviceaccounts:ops'),
             'colleague': ('colleague', '')}
    tokens = root / 'tokens.csv'
    tokens.write_text(''.join(f'{name}-token-{i:04d},{user},{name},"{groups}"\n'
                              for i, (name, (user, groups)) in enumerate(users.items())))
    sim = KubeSim(tls=True, token=ADMIN, token_file=tokens, authorization_mode='RBAC', nodes=2,
                  ready_delay=0.05, gateway_api=True, gateway_delay=0.05).start()
    try:
        admin = Kube(sim.write_kubeconfig(root / 'admin'))
        for ns in (NS, OPS):
            admin.request('POST', '/api/v1/namespaces', {'metadata': {'name': ns}})
            admin.request('POST', f'/api/v1/namespaces/{ns}/serviceaccounts',
                          {'metadata': {'name': 'deployer'}})
        rbac = f'/apis/rbac.authorization.k8s.io/v1/namespaces/{NS}'
        for role in roles:
            admin.request('POST', f'{rbac}/roles', role)
        for binding in bindings:  # the documented Roles, bound to the operator of the other namespace
            binding = dict(binding, subjects=[{'kind': 'ServiceAccount', 'name': 'deployer',
                                               'namespace': OPS}])
            admin.request('POST', f'{rbac}/rolebindings', binding)
        admin.request('POST', f'{rbac}/roles', {'metadata': {'name': 'routes-edit'}, 'rules': [
            {'apiGroups': ['gateway.networking.k8s.io'], 'resources': ['httproutes'],
             'verbs': ['get', 'list', 'watch', 'update', 'patch']}]})
        for name, kind in (('colleague-edit', 'ClusterRole'), ('colleague-routes', 'Role')):
            admin.request('POST', f'{rbac}/rolebindings', {
                'metadata': {'name': name},
                'roleRef': {'apiGroup': 'rbac.authorization.k8s.io', 'kind': kind,
                            'name': 'edit' if kind == 'ClusterRole' else 'routes-edit'},
                'subjects': [{'kind': 'User', 'name': 'colleague'}]})
        admin.create_rolled_out([workload('Deployment', name, ns=NS, replicas=1)
                                 for name in ('web', 'deep', 'named', 'cw')])
        make_bluegreen_and_traffic_apps(root / 'admin', NS, ['bg', 'bg2'], ['tr', 'tr2'])
        sim.admin = admin
        sim.configs = {name: str(sim.write_kubeconfig(root / name, token=f'{name}-token-{i:04d}'))
                       for i, name in enumerate(users)}
        sim.colleague = Kube(sim.configs['colleague'])
        yield sim
    finally:
        sim.stop()


def operate(world, tmp_path, *tasks, check=False):
    return run_playbook(world.configs['operator'], list(tasks), workdir=tmp_path, check=check)


def forge(kube, kind, name, annotation, record_of, template=None):
    """As the colleague: the record ``record_of(object read, generation after this write)`` (and a
    new pod template) written on the object in one merge patch; the object as written."""
    obj = kube.get(kind, name, NS)
    body = {'metadata': {'annotations': {annotation: None}}}
    if template is not None:
        body['spec'] = {'template': template}
    kube.patch(kind, name, body, ns=NS, content_type='application/merge-patch+json')
    obj = kube.get(kind, name, NS)
    text = record_of(obj, obj['metadata']['generation'] + 1)
    body = {'metadata': {'annotations': {annotation: text}}}
    return kube.patch(kind, name, body, ns=NS, content_type='application/merge-patch+json')


def bluegreen_id(images):
    """The release id blue/green gives app bg with ``images``: predictable (namespace, Service and
    images), as the attack needs."""
    text = json.dumps([[NS, 'bg', sorted(images.items())]], sort_keys=True)
    return 'bg-' + hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]


def test_a_forged_preview_record_is_never_put_back_nor_resumed(world, tmp_path):
    """The record names a privileged `before` template and 7 replicas: neither `recover: rollback`
    nor a `prepared` whose id it predicted writes any of it."""
    kube = world.colleague
    images = {'app': 'nginx:1.27'}
    green = kube.get('Deployment', 'bg-green', NS)['spec']['template']
    green['spec']['containers'][0]['image'] = 'nginx:evil'

    def record(obj, generation):
        return json.dumps({'id': bluegreen_id(images), 'images': {'app': 'nginx:evil'},
                           'template': obj['spec']['template'], 'generation': generation,
                           'before': PRIVILEGED, 'replicasBefore': 7, 'changeCause': None,
                           'lease': 'kube-system/kube-scheduler'})

    written = forge(kube, 'Deployment', 'bg-green', RELEASE, record, template=green)
    app = {'service': 'bg', 'preview_service': 'bg-preview', 'deployments': {'blue': 'bg-blue',
                                                                           'green': 'bg-green'}}
    res = operate(world, tmp_path,
                  task('prepared', 'rollout_bluegreen', state='prepared', namespace=NS, timeout=20,
                       apps=[dict(app, images=images)]),
                  task('rollback', 'rollout_bluegreen', state='prepared', namespace=NS, timeout=20,
                       recover='rollback', apps=[dict(app, images=images)]),
                  task('release rollback', 'rollout_release', namespace=NS, recover='rollback',
                       workloads=[{'kind': 'Deployment', 'name': 'bg-green', 'images': images}]))
    for name in ('prepared', 'rollback', 'release rollback'):
        r = res.failed(name)
        assert 'is not acted on' in r['msg'] and 'seal' in r['msg'], r['msg']
        assert f'kubectl annotate deployment bg-green -n {NS} {RELEASE}-' in r['msg'], r['msg']
        assert r['next_step'] == f'kubectl annotate deployment bg-green -n {NS} {RELEASE}-', r
        assert 'kube-system' not in r['msg'] and 'forbidden' not in r['msg'].lower(), r['msg']
    after = world.admin.get('Deployment', 'bg-green', NS)  # as the colleague left it (the controller's aside)
    assert (after['spec'], after['metadata']['annotations'][RELEASE], after['metadata']['generation']) == \
        (written['spec'], written['metadata']['annotations'][RELEASE], written['metadata']['generation'])
    assert 'hostPID' not in after['spec']['template']['spec'] and after['spec']['replicas'] == 0


def test_a_forged_traffic_step_never_skips_the_steps_left(world, tmp_path):
    """Paused after its first step, the canary's record is rewritten to `promote`: the next run is
    refused with the way out, the stable Deployment keeps its images and the route its weights."""
    canary = {'workloads': [{'kind': 'Deployment', 'name': 'tr', 'images': {'app': 'nginx:1.27'}}],
              'namespace': NS, 'soak_seconds': 0, 'timeout': 30, 'fail_fast_seconds': 5,
              'traffic': {'route': {'name': 'tr', 'namespace': NS}, 'stable_service': 'tr-stable',
                          'canary_service': 'tr-canary',
                          'steps': [{'weight': 25, 'pause': 'next_run'},
                                    {'weight': 50, 'pause': 'next_run'}]}}
    res = operate(world, tmp_path, task('step 1', 'rollout_release', **canary))
    res.ok('step 1')
    kube = world.colleague

    def promote(obj, _generation):
        record = json.loads(obj['metadata']['annotations'][TRAFFIC])
        return json.dumps(dict(record, step='promote', passed=True), sort_keys=True, separators=(',', ':'))

    obj = kube.get('Deployment', 'tr-canary', NS)
    text = promote(obj, None)
    written = kube.patch('Deployment', 'tr-canary', {'metadata': {'annotations': {TRAFFIC: text}}}, ns=NS,
                         content_type='application/merge-patch+json')
    route_before = world.admin.request('GET', tr.GW.format(ns=NS) + '/httproutes/tr')
    res = operate(world, tmp_path, task('forged', 'rollout_release', **canary))
    r = res.failed('forged')
    assert 'is not acted on' in r['msg'] and 'No step is taken from it' in r['msg'], r['msg']
    assert 'recover: rollback' in r['msg'] and r['next_step'] == 'recover: rollback', r
    assert f'kubectl annotate deployment tr-canary -n {NS} {TRAFFIC}-' in r['msg']
    stable = world.admin.get('Deployment', 'tr', NS)
    assert stable['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.25'
    after = world.admin.get('Deployment', 'tr-canary', NS)  # as the colleague left it (its status aside)
    assert (after['spec'], after['metadata']['annotations'][TRAFFIC], after['metadata']['generation']) == \
        (written['spec'], written['metadata']['annotations'][TRAFFIC], written['metadata']['generation'])
    route = world.admin.request('GET', tr.GW.format(ns=NS) + '/httproutes/tr')
    assert (route['spec'], route['metadata']['generation']) == \
        (route_before['spec'], route_before['metadata']['generation'])
    # The way out named: abort (traffic back, canary down) takes nothing from the record.
    res = operate(world, tmp_path, task('abort', 'rollout_release', recover='rollback', **canary))
    res.ok('abort')
    weights = [b.get('weight') for b in world.admin.request(
        'GET', tr.GW.format(ns=NS) + '/httproutes/tr')['spec']['rules'][0]['backendRefs']]
    assert weights[:2] == [100, 0] and world.admin.get('Deployment', 'tr-canary', NS)['spec']['replicas'] == 0


@pytest.mark.parametrize('text, why', [
    ('[' * 100000 + ']' * 100000, 'more than a record may hold'),  # 200 KB
    ('{"a":' * 3000 + '1' + '}' * 3000, 'nested more than 8 levels deep'),
])
def test_a_huge_or_deep_record_is_refused_by_every_module_naming_its_way_out(world, tmp_path, text, why):
    kube = world.colleague
    kube.patch('Deployment', 'deep', {'metadata': {'annotations': {RELEASE: text}}}, ns=NS,
               content_type='application/merge-patch+json')
    kube.patch('Deployment', 'bg2-green', {'metadata': {'annotations': {RELEASE: text}}}, ns=NS,
               content_type='application/merge-patch+json')
    res = operate(world, tmp_path,
                  task('release', 'rollout_release', namespace=NS,
                       workloads=[{'kind': 'Deployment', 'name': 'deep', 'images': {'app': 'nginx:1.27'}}]),
                  task('image', 'rollout_image', kind='Deployment', name='deep', namespace=NS,
                       images={'app': 'nginx:1.27'}),
                  task('bluegreen', 'rollout_bluegreen', state='prepared', namespace=NS, apps=[
                      {'service': 'bg2', 'preview_service': 'bg2-preview', 'images': {'app': 'nginx:1.27'},
                       'deployments': {'blue': 'bg2-blue', 'green': 'bg2-green'}}]))
    for name, target in (('release', 'deep'), ('image', 'deep'), ('bluegreen', 'bg2-green')):
        r = res.failed(name)
        assert why in r['msg'], r['msg']
        assert f'kubectl annotate deployment {target} -n {NS} {RELEASE}-' in r['msg'], r['msg']
        assert not r.get('changed'), r
        assert r['next_step'] == f'kubectl annotate deployment {target} -n {NS} {RELEASE}-', r
    assert 'Recursion' not in res.stdout and 'Traceback' not in res.stdout
    deep = world.admin.get('Deployment', 'deep', NS)
    assert deep['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.25'
    for name in ('deep', 'bg2-green'):
        kube.patch('Deployment', name, {'metadata': {'annotations': {RELEASE: None}}}, ns=NS,
                   content_type='application/merge-patch+json')


def test_a_record_naming_another_lease_makes_no_read_there(world, tmp_path):
    """A well-formed record of a release that never ran, its `lease` field naming a Lease of
    kube-system: refused as a release that did not end, the Lease looked up (if at all) by its id in
    the workload's namespace; the operator never asks for rights in kube-system."""
    kube = world.colleague

    def record(obj, generation):
        return json.dumps({'id': 'r-0123456789ab', 'images': {'app': 'nginx:1.25'},
                           'template': obj['spec']['template'], 'generation': generation,
                           'lease': 'kube-system/kube-scheduler', 'changeCause': None})

    forge(kube, 'Deployment', 'named', RELEASE, record)
    res = operate(world, tmp_path, task('image', 'rollout_image', kind='Deployment', name='named',
                                        namespace=NS, images={'app': 'nginx:1.27'}))
    r = res.failed('image')
    assert 'release r-0123456789ab' in r['msg'] and 'kube-system' not in r['msg'], r['msg']
    assert r['next_step'] == 'kubeops.rollout.rollout_release recover: rollback', r
    assert 'forbidden' not in r['msg'].lower()


def test_an_undo_that_brings_back_a_promoted_canary_record_is_no_canary(world, tmp_path):
    """Start 1.26, promote, release 1.27, undo to 1.26 (the ReplicaSet's copy of the canary record
    comes back with it), then abort: refused (its seal went with the promotion); web keeps 1.26."""
    one = {'namespace': NS, 'soak_seconds': 0, 'timeout': 30, 'fail_fast_seconds': 5}
    cw = [{'kind': 'Deployment', 'name': 'cw', 'images': {'app': 'nginx:1.26'}}]
    res = operate(world, tmp_path,
                  task('start', 'rollout_release', canary='start', workloads=cw, **one),
                  task('promote', 'rollout_release', canary='promote', workloads=cw, **one),
                  task('1.27', 'rollout_image', kind='Deployment', name='cw', namespace=NS,
                       images={'app': 'nginx:1.27'}, wait=True),
                  task('undo', 'rollout_undo', kind='Deployment', name='cw', namespace=NS, wait=True))
    for name in ('start', 'promote', '1.27', 'undo'):
        res.ok(name)
    obj = world.admin.get('Deployment', 'cw', NS)
    assert obj['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.26'
    assert 'kubeops.rollout/canary' in obj['metadata']['annotations']  # brought back by the undo
    res = operate(world, tmp_path, task('rollback', 'rollout_release', canary='rollback', workloads=cw,
                                        **one))
    r = res.failed('rollback')
    assert 'is not acted on' in r['msg'] and 'seal' in r['msg'], r['msg']
    after = world.admin.get('Deployment', 'cw', NS)
    assert after['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.26'
    assert (after['spec'], after['metadata']['generation']) == (obj['spec'], obj['metadata']['generation'])


def test_the_boundary_a_seal_is_as_safe_as_the_operator_identity(world):
    """The colleague may impersonate the ServiceAccounts of its namespace (bootstrap `edit`), so an
    operator running as one of them could have its seals forged; the operator of another namespace
    cannot be impersonated, and the colleague cannot write a Lease as itself."""
    kube = Kube(world.configs['colleague'])
    lease = {'metadata': {'name': 'kubeops-release-r-forged00000'}, 'spec': {}}
    with pytest.raises(AssertionError, match='403'):
        kube.request('POST', LEASES, lease)
    kube.headers = {'Impersonate-User': OPERATOR}
    with pytest.raises(AssertionError, match='403'):
        kube.request('GET', LEASES)
    kube.headers = {'Impersonate-User': LOCAL_SA}
    # As the namespace's own ServiceAccount, it may do what that account may: grant it Lease rights
    # and a forged seal is written (why docs/rbac.md says to run the operator from another namespace).
    world.admin.request('POST', f'/apis/rbac.authorization.k8s.io/v1/namespaces/{NS}/rolebindings', {
        'metadata': {'name': 'local-deployer-leases'},
        'roleRef': {'apiGroup': 'rbac.authorization.k8s.io', 'kind': 'Role', 'name': 'kubeops-rollout'},
        'subjects': [{'kind': 'ServiceAccount', 'name': 'deployer', 'namespace': NS}]})
    written = kube.request('POST', LEASES, lease)
    assert written['metadata']['name'] == 'kubeops-release-r-forged00000'
    world.admin.request('DELETE', LEASES + '/kubeops-release-r-forged00000')


def test_a_backend_ref_moved_to_another_namespace_is_never_taken_as_ours(world, tmp_path):
    """The colleague points the stable backendRef of a rule at a Service of the same name in another
    namespace: the step finds no rule of its two Services, writes nothing and says so."""
    path = tr.GW.format(ns=NS) + '/httproutes/tr2'
    route = world.colleague.request('GET', path)
    route['spec']['rules'][0]['backendRefs'][0]['namespace'] = 'other'
    written = world.colleague.request('PUT', path, route)
    res = operate(world, tmp_path, task('step', 'rollout_traffic', route={'name': 'tr2', 'namespace': NS},
                                        stable_service='tr2-stable', canary_service='tr2-canary', weight=40,
                                        timeout=20))
    r = res.failed('step')
    assert 'no rule with backendRefs to both Services tr2-stable and tr2-canary' in r['msg'], r['msg']
    assert r['changed'] is False
    after = world.admin.request('GET', path)
    assert (after['spec'], after['metadata']['generation']) == \
        (written['spec'], written['metadata']['generation'])
