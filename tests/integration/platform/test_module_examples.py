"""Every EXAMPLES block of every module, run as written against kubesim, so that no example can drift
from what the modules do. Each module's block runs in one play (later examples may use what earlier
ones registered) after a setup that creates the objects the examples name; only the update pace of
rolling_update_rc is made faster, through module_defaults. An example whose name makes a claim (a
second run changes nothing, idempotent) is run twice and the second run must change nothing. A
module, or an example, without a setup here fails."""

import ast
import pytest
import yaml

from ..bluegreen.conftest import colored, service
from ..conftest import ROOT, Kube, workload
from ..rc import Rcs, rc_manifest
from ..traffic.conftest import build as traffic_world

pytestmark = pytest.mark.integration

MODULES = sorted(p.stem for p in (ROOT / 'plugins' / 'modules').glob('*.py'))
FAST_RC = {'update_period': 0.05, 'poll_interval': 0.05}


def examples(module):
    tree = ast.parse((ROOT / 'plugins' / 'modules' / f'{module}.py').read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, 'id', None) == 'EXAMPLES' for t in node.targets):
            return yaml.safe_load(node.value.value)
    raise AssertionError(f'{module} has no EXAMPLES')


def namespace(kube, name):
    if name not in {n['metadata']['name'] for n in kube.request('GET', '/api/v1/namespaces')['items']}:
        kube.create({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': name}})


def container(name):
    return {'spec': {'containers': [{'name': name, 'image': 'registry.example.com/%s:1' % name}]}}


def with_revisions(kube, kind, name, ns='default', count=3, labels=None, container_name='app'):
    """A workload rolled out ``count`` times (revisions 1..count)."""
    obj = workload(kind, name, ns=ns, labels=labels, replicas=2)
    obj['spec']['template']['spec']['containers'][0]['name'] = container_name
    kube.create_rolled_out([obj])
    for n in range(2, count + 1):
        kube.patch(kind, name, {'spec': {'template': {'spec': {'containers': [
            {'name': container_name, 'image': f'nginx:1.{25 + n}'}]}}}}, ns=ns)
        kube.rolled_out(kind, name, ns=ns)


# ---- setups, per module: (kubesim options, setup(kube), setup tasks run first in the play) -----

def history_setup(kube):
    namespace(kube, 'shop')
    with_revisions(kube, 'Deployment', 'web', ns='shop', count=2)
    with_revisions(kube, 'Deployment', 'web', count=2)
    with_revisions(kube, 'StatefulSet', 'db', count=3)
    with_revisions(kube, 'DaemonSet', 'node-exporter', count=1, labels={'tier': 'node'})


def image_setup(kube):
    with_revisions(kube, 'Deployment', 'web', count=1, container_name='web')
    with_revisions(kube, 'StatefulSet', 'db', count=1, container_name='db')
    kube.patch('StatefulSet', 'db', {'spec': {'replicas': 3}})
    kube.rolled_out('StatefulSet', 'db')
    agent = workload('DaemonSet', 'node-agent', extra_template={'spec': {'initContainers': [
        {'name': 'init', 'image': 'busybox:1'}]}})
    kube.create_rolled_out([agent])


def pause_setup(kube):
    with_revisions(kube, 'Deployment', 'web', count=1)
    with_revisions(kube, 'Deployment', 'api', count=1)


def restart_setup(kube):
    namespace(kube, 'shop')
    with_revisions(kube, 'Deployment', 'web', count=1)
    with_revisions(kube, 'Deployment', 'worker', count=1)
    kube.request('POST', '/api/v1/namespaces/default/configmaps', {
        'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'worker-settings'},
        'data': {'MODE': 'a'}})
    kube.request('POST', '/api/v1/namespaces/default/secrets', {
        'apiVersion': 'v1', 'kind': 'Secret', 'metadata': {'name': 'worker-credentials'},
        'data': {'TOKEN': 'c2VjcmV0'}})
    for name in ('orders', 'carts'):
        with_revisions(kube, 'StatefulSet', name, ns='shop', count=1,
                       labels={'app.kubernetes.io/part-of': 'shop'})


def status_setup(kube):
    namespace(kube, 'kube-system')
    with_revisions(kube, 'Deployment', 'web', count=1)
    with_revisions(kube, 'StatefulSet', 'db', count=1)
    for name in ('node-exporter', 'log-agent'):
        with_revisions(kube, 'DaemonSet', name, ns='kube-system', count=1, labels={'tier': 'node'})
    namespace(kube, 'shop')
    for kind, name in (('Deployment', 'cart'), ('StatefulSet', 'orders')):
        with_revisions(kube, kind, name, ns='shop', count=1, labels={'app.kubernetes.io/part-of': 'shop'})


def release_setup(kube):
    namespace(kube, 'shop')
    with_revisions(kube, 'Deployment', 'web', ns='shop', count=1, container_name='web')
    with_revisions(kube, 'StatefulSet', 'db', ns='shop', count=1, container_name='db')
    traffic_world(kube, ns='shop', app='storefront', replicas=2)


def traffic_setup(kube):
    """web in shop with its canary Deployment (1 pod) behind its Services and the HTTPRoute web."""
    namespace(kube, 'shop')
    traffic_world(kube, ns='shop', replicas=2, canary_replicas=1)


def undo_setup(kube):
    with_revisions(kube, 'Deployment', 'web', count=3)
    namespace(kube, 'shop')
    for kind, name in (('Deployment', 'cart'), ('DaemonSet', 'agent')):
        with_revisions(kube, kind, name, ns='shop', count=2, labels={'app.kubernetes.io/part-of': 'shop'})
    kube.create_rolled_out([workload('StatefulSet', 'db', replicas=3)])
    kube.patch('StatefulSet', 'db', {'spec': {'template': {'spec': {'containers': [
        {'name': 'app', 'image': 'broken:1'}]}}}})
    kube.wait('StatefulSet', 'db', lambda o: any(
        p['spec']['containers'][0]['image'] == 'broken:1' for p in kube.list('Pod', selector='app=db')))


def rc_setup(kube):
    namespace(kube, 'shop')
    Rcs(kube, 'shop').create(rc_manifest('frontend', 'registry.example.com/frontend:2.4.0', 2, ns='shop'))
    rc_setup_v1(kube)
    Rcs(kube).create(rc_manifest('frontend', 'registry.example.com/frontend:2.4.0', 2))


def fresh_frontend_v1(kube):
    rcs = Rcs(kube)
    for name in ('frontend-v1', 'frontend-v2'):
        if rcs.get(name):
            kube.request('DELETE', f'/api/v1/namespaces/default/replicationcontrollers/{name}')
    rc_setup_v1(kube)


def rc_setup_v1(kube):
    Rcs(kube).create(rc_manifest('frontend-v1', 'registry.example.com/frontend:2.4.0', 2,
                                 containers=[{'name': 'web', 'image': 'registry.example.com/frontend:2.4.0'}],
                                 labels={'app': 'frontend', 'version': 'v1'}))


# rolling_update_rc's examples act on frontend-v1 three times: a fresh frontend-v1 (and no frontend-v2)
# before the full definition and before "abort the update", which also needs an update left half done
# (a broken image): (Python setup before a new play, tasks first in that play).
BETWEEN = {
    'Replace with a full definition': (fresh_frontend_v1, []),
    'Abort the update in progress and return to frontend-v1': (fresh_frontend_v1, [
        {'name': 'setup: an update that stops half way',
         'kubeops.rollout.rolling_update_rc': {'name': 'frontend-v1', 'new_name': 'frontend-v3',
                                               'image': 'broken:1', 'container': 'web', 'timeout': 1.5},
         'ignore_errors': True}]),
}

def analysis_endpoints(request, tmp_path):
    """The example's Prometheus and health endpoint: a real Prometheus scraping a metrics server,
    reached by their cluster names through an http_proxy that routes them here."""
    from ..metrics import MetricsServer, Prometheus, RoutingProxy, prometheus_binary
    metrics = MetricsServer()
    request.addfinalizer(metrics.stop)
    metrics.set('http_requests_total', 3, app='web', code='503')
    metrics.set('http_requests_total', 90, app='web', code='200')
    prom = Prometheus(prometheus_binary(), metrics.port, tmp_path)
    request.addfinalizer(prom.stop)
    # rate() needs two scrapes
    prom.wait_for('sum(rate(http_requests_total{app="web",code=~"5.."}[1m]))')
    proxy = RoutingProxy({'prometheus.monitoring:9090': prom.url, 'web.shop.svc:8080': metrics.url})
    request.addfinalizer(proxy.stop)
    return {'http_proxy': proxy.url, 'no_proxy': '127.0.0.1,localhost'}


def bluegreen_setup(kube):
    """Two blue/green apps (web with an HPA, api), each live on blue with a preview Service, and legacy:
    one Deployment behind a Service, to adopt."""
    namespace(kube, 'shop')
    for app in ('web', 'api'):
        for color, replicas in (('blue', 2), ('green', 0)):
            obj = colored(app, color, replicas, ns='shop')
            obj['spec']['template']['spec']['containers'][0]['name'] = app
            kube.create_rolled_out([obj])
        for name, color in ((app, 'blue'), (f'{app}-preview', 'green')):
            kube.request('POST', '/api/v1/namespaces/shop/services',
                         service(name, {'app': app, 'kubeops.rollout/color': color}, 'shop'))
    kube.request('POST', '/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers', {
        'apiVersion': 'autoscaling/v2', 'kind': 'HorizontalPodAutoscaler', 'metadata': {'name': 'web'},
        'spec': {'scaleTargetRef': {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'name': 'web-blue'},
                 'minReplicas': 2, 'maxReplicas': 4}})
    kube.create_rolled_out([workload('Deployment', 'legacy', ns='shop', replicas=2)])
    legacy = service('legacy', {'app': 'legacy'}, 'shop')
    legacy['spec']['ports'] = [{'port': 80}]
    kube.request('POST', '/api/v1/namespaces/shop/services', legacy)


SETUPS = {
    'rollout_analysis': ({}, lambda kube: namespace(kube, 'shop')),  # where the job check runs
    'rollout_bluegreen': ({'endpoint_lag': 0.1}, bluegreen_setup),
    'rollout_history': ({}, history_setup),
    'rollout_image': ({}, image_setup),
    'rollout_pause': ({}, pause_setup),
    'rollout_restart': ({}, restart_setup),
    'rollout_status': ({}, status_setup),
    'rollout_undo': ({'fail_image': '^broken'}, undo_setup),
    'rollout_release': ({'gateway_api': True}, release_setup),
    'rollout_fleet': ({'gateway_api': True}, release_setup),
    'rollout_traffic': ({'gateway_api': True}, traffic_setup),
    'rolling_update_rc': ({'fail_image': '^broken'}, rc_setup),
    'role_variables': ({}, lambda kube: None),
    'task_file': ({}, lambda kube: None),
}


def test_every_module_has_a_setup():
    assert sorted(SETUPS) == MODULES


@pytest.mark.parametrize('module', MODULES)
def test_examples_run_as_written(kubesim_factory, play, module, request, tmp_path):
    options, setup = SETUPS[module]
    env = analysis_endpoints(request, tmp_path) if module == 'rollout_analysis' else {}
    sim = kubesim_factory(ready_delay=0.05, **options)
    kube = Kube(sim.kubeconfig)
    setup(kube)
    if module == 'task_file':  # the file the example checks, beside the playbook play() writes
        (tmp_path / 'play0').mkdir()
        (tmp_path / 'play0' / 'verify-canary.yml').write_text(
            '- name: the canary answers\n  ansible.builtin.uri: {url: "http://web.shop.svc:8080/healthz"}\n')
    phases = [(None, [], [])]  # (setup before the play, tasks, example names)
    for example in examples(module):
        if example['name'] in BETWEEN:
            before, setup_tasks = BETWEEN[example['name']]
            phases.append((before, list(setup_tasks), []))
        tasks, names = phases[-1][1], phases[-1][2]
        tasks.append(dict(example))
        names.append(example['name'])
        if 'second run changes nothing' in example['name'] or '(idempotent)' in example['name']:
            tasks.append(dict(example, name=example['name'] + ' (again)', register='again'))
    for before, tasks, names in phases:
        if before:
            before(kube)
        block = {'block': tasks, 'module_defaults': {'kubeops.rollout.rolling_update_rc': FAST_RC}}
        res = play(sim, [block], timeout=600, extra_env=env)
        for name in names:
            res.ok(name)
        for name in res.results:
            if name.endswith('(again)'):
                assert res.ok(name)['changed'] is False, name
    if module == 'rollout_image':
        agent = kube.get('DaemonSet', 'node-agent')['spec']['template']['spec']
        assert {c['image'] for c in agent['containers'] + agent['initContainers']} == {
            'registry.example.com/agent:7'}
    if module == 'role_variables':
        assert res.ok('Show what was misspelt')['msg'] == ['myapp_deploy_soak_second']
    if module == 'task_file':
        assert res.ok('Show what was checked')['msg'].endswith('verify-canary.yml: 1 task, each loads')
    if module == 'rollout_undo':
        pods = kube.list('Pod', selector='app=db')
        assert sorted(p['spec']['containers'][0]['image'] for p in pods) == ['nginx:1.25'] * 3
