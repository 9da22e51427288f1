"""Authentication as the API server sees it: kubesim checks each credential the way a real API
server does (tokens that expire, client certificates signed by its CA, Basic credentials, the
impersonation headers) and records who each request acted as; real ansible-playbook runs at -vvvv
must pass those checks and show none of the secrets.

- exec credentials that expire during a long wait are refreshed before they are used again;
- impersonation from the kubeconfig (as, as-groups, as-uid, as-user-extra) and the module options
  sends exactly those Impersonate-* headers, and the API acts as the impersonated user;
- client certificates (inline data and files) authenticate as their subject; none or a foreign one
  is refused;
- Basic auth is sent as configured (kubeconfig or options) and a wrong password is refused;
- the in-cluster service account (token, ca.crt, namespace) is used when the module runs inside a
  pod, played by a private mount namespace holding the service-account directory at its real path.
"""

import base64
import json
import os
import shutil
import subprocess

import pytest
import yaml

from tests.kubesim.apiserver.kubeconfig import kubeconfig as kubeconfig_of
from tests.kubesim.apiserver.authentication import READONLY_USER, token_fingerprint
from tests.kubesim.apiserver.tls import Certificates

from ..conftest import BIN, CALLBACKS, ROOT, Kube, read_log, task, workload
from .test_exec_credentials_and_secrets import plugin

pytestmark = pytest.mark.integration

ADMIN = 'e2e-admin-token-6f2a9c1d07'
PASSWORD = 'e2e-basic-password-3b8e41f0a5'
SA_TOKEN = 'e2e-service-account-token-d90c2e7b14'
LIFETIME = 3  # seconds an exec-issued token is announced to be valid
GRACE = 0.5  # the issuer honours a token this much past the expiry it announced (clock slack)
D = {'kind': 'Deployment', 'name': 'web'}
SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount'


def run_verbose(tasks, workdir, *, kubeconfig=None, env=None, wrapper=()):
    """ansible-playbook -vvvv (optionally under ``wrapper``): the whole stdout+stderr and the
    recorded results by task name."""
    play = {'hosts': 'localhost', 'gather_facts': False, 'tasks': tasks}
    if kubeconfig:
        play['module_defaults'] = {'group/kubeops.rollout.rollout': {'kubeconfig': str(kubeconfig)}}
    book = workdir / 'play.yml'
    book.write_text(yaml.safe_dump([play], sort_keys=False))
    out = workdir / 'results.json'
    full_env = {k: v for k, v in os.environ.items()
                if not k.startswith(('K8S_AUTH_', 'KUBERNETES_SERVICE_')) and k != 'KUBECONFIG'}
    full_env.update({'ANSIBLE_CONFIG': str(ROOT / 'ansible.cfg'), 'ANSIBLE_CALLBACK_PLUGINS': str(CALLBACKS),
                     'ANSIBLE_CALLBACKS_ENABLED': 'kubeops_record', 'KUBEOPS_RECORD_OUT': str(out),
                     'ANSIBLE_NOCOLOR': '1', 'PATH': f'{BIN}{os.pathsep}{full_env.get("PATH", "")}'})
    # Each result's invocation too (off by default from ansible-core 2.21): the most a run can show.
    full_env['ANSIBLE_INJECT_INVOCATION'] = 'true'
    full_env.update(env or {})
    cmd = [*wrapper, str(BIN / 'ansible-playbook'), '-vvvv', str(book)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=full_env, cwd=ROOT, timeout=400)
    output = proc.stdout + proc.stderr
    assert out.exists(), f'no results (rc={proc.returncode}):\n{output[-4000:]}'
    return output, json.loads(out.read_text())


def assert_no_secret(output, *secrets):
    """None of ``secrets`` (nor their base64 forms, nor any long line of a PEM key) in ``output``."""
    forms = set()
    for secret in secrets:
        parts = [secret]
        if '-----BEGIN' in secret:
            parts = [line for line in secret.splitlines() if len(line) > 20 and not line.startswith('-----')]
            parts.append(base64.b64encode(secret.encode()).decode())
        for part in parts:
            forms |= {part, base64.b64encode(part.encode()).decode()}
    hits = sorted(f[:10] + '...' for f in forms if f in output)
    assert not hits, f'secrets in the -vvvv output: {hits}'
    assert '"module_args"' in output  # really the verbose output, with each invocation


def user_config(sim, user, path, **cluster):
    config = kubeconfig_of(sim.url, ca_pem=sim.ca_pem)
    config['users'][0]['user'] = user
    config['clusters'][0]['cluster'].update(cluster)
    path.write_text(yaml.safe_dump(config))
    return str(path)


def restarted_at(kube, ns='default'):
    annotations = kube.get('Deployment', 'web', ns)['spec']['template']['metadata'].get('annotations') or {}
    return annotations.get('kubectl.kubernetes.io/restartedAt')


# ---- exec credentials expire during a long wait -----------------------------------------------

# ansible-core 2.21 puts a module process's invocation in the result only when asked.
MODULE_PATH_ENV = {'KUBEOPS_ROLLOUT_MODULE_PATH': '1', 'ANSIBLE_INJECT_INVOCATION': 'true'}


@pytest.mark.parametrize('module_path', [False, True], ids=['controller path', 'module path'])
def test_expiring_exec_credential_is_refreshed_during_a_long_wait(kubesim_factory, tmp_path, module_path):
    accepted, issued, log = tmp_path / 'accepted-tokens', tmp_path / 'issued', tmp_path / 'requests.jsonl'
    # Every watch ends after 1.5 s (as a proxy in front of an API server may end them), so the wait
    # goes on through new requests, each of which must carry a token that is still valid.
    sim = kubesim_factory(tls=True, token=ADMIN, token_file=accepted, request_log=log, ready_delay=1.5,
                          max_watch_seconds=1.5)
    kube = Kube(sim.kubeconfig)
    # One new pod at a time, each ready 1.5 s after it starts: the rollout lasts at least 6 x 1.5 = 9 s,
    # more than two tokens (each valid at most LIFETIME s) can cover.
    deployment = workload('Deployment', 'web', replicas=6)
    deployment['spec']['strategy'] = {'type': 'RollingUpdate',
                                      'rollingUpdate': {'maxSurge': 1, 'maxUnavailable': 0}}
    kube.create(deployment)
    kube.rolled_out('Deployment', 'web')

    # The issuer: a new token on every run, announced valid for LIFETIME seconds; the API server
    # (kubesim's token file) accepts it until then (+ GRACE) and never after.
    plugin(tmp_path, 'issue', '''
        import datetime, secrets, time
        token = 'exec-expiring-' + secrets.token_hex(12)
        expires = int(time.time()) + %d
        open(%r, 'a').write('%%s %%.3f\\n' %% (token, expires + %r))
        open(%r, 'a').write('%%s %%d\\n' %% (token, expires))
        stamp = datetime.datetime.fromtimestamp(expires, datetime.timezone.utc)
        emit({'token': token, 'expirationTimestamp': stamp.strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ')})
    ''' % (LIFETIME, str(accepted), GRACE, str(issued)))
    config = user_config(sim, {'exec': {'apiVersion': 'client.authentication.k8s.io/v1',
                                        'command': str(tmp_path / 'issue'), 'interactiveMode': 'Never'}},
                         tmp_path / 'exec-config')
    start = len(read_log(log))
    output, results = run_verbose([task('image', 'rollout_image', **D, images={'app': 'nginx:1.26'},
                                        wait=True, wait_timeout=90)], tmp_path, kubeconfig=config,
                                  env=MODULE_PATH_ENV if module_path else None)

    assert results['image']['_status'] == 'ok', results['image'].get('msg')
    assert results['image']['changed']
    tokens = {}
    for line in issued.read_text().splitlines():
        token, expires = line.split()
        tokens[token_fingerprint(token)] = int(expires)
    requests = read_log(log)[start:]
    assert requests and not [r for r in requests if r['status'] == 401], 'a request used an expired token'
    used = [r['token'] for r in requests]
    assert set(used) == set(tokens), 'every issued token was used, and only those'
    order = sorted(tokens, key=tokens.get)
    assert len(order) >= 3, 'the wait outlasted the first tokens'
    first_expiry = tokens[order[0]]
    # After the first token's expiry, the requests carry later tokens; each token is used only
    # while the issuer still honours it.
    later = [r for r in requests if r['time'] >= first_expiry + GRACE]
    assert later and all(r['token'] != order[0] for r in later)
    for r in requests:
        assert r['time'] < tokens[r['token']] + GRACE
        assert r['user'] == 'kubesim-admin' and r['auth'] == 'bearer'
    # The tokens were taken in turn: once a newer token is used, no older one comes back.
    ranks = [order.index(t) for t in used]
    assert ranks == sorted(ranks)
    assert_no_secret(output, *tokens_of(issued))


def tokens_of(issued):
    return [line.split()[0] for line in issued.read_text().splitlines()]


# ---- impersonation ----------------------------------------------------------------------------

def test_impersonation_sends_exactly_the_configured_headers(kubesim_factory, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(tls=True, token=ADMIN, request_log=log, ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create(workload('Deployment', 'web'))
    kube.rolled_out('Deployment', 'web')
    jane = user_config(sim, {'token': ADMIN, 'as': 'jane', 'as-groups': ['devs', 'system:authenticated'],
                             'as-uid': '1f0c-42', 'as-user-extra': {'scopes': ['view', 'edit'],
                                                                     'acme.com/ticket': ['OPS 42']}},
                       tmp_path / 'jane')
    start = len(read_log(log))
    output, results = run_verbose([
        task('kubeconfig', 'rollout_history', **D, kubeconfig=jane),
        task('options', 'rollout_history', **D, impersonate_user='bob', impersonate_groups=['ops', 'qa']),
        task('viewer reads', 'rollout_history', **D, impersonate_user=READONLY_USER),
        task('viewer writes', 'rollout_restart', **D, impersonate_user=READONLY_USER),
    ], tmp_path, kubeconfig=sim.kubeconfig)
    requests = read_log(log)[start:]

    for name in ('kubeconfig', 'options', 'viewer reads'):
        assert results[name]['_status'] == 'ok', (name, results[name].get('msg'))
    # The API acted as the impersonated read-only user: the write was refused and nothing changed.
    assert results['viewer writes']['_status'] == 'failed'
    assert '403' in results['viewer writes']['msg'] or 'forbidden' in results['viewer writes']['msg'].lower()
    assert READONLY_USER in results['viewer writes']['msg']
    assert restarted_at(kube) is None

    seen = {}
    for r in requests:
        assert 'impersonate' in r, f'a request without impersonation: {r}'
        key = json.dumps(r['impersonate'], sort_keys=True)
        seen[key] = seen.get(key, 0) + 1
        assert r['user'] == r['impersonate']['user']
    expected = [
        {'user': 'jane', 'groups': ['devs', 'system:authenticated'], 'uid': '1f0c-42',
         'extra': {'acme.com/ticket': ['OPS 42'], 'scopes': ['view', 'edit']}},
        {'user': 'bob', 'groups': ['ops', 'qa']},
        {'user': READONLY_USER},
    ]
    assert sorted(seen) == sorted(json.dumps(e, sort_keys=True) for e in expected)
    assert_no_secret(output, ADMIN)


# ---- client certificates ------------------------------------------------------------------------

def test_client_certificates_authenticate_as_their_subject(kubesim_factory, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(tls=True, token=ADMIN, client_certs=True, request_log=log, ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.create(workload('Deployment', 'web'))
    kube.rolled_out('Deployment', 'web')

    alice_cert, alice_key = sim.certificates.client('alice', groups=['devs'])
    carol_cert, carol_key = sim.certificates.client('carol')
    foreign_cert, foreign_key = Certificates().client('mallory')  # signed by another CA
    (tmp_path / 'carol.crt').write_bytes(carol_cert)
    (tmp_path / 'carol.key').write_bytes(carol_key)

    def b64(pem):
        return base64.b64encode(pem).decode()

    data = user_config(sim, {'client-certificate-data': b64(alice_cert), 'client-key-data': b64(alice_key)},
                       tmp_path / 'alice')
    files = user_config(sim, {'client-certificate': str(tmp_path / 'carol.crt'),
                              'client-key': str(tmp_path / 'carol.key')}, tmp_path / 'carol')
    nothing = user_config(sim, {}, tmp_path / 'nobody')
    foreign = user_config(sim, {'client-certificate-data': b64(foreign_cert),
                                'client-key-data': b64(foreign_key)}, tmp_path / 'mallory')
    start = len(read_log(log))
    output, results = run_verbose([
        task('data', 'rollout_history', **D, kubeconfig=data),
        task('files', 'rollout_restart', **D, kubeconfig=files),
        task('no credential', 'rollout_history', **D, kubeconfig=nothing),
        task('foreign CA', 'rollout_history', **D, kubeconfig=foreign),
    ], tmp_path)
    requests = read_log(log)[start:]

    assert results['data']['_status'] == 'ok', results['data'].get('msg')
    assert results['files']['_status'] == 'ok' and results['files']['changed'], results['files'].get('msg')
    assert restarted_at(kube) is not None
    assert results['no credential']['_status'] == 'failed'
    assert '401' in results['no credential']['msg'] or 'Unauthorized' in results['no credential']['msg']
    assert results['foreign CA']['_status'] == 'failed'

    by_user = {}
    for r in requests:
        by_user.setdefault(r.get('user'), set()).add((r.get('auth'), r['status']))
    assert {a for a, _ in by_user['alice']} == {'x509'} and {a for a, _ in by_user['carol']} == {'x509'}
    assert any(r['method'] == 'PATCH' and r.get('user') == 'carol' and r['status'] == 200 for r in requests)
    # The request without a credential reached the server and was refused there; the foreign
    # certificate never got past the TLS handshake (no request logged for mallory).
    assert any(r['status'] == 401 and 'user' not in r for r in requests)
    assert 'mallory' not in by_user
    assert_no_secret(output, alice_key.decode(), carol_key.decode(), foreign_key.decode())


# ---- basic auth -------------------------------------------------------------------------------------

def test_basic_auth_is_sent_and_never_shown(kubesim_factory, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(tls=True, token=ADMIN, basic_auth='admin:' + PASSWORD, request_log=log)
    Kube(sim.kubeconfig).create(workload('Deployment', 'web'))
    in_config = user_config(sim, {'username': 'admin', 'password': PASSWORD}, tmp_path / 'basic')
    wrong = user_config(sim, {'username': 'admin', 'password': PASSWORD[::-1]}, tmp_path / 'wrong')
    no_user = user_config(sim, {}, tmp_path / 'nobody')
    start = len(read_log(log))
    output, results = run_verbose([
        task('kubeconfig', 'rollout_history', **D, kubeconfig=in_config),
        task('options', 'rollout_history', **D, kubeconfig=no_user, username='admin', password=PASSWORD),
        task('wrong password', 'rollout_history', **D, kubeconfig=wrong),
    ], tmp_path)

    for name in ('kubeconfig', 'options'):
        assert results[name]['_status'] == 'ok', (name, results[name].get('msg'))
    assert results['wrong password']['_status'] == 'failed'
    assert '401' in results['wrong password']['msg'] or 'Unauthorized' in results['wrong password']['msg']
    requests = read_log(log)[start:]
    assert {r['auth'] for r in requests} == {'basic'}
    assert {r.get('user') for r in requests if r['status'] != 401} == {'admin'}
    assert any(r['status'] == 401 for r in requests)
    assert_no_secret(output, PASSWORD, PASSWORD[::-1], 'admin:' + PASSWORD)


# ---- in-cluster service account ----------------------------------------------------------------------

def _namespaces_work():
    if shutil.which('unshare') is None:
        return False
    probe = subprocess.run(['unshare', '--user', '--map-root-user', '--mount', 'sh', '-c',
                            'mount -t tmpfs tmpfs "$1"', 'sh', os.path.realpath('/var/run')],
                           capture_output=True, timeout=30)
    return probe.returncode == 0


def test_in_cluster_service_account(kubesim_factory, tmp_path):
    """The module reads the service account from its real path; the test gives it one in a private
    mount namespace (tmpfs over /var/run there, the test's directory bound at the real path), so
    nothing on the machine changes and no test-only switch exists in the collection."""
    if not _namespaces_work():
        pytest.skip('needs unprivileged user and mount namespaces (unshare --user --mount)')
    log = tmp_path / 'requests.jsonl'
    accepted = tmp_path / 'accepted-tokens'
    accepted.write_text(SA_TOKEN + '\n')
    sim = kubesim_factory(tls=True, token=ADMIN, token_file=accepted, request_log=log, ready_delay=0.05)
    kube = Kube(sim.kubeconfig)
    kube.request('POST', '/api/v1/namespaces', {'apiVersion': 'v1', 'kind': 'Namespace',
                                                 'metadata': {'name': 'team-a'}})
    kube.create(workload('Deployment', 'web', ns='team-a'))
    kube.create(workload('Deployment', 'web'))  # same name in default: must stay untouched
    kube.rolled_out('Deployment', 'web', ns='team-a')

    sa = tmp_path / 'serviceaccount'
    sa.mkdir()
    (sa / 'token').write_text(SA_TOKEN)
    (sa / 'ca.crt').write_bytes(sim.ca_pem)  # the only CA the module can verify the server with
    (sa / 'namespace').write_text('team-a')
    run_dir = os.path.realpath('/var/run')
    target = run_dir + SERVICE_ACCOUNT_DIR[len('/var/run'):]
    wrapper = ['unshare', '--user', '--map-root-user', '--mount', 'sh', '-c',
               'mount -t tmpfs tmpfs "$1" && mkdir -p "$2" && mount --bind "$3" "$2" && shift 3 && exec "$@"',
               'sh', run_dir, target, str(sa)]
    host, port = sim.url.removeprefix('https://').rsplit(':', 1)
    start = len(read_log(log))
    output, results = run_verbose([task('restart', 'rollout_restart', **D)], tmp_path, wrapper=wrapper,
                                  env={'KUBERNETES_SERVICE_HOST': host, 'KUBERNETES_SERVICE_PORT': port,
                                       'HOME': str(tmp_path)})
    requests = read_log(log)[start:]

    assert results['restart']['_status'] == 'ok', results['restart'].get('msg')
    assert results['restart']['changed']
    assert restarted_at(kube, 'team-a') is not None and restarted_at(kube) is None
    assert requests and {r['token'] for r in requests} == {token_fingerprint(SA_TOKEN)}
    assert all('/namespaces/team-a/' in r['path'] for r in requests if '/namespaces/' in r['path'])
    assert not os.path.exists(SERVICE_ACCOUNT_DIR)  # the machine itself never had one
    assert_no_secret(output, SA_TOKEN)

