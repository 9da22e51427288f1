"""The action plugins on every supported ansible-core (meta/runtime.yml ``requires_ansible``).

The plugins run module code in the controller process through a few private ansible-core internals,
all behind plugins/plugin_utils/ansible_compat.py. One play that uses each of them (argument
validation with an alias warning and an unknown option, no_log values, the task's ``environment:``,
a failed module result, check mode, the module path with its remote temporary directory) runs here
with each older ansible-core (installed into .cache/ansible-core-<version>) and with the venv's, and
must give the same results.
"""

from tests.conftest import ansible_core

from ..conftest import Kube, include, run_playbook, task, workload

OLDER_VERSIONS = ('2.16', '2.17', '2.18', '2.19', '2.20')
SECRET = 'sup3r-s3cret-t0ken'


def _tasks():
    return [
        {'name': 'version', 'ansible.builtin.set_fact': {'core': '{{ ansible_version.full }}'}},
        task('status', 'rollout_status', kind='Deployment', name='web'),
        # An alias and its option together: a warning, as AnsibleModule gives it.
        task('alias', 'rollout_status', kind='Deployment', name='web', validate_certs=False,
             verify_ssl=False),
        task('unknown option', 'rollout_status', kind='Deployment', name='web', colour='blue'),
        # A no_log option's value is kept out of the result.
        task('no_log', 'rollout_status', kind='Deployment', name='web', proxy_headers={'basic_auth': SECRET}),
        task('image check', 'rollout_image', kind='Deployment', name='web', images={'app': 'nginx:2'},
             check_mode=True, diff=True),
        task('missing', 'rollout_status', kind='Deployment', name='nope'),
        # The task's environment reaches the module: its namespace comes from K8S_AUTH_* ... and the
        # kubeconfig from module_defaults, so an unknown context there is the error.
        dict(task('environment', 'rollout_status', kind='Deployment', name='web'),
             environment={'K8S_AUTH_CONTEXT': 'no-such-context'}),
        dict(task('module path', 'rollout_status', kind='Deployment', name='web'),
             vars={'kubeops_rollout_module_path': True,
                   'ansible_python_interpreter': '{{ ansible_playbook_python }}'}),
    ]


def _summary(res):
    """What each task gave, in a form that must not depend on the ansible-core version."""
    out = {}
    for name, r in res.results.items():
        if name == 'version':
            continue
        out[name] = {
            'status': r['_status'],
            'changed': r.get('changed'),
            'msg': r.get('msg'),
            'warnings': r.get('warnings'),
            'workloads': [(w.get('name'), w.get('done'), w.get('changed')) for w in r.get('workloads') or []],
            'diff': bool(r.get('diff')),
        }
    return out


def _check(res, kube):
    r = res.results
    assert r['status']['_status'] == 'ok' and r['status']['workloads'][0]['done'] is True
    assert 'Both option validate_certs and its alias verify_ssl are set.' in r['alias']['warnings']
    assert r['unknown option']['_status'] == 'failed'
    assert 'Unsupported parameters for (kubeops.rollout.rollout_status) module: colour' in \
        r['unknown option']['msg'], r['unknown option']['msg']
    assert SECRET not in res.proc.stdout + res.proc.stderr + repr(r)
    assert r['image check']['_status'] == 'ok' and r['image check']['changed'] is True
    assert r['image check']['diff']
    assert r['missing']['_status'] == 'failed' and 'Deployment default/nope not found' in r['missing']['msg']
    assert r['environment']['_status'] == 'failed' and 'no-such-context' in r['environment']['msg']
    assert r['module path']['_status'] == 'ok' and r['module path']['workloads'][0]['done'] is True
    # Check mode wrote nothing.
    assert kube.get('Deployment', 'web')['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.25'


def test_the_plugins_behave_the_same_on_every_supported_ansible_core(kubesim_factory):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web')])
    runs = {'venv': run_playbook(sim.kubeconfig, _tasks())}
    for version in OLDER_VERSIONS:
        runs[version] = run_playbook(sim.kubeconfig, _tasks(), ansible_core=ansible_core(version))
    for version, res in runs.items():
        core = res.results['version']['ansible_facts']['core']
        assert core.startswith(version + '.') if version != 'venv' else core.startswith('2.21.'), core
        _check(res, kube)
        # A result carries invocation as ansible-core gives it to a module: always before 2.21, from
        # 2.21 only when INJECT_INVOCATION is on (it is not here); the same on both paths.
        carried = version != 'venv'
        for name in ('status', 'module path'):
            assert ('invocation' in res.results[name]) is carried, (version, name)
    expected = _summary(runs['venv'])
    for version in OLDER_VERSIONS:
        assert _summary(runs[version]) == expected, version


def test_roles_take_the_namespace_and_check_their_variables_on_every_supported_ansible_core(kubesim_factory):
    """A role's unset namespace leaves the play's module_defaults namespace to its module (the omit
    rules of each ansible-core), and its first task names a misspelt variable."""
    sim = kubesim_factory(ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': 'shop'}})
    kube.create_rolled_out([workload('Deployment', 'web', ns='shop')])
    tasks = [
        {'name': 'version', 'ansible.builtin.set_fact': {'core': '{{ ansible_version.full }}'}},
        include('rollout_wait', rollout_wait_workloads=[{'kind': 'Deployment', 'name': 'web'}],
                rollout_wait_timout=5),
        {'name': 'show', 'ansible.builtin.debug': {'var': 'rollout_wait_result'}},
    ]
    for version in ('venv',) + OLDER_VERSIONS:
        core = None if version == 'venv' else ansible_core(version)
        res = run_playbook(sim.kubeconfig, tasks, module_defaults={'namespace': 'shop'}, ansible_core=core)
        assert res.rc == 0, (version, res.stdout[-3000:])
        waited = res.ok('show')['rollout_wait_result']
        assert [d['workload'] for d in waited['done']] == ['Deployment shop/web'], (version, waited)
        checked = res.ok("kubeops.rollout.rollout_wait : Check the names of the role's variables")
        assert checked['unknown'] == [{'name': 'rollout_wait_timout', 'closest': 'rollout_wait_timeout'}], (
            version, checked)
