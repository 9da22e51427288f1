"""Every authentication method through real ansible-playbook runs against kubesim: exec credential
plugins (real scripts) for every module, a failing plugin's message, and a -vvvv run across every
auth method, success and failure, whose whole output holds no secret, raw or base64-encoded."""

import base64
import json
import os
import stat
import subprocess
import sys
import textwrap

import pytest
import yaml

from tests.hostile.fixtures import hostile_server  # noqa: F401  (fixture)
from tests.kubesim.apiserver.kubeconfig import kubeconfig as kubeconfig_of
from tests.kubesim.apiserver.tls import Certificates

from ..conftest import BIN, CALLBACKS, ROOT, Kube, task, workload
from ..rc import Rcs, rc_manifest

pytestmark = pytest.mark.integration

TOKEN = 'exec-issued-token-8c1f4d2a9e'
STALE = 'stale-exec-token-31b7e6f0c2'
ENV_SECRET = 'plugin-env-secret-5a0e9d7c44'
PASSWORD = 'basic-auth-password-77e1c9a3'
PROXY_PASSWORD = 'proxy-password-0b6d2f8e13'
TOKEN_FILE_TOKEN = 'token-file-token-9d3c71ab02'
INLINE_TOKEN = 'inline-dict-token-4e8b0c6d1f'
# Both execution paths start the plugin: the controller's runner and a module process's run_command.
PATHS = {'controller path': {}, 'module path': {'KUBEOPS_ROLLOUT_MODULE_PATH': '1'}}


def plugin(directory, name, body):
    """A real exec credential plugin: a Python script printing an ExecCredential."""
    path = directory / name
    path.write_text('#!%s\n' % sys.executable + textwrap.dedent('''\
        import json, os, sys
        def emit(status, version=os.environ.get('VERSION', 'client.authentication.k8s.io/v1')):
            print(json.dumps({'apiVersion': version, 'kind': 'ExecCredential', 'status': status}))
        ''') + textwrap.dedent(body))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def exec_kubeconfig(sim, directory, command, api_version='client.authentication.k8s.io/v1', env=None,
                    name='config'):
    config = kubeconfig_of(sim.url, ca_pem=sim.ca_pem)
    config['users'][0]['user'] = {'exec': {
        'apiVersion': api_version, 'command': command, 'args': ['--cluster', 'sim'],
        'env': [{'name': k, 'value': v} for k, v in (env or {}).items()],
        'interactiveMode': 'Never'}}
    path = directory / name
    path.write_text(yaml.safe_dump(config))
    return str(path)


@pytest.mark.parametrize('path', PATHS)
def test_exec_plugin_works_for_every_module(kubesim_factory, play, tmp_path, path):
    sim = kubesim_factory(tls=True, token=TOKEN, ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create(workload('Deployment', 'web', image='nginx:1.25'))
    kube.rolled_out('Deployment', 'web')
    rcs = Rcs(kube, 'default')
    rcs.create(rc_manifest('legacy', 'nginx:1.25', 1))
    rcs.wait_ready('legacy')

    # The first run of the plugin gives a token the API refuses; the 401 makes the module run it
    # again (a refresh), which gives the good one. Every run is counted.
    runs = tmp_path / 'runs'
    plugin(tmp_path, 'get-token', '''
        assert sys.argv[1:] == ['--cluster', 'sim'], sys.argv
        assert json.loads(os.environ['KUBERNETES_EXEC_INFO'])['spec']['interactive'] is False
        assert os.environ['PLUGIN_SECRET'] == %r
        # No input and a session of its own (so a stopped plugin's children stop with it).
        assert sys.stdin.read() == '' and os.getsid(0) == os.getpid()
        with open('/proc/%%d/cmdline' %% os.getppid(), 'rb') as parent:
            started_by = parent.read().replace(b'\\0', b' ').decode()
        open(os.environ['RUNS'] + '.parents', 'a').write(started_by + '\\n')
        runs = os.environ['RUNS']
        count = len(open(runs).read()) if os.path.exists(runs) else 0
        open(runs, 'a').write('x')
        emit({'token': %r if count == 0 else %r})
    ''' % (ENV_SECRET, STALE, TOKEN))
    # A command with a path separator is relative to the kubeconfig's directory, as in kubectl.
    config = exec_kubeconfig(sim, tmp_path, './get-token',
                             env={'PLUGIN_SECRET': ENV_SECRET, 'RUNS': str(runs)})
    D = {'kind': 'Deployment', 'name': 'web'}
    result = play(config, [
        task('status', 'rollout_status', **D, wait_timeout=30),
        task('image', 'rollout_image', **D, images={'app': 'nginx:1.26'}, wait=True, wait_timeout=60),
        task('history', 'rollout_history', **D),
        task('pause', 'rollout_pause', **D),
        task('resume', 'rollout_pause', **D, state='resumed'),
        task('restart', 'rollout_restart', **D, wait=True, wait_timeout=60),
        task('undo', 'rollout_undo', **D),
        {'name': 'rc', 'ignore_errors': True, 'kubeops.rollout.rolling_update_rc': {
            'name': 'legacy', 'new_name': 'legacy-v2', 'image': 'nginx:1.26', 'update_period': 0.05,
            'poll_interval': 0.05, 'timeout': 60}},
    ], extra_env=PATHS[path])
    for name in ('status', 'image', 'history', 'pause', 'resume', 'restart', 'undo', 'rc'):
        result.ok(name)
    assert result['image']['changed'] and result['rc']['changed']
    assert rcs.get('legacy-v2')['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.26'
    # One run per module process that needed a credential, plus the one refresh after the 401.
    assert len(runs.read_text()) == 8 + 1
    # Who started the plugin: a module process (its AnsiballZ payload), or ansible-playbook's worker.
    parents = (tmp_path / 'runs.parents').read_text().splitlines()
    assert len(parents) == 8 + 1
    assert [('AnsiballZ_' in parent) for parent in parents] == [path == 'module path'] * len(parents)
    for secret in (TOKEN, STALE, ENV_SECRET):
        assert secret not in result.stdout + result.stderr


@pytest.mark.parametrize('path', PATHS)
def test_failing_exec_plugin_reads_like_kubectl(kubesim_factory, play, tmp_path, path):
    sim = kubesim_factory(tls=True, token=TOKEN)
    plugin(tmp_path, 'broken', '''
        sys.stderr.write('error: SSO session expired for token %s\\n' % os.environ['PLUGIN_SECRET'])
        sys.exit(3)
    ''')
    config = exec_kubeconfig(sim, tmp_path, str(tmp_path / 'broken'), env={'PLUGIN_SECRET': ENV_SECRET})
    missing = exec_kubeconfig(sim, tmp_path, 'no-such-credential-helper', name='missing')
    result = play(config, [
        task('broken', 'rollout_history', kind='Deployment', name='web'),
        task('missing', 'rollout_history', kind='Deployment', name='web', kubeconfig=missing),
    ], extra_env=PATHS[path])
    msg = result.failed('broken')['msg']
    assert 'getting credentials: exec: executable %s failed with exit code 3' % (tmp_path / 'broken') in msg
    assert 'SSO session expired' in msg and ENV_SECRET not in msg
    msg = result.failed('missing')['msg']
    assert 'getting credentials: exec: executable no-such-credential-helper not found' in msg
    assert ENV_SECRET not in result.stdout + result.stderr


# ---- no secret at -vvvv ----------------------------------------------------------------------

def run_verbose(tasks, workdir):
    """ansible-playbook -vvvv; the whole stdout+stderr and the recorded results."""
    play = [{'hosts': 'localhost', 'gather_facts': False, 'tasks': tasks}]
    book = workdir / 'play.yml'
    book.write_text(yaml.safe_dump(play, sort_keys=False))
    out = workdir / 'results.json'
    env = {k: v for k, v in os.environ.items() if not k.startswith('K8S_AUTH_') and k != 'KUBECONFIG'}
    env.update({'ANSIBLE_CONFIG': str(ROOT / 'ansible.cfg'), 'ANSIBLE_CALLBACK_PLUGINS': str(CALLBACKS),
                'ANSIBLE_CALLBACKS_ENABLED': 'kubeops_record', 'KUBEOPS_RECORD_OUT': str(out),
                'ANSIBLE_NOCOLOR': '1', 'PATH': f'{BIN}{os.pathsep}{env.get("PATH", "")}'})
    proc = subprocess.run([str(BIN / 'ansible-playbook'), '-vvvv', '--diff', str(book)], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=400)
    return proc.stdout + proc.stderr, json.loads(out.read_text())


def test_no_secret_in_verbose_output_for_any_auth_method(kubesim_factory, hostile_server,  # noqa: F811
                                                         tmp_path):
    certs = Certificates()
    key_pem = certs.key_pem.decode()
    secured = kubesim_factory(tls=True, token=TOKEN)  # token auth
    open_tls = kubesim_factory(tls=True)  # accepts any credential: basic, client certificates
    for sim in (secured, open_tls):
        Kube(sim.kubeconfig).create(workload('Deployment', 'web'))
    echo = hostile_server('unauthorized_echo')

    token_file = tmp_path / 'token'
    token_file.write_text(TOKEN_FILE_TOKEN + '\n')
    cert_file, key_file = tmp_path / 'client.crt', tmp_path / 'client.key'
    cert_file.write_bytes(certs.cert_pem)
    key_file.write_bytes(certs.key_pem)

    def config_with(sim, user, **cluster):
        config = kubeconfig_of(sim.url, ca_pem=sim.ca_pem)
        config['users'][0]['user'] = user
        config['clusters'][0]['cluster'].update(cluster)
        return config

    plugin(tmp_path, 'good', 'emit({"token": %r})' % TOKEN)
    plugin(tmp_path, 'cert', 'emit({"clientCertificateData": %r, "clientKeyData": %r})'
           % (certs.cert_pem.decode(), key_pem))
    plugin(tmp_path, 'leaky', '''
        # What it got from the kubeconfig (its env) and a credential-shaped value it echoes back.
        sys.stderr.write('cannot refresh ' + os.environ['PLUGIN_SECRET'] + '; "token": "' + %r + '"\\n')
        sys.exit(2)
    ''' % TOKEN)

    def exec_user(command):
        return {'exec': {'apiVersion': 'client.authentication.k8s.io/v1', 'command': str(tmp_path / command),
                         'env': [{'name': 'PLUGIN_SECRET', 'value': ENV_SECRET}], 'interactiveMode': 'Never'}}

    key_data = base64.b64encode(certs.key_pem).decode()
    cert_data = base64.b64encode(certs.cert_pem).decode()
    D = {'kind': 'Deployment', 'name': 'web', 'namespace': 'default'}
    cases = {
        'token': ({'kubeconfig': secured.kubeconfig}, True),
        'api_key option': ({'host': secured.url, 'api_key': TOKEN, 'validate_certs': False}, True),
        'token file': ({'kubeconfig': config_with(secured, {'tokenFile': str(token_file)})}, False),
        'client cert files': ({'kubeconfig': config_with(open_tls, {
            'client-certificate': str(cert_file), 'client-key': str(key_file)})}, True),
        'client cert data': ({'kubeconfig': config_with(open_tls, {
            'client-certificate-data': cert_data, 'client-key-data': key_data})}, True),
        'basic auth': ({'kubeconfig': config_with(open_tls, {'username': 'admin', 'password': PASSWORD})},
                       True),
        'basic auth options': ({'kubeconfig': open_tls.kubeconfig, 'username': 'admin',
                                'password': PASSWORD}, True),
        'exec token': ({'kubeconfig': config_with(secured, exec_user('good'))}, True),
        'exec cert': ({'kubeconfig': config_with(open_tls, exec_user('cert'))}, True),
        'exec failing': ({'kubeconfig': config_with(secured, exec_user('leaky'))}, False),
        'inline token': ({'kubeconfig': config_with(secured, {'token': INLINE_TOKEN})}, False),  # 401
        'inline bad bool': ({'kubeconfig': config_with(secured, {'token': INLINE_TOKEN},
                                                       **{'insecure-skip-tls-verify': 'false'})}, False),
        'inline bad option': ({'kubeconfig': config_with(open_tls, {'client-key-data': key_data,
                                                                    'token': INLINE_TOKEN}),
                               'wait_timeout': 'soon'}, False),
        'proxy credentials': ({'kubeconfig': secured.kubeconfig,
                               'proxy': 'http://proxyuser:%s@127.0.0.1:9' % PROXY_PASSWORD}, False),
        'proxy-url credentials': ({'kubeconfig': config_with(
            secured, {'token': TOKEN}, **{'proxy-url': 'http://proxyuser:%s@127.0.0.1:9' % PROXY_PASSWORD})},
            False),
        'echoed 401': ({'kubeconfig': echo.kubeconfig(token=TOKEN), 'allow_insecure_credentials': True},
                       False),
        'echoed basic 401': ({'host': echo.url, 'username': 'admin', 'password': PASSWORD,
                              'allow_insecure_credentials': True}, False),
    }
    tasks = []
    for title, (options, _ok) in cases.items():
        t = task(title, 'rollout_restart', **dict(D, **options), diff=True)
        tasks.append(t)
    output, results = run_verbose(tasks, tmp_path)

    for title, (_options, ok) in cases.items():
        assert results[title]['_status'] == ('ok' if ok else 'failed'), (title, results[title].get('msg'))
    assert 'exit code 2' in results['exec failing']['msg']
    assert 'must be true or false' in results['inline bad bool']['msg']
    assert 'proxy' in results['proxy credentials']['msg']

    secrets = [TOKEN, TOKEN_FILE_TOKEN, INLINE_TOKEN, PASSWORD, PROXY_PASSWORD, ENV_SECRET, key_data,
               'admin:' + PASSWORD, 'proxyuser:' + PROXY_PASSWORD]
    secrets += [line for line in key_pem.splitlines() if len(line) > 20 and not line.startswith('-----')]
    forms = set(secrets) | {base64.b64encode(s.encode()).decode() for s in secrets}
    forms.add(base64.b64encode(('Bearer ' + TOKEN).encode()).decode())
    hits = {f for f in forms if f in output}
    assert not hits, 'secrets in the -vvvv output: %s' % sorted(h[:12] + '...' for h in hits)
    assert len(output) > 20000  # really the verbose output of every task


@pytest.mark.parametrize('path', PATHS)
def test_exec_plugin_settings_never_mask_results(kubesim_factory, play, tmp_path, path):
    """Env values and arguments of an exec plugin that are settings (a namespace, an image, a
    cluster name) are no secrets: result fields equal to them come back as they are."""
    sim = kubesim_factory(tls=True, token=TOKEN, ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create(workload('Deployment', 'web', image='registry.example/app:1.0.0'))
    kube.rolled_out('Deployment', 'web')
    plugin(tmp_path, 'get-token', '''
        emit({'token': %r})
    ''' % TOKEN)
    config = exec_kubeconfig(sim, tmp_path, './get-token', env={
        'TARGET_NAMESPACE': 'default', 'DEPLOY_IMAGE': 'registry.example/app:2.0.0',
        'CLUSTER': 'production-cluster-eu', 'PLUGIN_SECRET': ENV_SECRET})
    result = play(config, [task('image', 'rollout_image', kind='Deployment', name='web', namespace='default',
                                images={'app': 'registry.example/app:2.0.0'},
                                change_cause='production-cluster-eu')],
                  # ansible-core 2.21 puts a module process's invocation in the result only when asked.
                  extra_env=dict(PATHS[path], ANSIBLE_INJECT_INVOCATION='true'))
    out = result.ok('image')
    entry = out['workloads'][0]
    assert entry['namespace'] == 'default' and entry['name'] == 'web'
    assert entry['images'] == {'app': 'registry.example/app:2.0.0'}
    assert entry['previous_images'] == {'app': 'registry.example/app:1.0.0'}
    assert out['invocation']['module_args']['change_cause'] == 'production-cluster-eu'
    assert 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER' not in str(out) and '********' not in str(out)
    assert ENV_SECRET not in result.stdout + result.stderr
