"""The collection with exactly the permissions docs/rbac.md lists, against kubesim authorizing with
RBAC (`authorization_mode='RBAC'`), through real ansible-playbook runs:

- every module, role and playbook runs as the ServiceAccount `shop/deployer` bound only to the Roles
  the document gives (its YAML blocks are read from the document itself), and passes;
- each rule of those Roles taken away in turn (one user per rule set), the smallest task needing it
  fails with a message naming the user, the verb, the resource and the rule to add.

The Roles are the minimal Role and the rule blocks of the rolling_update_rc, rollout_bluegreen and
rollout_traffic sections (kubesim serves the Gateway API for the traffic canaries). One kubesim and
two ansible-playbook runs serve the whole module.
"""

import datetime
import json
import os
import re
import subprocess

import pytest
import yaml

from tests.kubesim import KubeSim

from tests.support import traffic as tr

from ..bluegreen.conftest import Apps
from ..conftest import BIN, CALLBACKS, ROOT, Kube, workload

pytestmark = pytest.mark.integration

ADMIN = 'rbac-admin-token-5e0c71'
DEPLOYER = 'system:serviceaccount:shop:deployer'
NS = 'shop'
DOC = ROOT / 'docs' / 'rbac.md'


# The sections of docs/rbac.md whose rule blocks add to the minimal Role, by heading: the name of
# the Role the test makes of each.
EXTRA_SECTIONS = {'rolling_update_rc': 'kubeops-rolling-update-rc', 'rollout_bluegreen': 'kubeops-bluegreen',
                  'rollout_traffic': 'kubeops-traffic'}


def documented_roles():
    """The Role (and its RoleBinding) of "A minimal Role for all six modules", and the rules the
    rolling_update_rc, rollout_bluegreen and rollout_traffic sections add, as docs/rbac.md writes
    them."""
    sections = {part.split('\n', 1)[0]: part for part in DOC.read_text().split('\n## ')}
    first = next(text for title, text in sections.items() if title.startswith('A minimal Role'))
    role, binding = list(yaml.safe_load_all(re.search(r'```yaml\n(.*?)```', first, re.S).group(1)))
    assert role['kind'] == 'Role' and binding['kind'] == 'RoleBinding'
    roles, bindings = [role], [binding]
    for heading, name in EXTRA_SECTIONS.items():
        (text,) = [text for title, text in sections.items() if title.startswith(heading + ' ')]
        rules = yaml.safe_load(re.search(r'```yaml\n(.*?)```', text, re.S).group(1))
        assert isinstance(rules, list), heading
        roles.append({'apiVersion': role['apiVersion'], 'kind': 'Role',
                      'metadata': {'name': name, 'namespace': NS}, 'rules': rules})
        bindings.append({**binding, 'metadata': {'name': name, 'namespace': NS},
                         'roleRef': {**binding['roleRef'], 'name': name}})
    return roles, bindings


def split_rules(rules):
    """Every (apiGroup, resource, verb) the rules grant."""
    return [(g, r, v) for rule in rules for g in rule['apiGroups'] for r in rule['resources']
            for v in rule['verbs']]


def without(rules, group, resource, verb):
    """``rules`` with one verb of one resource taken away."""
    out = []
    for rule in rules:
        for g in rule['apiGroups']:
            for r in rule['resources']:
                verbs = [v for v in rule['verbs'] if (g, r, v) != (group, resource, verb)]
                if verbs:
                    out.append({'apiGroups': [g], 'resources': [r], 'verbs': verbs})
    return out


# The workloads of the first test live in `shop` (the document's namespace); each rule's test has
# its own objects in `lean`, so the two parts do not depend on each other's order.
D = {'kind': 'Deployment', 'name': 'web', 'namespace': NS}
S = {'kind': 'StatefulSet', 'name': 'db', 'namespace': NS}
RC = {'name': 'legacy', 'namespace': NS, 'update_period': 0.05, 'poll_interval': 0.05, 'timeout': 30}
LEAN = 'lean'
BG = {'namespace': NS, 'timeout': 30, 'fail_fast_seconds': 5, 'scale_down_delay_seconds': 0}
BG_APP = {'service': 'bg', 'preview_service': 'bg-preview', 'hpa': 'bg',
          'deployments': {'blue': 'bg-blue', 'green': 'bg-green'}, 'images': {'app': 'nginx:1.26'}}
TRAFFIC = {'route': {'name': 'tr', 'namespace': NS}, 'stable_service': 'tr-stable',
           'canary_service': 'tr-canary', 'namespace': NS, 'timeout': 20}


def _w(kind, name, **more):
    return {'kind': kind, 'name': name, 'namespace': LEAN, **more}


def _rc(name):
    return {'name': name, 'namespace': LEAN, 'image': 'nginx:1.26', 'update_period': 0.05,
            'poll_interval': 0.05, 'timeout': 30}


def _bluegreen(name):
    """A blue/green switch of the app ``name`` in the lean namespace."""
    return {'state': 'switched', 'namespace': LEAN, 'timeout': 30, 'fail_fast_seconds': 5,
            'apps': [{'service': name, 'preview_service': name + '-preview', 'hpa': name,
                      'deployments': {'blue': name + '-blue', 'green': name + '-green'},
                      'images': {'app': 'nginx:1.26'}}]}


def _traffic_canary(name, ns=LEAN):
    """A traffic canary of one step, then its promotion, of ``name`` in ``ns``."""
    return {'workloads': [{'kind': 'Deployment', 'name': name, 'namespace': ns,
                           'images': {'app': 'nginx:1.26'}}],
            'traffic': {'route': {'name': name, 'namespace': ns}, 'stable_service': name + '-stable',
                        'canary_service': name + '-canary', 'steps': [{'weight': 25}]},
            'soak_seconds': 0, 'timeout': 30, 'fail_fast_seconds': 5}


def _selector(kind, app):
    return {'kind': kind, 'label_selectors': [f'app={app}'], 'namespace': LEAN}


# The smallest task that needs each rule: (group, resource, verb) -> (module, arguments).
NEEDS = {
    ('apps', 'deployments', 'get'): ('rollout_history', _w('Deployment', 'web')),
    ('apps', 'deployments', 'list'): ('rollout_history', _selector('Deployment', 'web')),
    ('apps', 'deployments', 'watch'): ('rollout_restart', _w('Deployment', 'web-watch', wait=True)),
    ('apps', 'deployments', 'patch'): ('rollout_restart', _w('Deployment', 'web')),
    ('apps', 'statefulsets', 'get'): ('rollout_history', _w('StatefulSet', 'db')),
    ('apps', 'statefulsets', 'list'): ('rollout_history', _selector('StatefulSet', 'db')),
    ('apps', 'statefulsets', 'watch'): ('rollout_restart', _w('StatefulSet', 'db-watch', wait=True)),
    ('apps', 'statefulsets', 'patch'): ('rollout_restart', _w('StatefulSet', 'db')),
    ('apps', 'daemonsets', 'get'): ('rollout_history', _w('DaemonSet', 'agent')),
    ('apps', 'daemonsets', 'list'): ('rollout_history', _selector('DaemonSet', 'agent')),
    ('apps', 'daemonsets', 'watch'): ('rollout_restart', _w('DaemonSet', 'agent-watch', wait=True)),
    ('apps', 'daemonsets', 'patch'): ('rollout_restart', _w('DaemonSet', 'agent')),
    ('apps', 'replicasets', 'list'): ('rollout_history', _w('Deployment', 'web')),
    ('apps', 'controllerrevisions', 'list'): ('rollout_history', _w('StatefulSet', 'db')),
    ('', 'pods', 'list'): ('rolling_update_rc', _rc('rc-pods-list')),
    ('', 'pods', 'patch'): ('rolling_update_rc', _rc('rc-pods-patch')),
    ('', 'pods', 'delete'): ('rollout_undo', _w('StatefulSet', 'stuck', replace_stuck_pods=True)),
    ('', 'events', 'list'): ('rollout_status', _w('StatefulSet', 'stuck-events', wait_timeout=1)),
    ('coordination.k8s.io', 'leases', 'create'): ('rollout_release', {
        'workloads': [_w('Deployment', 'web', images={'app': 'nginx:1.26'})], 'soak_seconds': 0}),
    ('coordination.k8s.io', 'leases', 'delete'): ('rollout_release', {
        'workloads': [_w('Deployment', 'web-lease', images={'app': 'nginx:1.26'})], 'soak_seconds': 0}),
    ('', 'replicationcontrollers', 'list'): ('rolling_update_rc', _rc('rc-list')),
    ('', 'replicationcontrollers', 'watch'): ('rolling_update_rc', _rc('rc-watch')),
    ('', 'replicationcontrollers', 'create'): ('rolling_update_rc', _rc('rc-create')),
    ('', 'replicationcontrollers', 'update'): ('rolling_update_rc', _rc('rc-update')),
    ('', 'replicationcontrollers', 'patch'): ('rolling_update_rc', _rc('rc-patch')),
    ('', 'replicationcontrollers', 'delete'): ('rolling_update_rc', _rc('rc-delete')),
    # A lease held by another run (made below): the module watches it until it is released.
    ('coordination.k8s.io', 'leases', 'watch'): ('rolling_update_rc', _rc('rc-lease-held')),
    # A lease of one second, renewed three times a second, over a slower update.
    ('coordination.k8s.io', 'leases', 'update'): ('rolling_update_rc', {
        **_rc('rc-lease-renewed'), 'lease_duration': 1, 'update_period': 0.5}),
    # rollout_bluegreen: one app per rule (a switch writes before the rule it lacks is needed).
    ('', 'services', 'get'): ('rollout_bluegreen', _bluegreen('bg-sget')),
    ('', 'services', 'patch'): ('rollout_bluegreen', _bluegreen('bg-spatch')),
    ('discovery.k8s.io', 'endpointslices', 'list'): ('rollout_bluegreen', _bluegreen('bg-eslist')),
    ('autoscaling', 'horizontalpodautoscalers', 'get'): ('rollout_bluegreen', _bluegreen('bg-hget')),
    ('autoscaling', 'horizontalpodautoscalers', 'patch'): ('rollout_bluegreen', _bluegreen('bg-hpatch')),
    # rollout_traffic, and rollout_release with traffic (its first step creates the canary Deployment).
    ('gateway.networking.k8s.io', 'httproutes', 'get'): ('rollout_traffic', {
        'route': {'name': 'tr-rget', 'namespace': LEAN}, 'stable_service': 'tr-rget-stable',
        'canary_service': 'tr-rget-canary', 'weight': 0, 'timeout': 20}),
    ('gateway.networking.k8s.io', 'httproutes', 'patch'): ('rollout_release', _traffic_canary('tr-rpatch')),
    # The step's wait for the gateway's verdict reads the route from a LISTed copy of the routes.
    ('gateway.networking.k8s.io', 'httproutes', 'list'): ('rollout_traffic', {
        'route': {'name': 'tr-rlist', 'namespace': LEAN}, 'stable_service': 'tr-rlist-stable',
        'canary_service': 'tr-rlist-canary', 'weight': 0, 'timeout': 20}),
    ('apps', 'deployments', 'create'): ('rollout_release', _traffic_canary('tr-dcreate')),
}
# Rules whose absence the module survives, saying so in a warning.
WARNED = {('coordination.k8s.io', 'leases', 'delete')}
LEAN_WORKLOADS = [('Deployment', n) for n in ('web', 'web-watch', 'web-lease')] + \
    [('StatefulSet', n) for n in ('db', 'db-watch')] + [('DaemonSet', n) for n in ('agent', 'agent-watch')]
LEAN_BLUEGREENS = [args['apps'][0]['service'] for module, args in NEEDS.values()
                   if module == 'rollout_bluegreen']
LEAN_TRAFFICS = ['tr-rget', 'tr-rpatch', 'tr-dcreate', 'tr-rlist']
LEAN_RCS = sorted(args['name'] for module, args in NEEDS.values() if module == 'rolling_update_rc')


def now_micro():
    return datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.%fZ')


def rc_manifest(name, ns):
    labels = {'app': name}
    return {'apiVersion': 'v1', 'kind': 'ReplicationController',
            'metadata': {'name': name, 'namespace': ns, 'labels': labels},
            'spec': {'replicas': 2, 'selector': labels, 'template': {
                'metadata': {'labels': labels},
                'spec': {'containers': [{'name': 'app', 'image': 'nginx:1.25'}]}}}}


def make_bluegreen_and_traffic_apps(kubeconfig, ns, bluegreens, traffics):
    """In ``ns``: the blue/green apps ``bluegreens`` (two colored Deployments, its live and preview
    Services, an HPA on the live color), and the traffic canary worlds of ``traffics`` (a stable
    Deployment, its stable, canary and legacy Services, the Gateway ``public``, the HTTPRoute)."""
    apps = Apps(kubeconfig)
    for bluegreen in bluegreens:
        apps.create_app(bluegreen, replicas=1, ns=ns, hpa=True)
    for traffic in traffics:
        gw = tr.GW.format(ns=ns)
        services = f'/api/v1/namespaces/{ns}/services'
        apps.create(tr.deployment(traffic, 'stable', 2, ns=ns, app=traffic))
        for name, track in ((traffic + '-stable', 'stable'), (traffic + '-canary', 'canary')):
            apps.request('POST', services, tr.service(name, {'app': traffic, tr.TRACK: track}, ns))
        apps.request('POST', services, tr.service(traffic + '-legacy', {'app': 'legacy'}, ns))
        if not any(g['metadata']['name'] == 'public' for g in apps.request('GET', gw + '/gateways')['items']):
            apps.request('POST', gw + '/gateways', tr.gateway(ns))
        apps.request('POST', gw + '/httproutes', tr.route(traffic, ns))
        apps.rolled_out('Deployment', traffic, ns=ns)


@pytest.fixture(scope='module')
def cluster(tmp_path_factory):
    root = tmp_path_factory.mktemp('least-privilege')
    roles, bindings = documented_roles()
    rules = [rule for role in roles for rule in role['rules']]
    users = {'deployer': (DEPLOYER, 'system:serviceaccounts,system:serviceaccounts:shop')}
    for i, needed in enumerate(NEEDS):
        users[f'without-{i}'] = (f'without-{"-".join(needed[1:])}-{i}', '')
    tokens = root / 'tokens.csv'
    tokens.write_text(''.join(f'{name}-token-{i:04d},{user},{name},"{groups}"\n'
                              for i, (name, (user, groups)) in enumerate(users.items())))
    sim = KubeSim(tls=True, token=ADMIN, token_file=tokens, authorization_mode='RBAC', nodes=2,
                  time_scale=10, ready_delay=0.05, fail_image='^broken:', gateway_api=True,
                  gateway_delay=0.05).start()
    try:
        sim.write_kubeconfig(root / 'admin')
        kube = Kube(root / 'admin')
        kube.request('POST', '/api/v1/namespaces', {'metadata': {'name': NS}})
        kube.request('POST', f'/api/v1/namespaces/{NS}/serviceaccounts', {'metadata': {'name': 'deployer'}})
        rbac = f'/apis/rbac.authorization.k8s.io/v1/namespaces/{NS}'
        for role in roles:
            kube.request('POST', f'{rbac}/roles', role)
        for binding in bindings:
            kube.request('POST', f'{rbac}/rolebindings', binding)
        kube.request('POST', '/api/v1/namespaces', {'metadata': {'name': LEAN}})
        lean = f'/apis/rbac.authorization.k8s.io/v1/namespaces/{LEAN}'
        for i, needed in enumerate(NEEDS):
            user = users[f'without-{i}'][0]
            kube.request('POST', f'{lean}/roles', {'metadata': {'name': user},
                                                   'rules': without(rules, *needed)})
            kube.request('POST', f'{lean}/rolebindings', {
                'metadata': {'name': user},
                'roleRef': {'apiGroup': 'rbac.authorization.k8s.io', 'kind': 'Role', 'name': user},
                'subjects': [{'kind': 'User', 'name': user}]})
        for ns, rcs in ((NS, ['legacy']), (LEAN, LEAN_RCS)):
            for name in rcs:
                kube.request('POST', f'/api/v1/namespaces/{ns}/replicationcontrollers', rc_manifest(name, ns))
        replicas = {'Deployment': 2, 'StatefulSet': 1, 'DaemonSet': 1}
        kube.create_rolled_out([workload(kind, name, ns=ns, replicas=replicas[kind])
                                for ns, names in ((NS, [('Deployment', 'web'), ('StatefulSet', 'db'),
                                                        ('DaemonSet', 'agent')]), (LEAN, LEAN_WORKLOADS))
                                for kind, name in names])
        # StatefulSets whose upgrade is stuck on a broken image: an undo must replace their pods.
        stuck = {'stuck': 'OrderedReady', 'stuck-events': 'OrderedReady'}
        manifests = []
        for name, policy in stuck.items():
            manifests.append(workload('StatefulSet', name, ns=LEAN, replicas=2))
            manifests[-1]['spec']['podManagementPolicy'] = policy
            if policy == 'Parallel':  # both pods replaced at once, both stuck
                manifests[-1]['spec']['updateStrategy'] = {'type': 'RollingUpdate',
                                                           'rollingUpdate': {'maxUnavailable': 2}}
        kube.create_rolled_out(manifests)
        for name in stuck:
            kube.patch('StatefulSet', name, {'spec': {'template': {'spec': {'containers': [
                {'name': 'app', 'image': 'broken:1'}]}}}}, ns=LEAN)
        for name in stuck:
            kube.wait('StatefulSet', name, lambda o, name=name: any(
                p['spec']['containers'][0]['image'] == 'broken:1'
                for p in kube.list('Pod', LEAN, f'app={name}')), ns=LEAN)
        kube.request('POST', f'/apis/coordination.k8s.io/v1/namespaces/{LEAN}/leases', {
            'metadata': {'name': 'rolling-update-rc-rc-lease-held'},
            'spec': {'holderIdentity': 'another-run', 'leaseDurationSeconds': 600,
                     'acquireTime': now_micro(), 'renewTime': now_micro()}})
        make_bluegreen_and_traffic_apps(root / 'admin', NS, ['bg'], ['tr'])
        make_bluegreen_and_traffic_apps(root / 'admin', LEAN, LEAN_BLUEGREENS, LEAN_TRAFFICS)
        # tr-rlist gives the canary 10 %: its task's step back to 0 writes, then waits for the verdict.
        listed = tr.route('tr-rlist', LEAN)
        listed['spec']['rules'][0]['backendRefs'][0]['weight'] = 90
        listed['spec']['rules'][0]['backendRefs'][1]['weight'] = 10
        kube.request('PATCH', tr.GW.format(ns=LEAN) + '/httproutes/tr-rlist', {'spec': listed['spec']},
                     content_type='application/merge-patch+json')
        sim.kube = kube
        sim.rules = rules
        sim.kubeconfigs = {name: str(sim.write_kubeconfig(root / name, token=f'{name}-token-{i:04d}'))
                           for i, name in enumerate(users)}
        sim.root = root
        yield sim
    finally:
        sim.stop()


def run(root, plays, inventory=None):
    """One ansible-playbook run of ``plays``; (the process, results by task name)."""
    book = root / f'play-{len(list(root.glob("play-*.yml")))}.yml'
    book.write_text(yaml.safe_dump(plays, sort_keys=False))
    out = book.with_suffix('.json')
    env = {k: v for k, v in os.environ.items() if not k.startswith('K8S_AUTH_') and k != 'KUBECONFIG'}
    env.update({'ANSIBLE_CONFIG': str(ROOT / 'ansible.cfg'), 'ANSIBLE_CALLBACK_PLUGINS': str(CALLBACKS),
                'ANSIBLE_CALLBACKS_ENABLED': 'kubeops_record', 'KUBEOPS_RECORD_OUT': str(out),
                'ANSIBLE_NOCOLOR': '1', 'ANSIBLE_DEPRECATION_WARNINGS': 'false',
                'PATH': f'{BIN}{os.pathsep}{env.get("PATH", "")}'})
    cmd = [str(BIN / 'ansible-playbook'), str(book)]
    if inventory:
        cmd[1:1] = ['-i', str(inventory)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    return proc, (json.loads(out.read_text()) if out.exists() else {})


def playbook(name, **extra):
    return {'import_playbook': str(ROOT / 'playbooks' / name), 'vars': extra}


def test_every_module_role_and_playbook_runs_with_the_documented_roles(cluster):
    config = cluster.kubeconfigs['deployer']
    one = {'kubeconfig': config, 'workload_namespace': NS}
    web = {**one, 'workload_kind': 'Deployment', 'workload_name': 'web'}
    tasks = [
        ('history', 'rollout_history', {**D}),
        ('history by label', 'rollout_history', {'kind': 'StatefulSet', 'label_selectors': ['app=db'],
                                                 'namespace': NS}),
        ('status', 'rollout_status', {**D, 'wait_timeout': 30}),
        ('pause', 'rollout_pause', {**D}),
        ('resume', 'rollout_pause', {**D, 'state': 'resumed', 'wait': True}),
        ('restart daemonset', 'rollout_restart', {'kind': 'DaemonSet', 'name': 'agent', 'namespace': NS,
                                                  'wait': True}),
        ('image statefulset', 'rollout_image', {**S, 'images': {'app': 'nginx:1.26'}, 'wait': True}),
        ('undo statefulset', 'rollout_undo', {**S, 'wait': True}),
        ('release', 'rollout_release', {'workloads': [{'kind': 'DaemonSet', 'name': 'agent', 'namespace': NS,
                                                       'images': {'app': 'nginx:1.26'}}], 'soak_seconds': 0}),
        ('rolling update rc', 'rolling_update_rc', {**RC, 'image': 'nginx:1.26'}),
        *[(f'bluegreen {state}', 'rollout_bluegreen', {**BG, 'state': state,
                                                        'apps': [{k: v for k, v in BG_APP.items()
                                                                  if state != 'finished' or k != 'images'}]})
          for state in ('prepared', 'switched', 'finished')],
        ('traffic weight', 'rollout_traffic', {**TRAFFIC, 'weight': 0}),
        ('traffic canary', 'rollout_release', _traffic_canary('tr', NS)),
    ]
    modules = {'hosts': 'localhost', 'gather_facts': False,
               'module_defaults': {'group/kubeops.rollout.rollout': {'kubeconfig': config}},
               'tasks': [{'name': title, f'kubeops.rollout.{module}': args} for title, module, args in tasks]
               + [{'name': 'wait role', 'vars': {'rollout_wait_workloads': [D, S]},
                   'ansible.builtin.include_role': {'name': 'kubeops.rollout.rollout_wait'}}]}
    image = {**web, 'container': 'app'}
    fleet_inventory = cluster.root / 'fleet.yml'
    fleet_inventory.write_text(yaml.safe_dump({'all': {'children': {'clusters': {
        'hosts': {'rbac-cluster': {'kubeconfig': config}},
        'vars': {'ansible_connection': 'local', 'ansible_python_interpreter': '{{ ansible_playbook_python }}',
                 'rollout_timeout': 30, 'soak_seconds': 0,
                 'workloads': [{**D, 'images': {'app': 'nginx:1.31'}}]}}}}}))
    proc, results = run(cluster.root, [
        modules,
        playbook('history.yml', **web),
        playbook('restart.yml', **web),
        playbook('rollback.yml', **one, workload_kind='StatefulSet', workload_name='db'),
        playbook('upgrade.yml', **image, image='nginx:1.27', soak_seconds=0),
        playbook('rc_upgrade.yml', kubeconfig=config, rc_name='legacy', rc_namespace=NS,
                 rc_image='nginx:1.27', rc_update_period=0.05),
        playbook('canary_start.yml', **image, image='nginx:1.28'),
        playbook('canary_promote.yml', **image, image='nginx:1.28', soak_seconds=0),
        playbook('canary_start.yml', **image, image='nginx:1.29'),
        playbook('canary_abort.yml', **image, image='nginx:1.29'),
        playbook('fleet.yml'),
    ], inventory=fleet_inventory)
    failed = {name: r.get('msg') for name, r in results.items() if r.get('_status') == 'failed'}
    assert proc.returncode == 0 and not failed, f'{failed}\n{proc.stdout[-6000:]}'
    assert 'forbidden' not in proc.stdout.lower()
    deployment = cluster.kube.get('Deployment', 'web', ns=NS)
    assert deployment['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.31'
    rc = cluster.kube.request('GET', f'/api/v1/namespaces/{NS}/replicationcontrollers/legacy')
    assert rc['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.27'
    service = cluster.kube.request('GET', f'/api/v1/namespaces/{NS}/services/bg')
    assert service['spec']['selector']['kubeops.rollout/color'] == 'green'
    assert cluster.kube.get('Deployment', 'bg-blue', ns=NS)['spec']['replicas'] == 0
    hpa = cluster.kube.request('GET', f'/apis/autoscaling/v2/namespaces/{NS}/horizontalpodautoscalers/bg')
    assert hpa['spec']['scaleTargetRef']['name'] == 'bg-green'
    stable = cluster.kube.get('Deployment', 'tr', ns=NS)
    assert stable['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.26'


@pytest.fixture(scope='module')
def without_each_rule(cluster):
    """One run: each task as the user whose Role lacks the rule it needs."""
    plays = [{'hosts': 'localhost', 'gather_facts': False, 'tasks': [
        {'name': f'without {i}', f'kubeops.rollout.{module}': {**args, 'kubeconfig': cluster.kubeconfigs[
            f'without-{i}']}, 'ignore_errors': True}
        for i, (module, args) in enumerate(NEEDS.values())]}]
    proc, results = run(cluster.root, plays)
    assert results, proc.stdout[-3000:]
    return results


@pytest.mark.parametrize('needed', list(NEEDS), ids=['/'.join(n).lstrip('/') for n in NEEDS])
def test_each_rule_is_needed_and_its_absence_named(cluster, without_each_rule, needed):
    i = list(NEEDS).index(needed)
    assert needed in split_rules(cluster.rules), f'{needed} is not in docs/rbac.md'
    result = without_each_rule[f'without {i}']
    if needed in WARNED:
        assert result['_status'] == 'ok', json.dumps(result)[:1500]
        said = ' '.join(result.get('warnings') or [])
    else:
        assert result['_status'] == 'failed', f'{needed} was not needed: {json.dumps(result)[:1500]}'
        said = result['msg']
    group, resource, verb = needed
    user = f'without-{resource}-{verb}-{i}'
    where = LEAN
    what = f'{resource}.{group}' if group else resource
    rule = json.dumps({'apiGroups': [group], 'resources': [resource], 'verbs': [verb]})
    assert (f'the user "{user}" may not {verb} {what} in namespace "{where}": add {rule} to its Role '
            '(see docs/rbac.md)') in said, said
    assert 'token' not in said


def test_every_documented_rule_is_checked_or_explained():
    """The rules no task above takes away are named here with why: docs/rbac.md must not grant more
    than the modules use."""
    roles, _ = documented_roles()
    granted = set(split_rules([rule for role in roles for rule in role['rules']]))
    unchecked = granted - set(NEEDS)
    assert unchecked == UNCHECKED, sorted(unchecked ^ UNCHECKED)


# Rules the documented Roles grant that no single-rule removal above fails on, and why each is kept.
UNCHECKED = {
    # docs/rbac.md: optional. A workload carrying the record of a release that has not ended is
    # refused with or without it; with it the message names the run holding the Lease (and
    # rolling_update_rc's check mode warns about another run's lease).
    ('coordination.k8s.io', 'leases', 'get'),
    # Read on the paths that resume or report an interrupted update (a conflict, an RC gone, the
    # failure report, an explicit new_name whose old RC is gone); an ordinary update reads through
    # its watch.
    ('', 'replicationcontrollers', 'get'),
    # docs/rbac.md: optional. The waits of a switch and of a traffic step LIST these once and keep
    # them current with a watch; without it they LIST again every second (the same result).
    ('discovery.k8s.io', 'endpointslices', 'watch'),
    ('', 'pods', 'watch'),
    ('gateway.networking.k8s.io', 'httproutes', 'watch'),
}
