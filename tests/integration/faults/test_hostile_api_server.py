"""Every bad answer a broken or hostile API server can give ends the task within its deadline, with a
clear message, a bounded number of requests and no partial change: real ansible-playbook runs
against tests/hostile's server."""

import base64
import json

import pytest
import yaml

from tests.hostile.fixtures import hostile_server  # noqa: F401  (fixture)
from tests.hostile.server import COLLECTION_PATH, OBJECT_PATH
from tests.kubesim.apiserver.kubeconfig import kubeconfig as kubeconfig_of

from ..conftest import Kube, entry, image_of, read_log, task, workload
from ..rc import Rcs, rc_manifest

pytestmark = pytest.mark.integration

WAIT = 5  # wait_timeout of the waiting tasks
SLACK = 8  # seconds a task may take past its deadline (module start-up on a crowded 2-core machine)
TOKEN = 'hostile-echo-token-5b8e1f0c'
D = {'kind': 'Deployment', 'name': 'web', 'namespace': 'default'}

# mode -> (server options, module, module options, words the failure message must hold, deadline)
CASES = {
    'bookmarks_only': ({}, 'rollout_status', {'wait_timeout': WAIT}, ['timed out after 5s'], WAIT),
    'other_objects': ({}, 'rollout_status', {'wait_timeout': WAIT}, ['timed out after 5s'], WAIT),
    'empty_watch': ({}, 'rollout_status', {'wait_timeout': WAIT}, ['timed out after 5s'], WAIT),
    'garbage_lines': ({}, 'rollout_status', {'wait_timeout': WAIT},
                      ['malformed watch event', 'not JSON', OBJECT_PATH.rsplit('/', 1)[0]], WAIT),
    'malformed_events': ({}, 'rollout_status', {'wait_timeout': WAIT}, ['malformed watch event'], WAIT),
    'trickle': ({'trickle_interval': 1.0}, 'rollout_history', {'request_timeout': 3},
                ['did not answer GET', 'within 3s'], 3),
    'silent': ({}, 'rollout_history', {'request_timeout': 3}, ['did not answer GET', 'within 3s'], 3),
    'huge': ({'huge_size': 80 * 1024 * 1024}, 'rollout_history', {},
             ['larger than 64 MiB', 'refusing to read it'], 10),
    'too_many_requests': ({'retry_after': 'soon'}, 'rollout_history', {}, ['429', 'Too many requests'], 10),
    'conflict': ({}, 'rollout_pause', {}, ['Conflict'], 10),
    'normal': ({}, 'rollout_status', {'wait_timeout': 10}, ['timed out after 10s'], 10),  # one event a watch
    'json_array': ({}, 'rollout_history', {}, ['The API', 'answered GET %s with a JSON array, not an object'
                                               % OBJECT_PATH], 10),
    'deep_json': ({}, 'rollout_history', {}, ['The API', 'answered GET %s with JSON nested too deeply'
                                              % OBJECT_PATH], 10),
    'redirect': ({}, 'rollout_history', {}, ['The API', 'redirect (302 Found) to https://login.example.invalid/',
                                             'not followed'], 10),
}


def test_every_hostile_answer_ends_in_time_with_a_clear_error(hostile_server, play):  # noqa: F811
    servers = {mode: hostile_server(mode, max_duration=30, **options)
               for mode, (options, *_rest) in CASES.items()}
    tasks = [task(mode, module, kubeconfig=servers[mode].kubeconfig(), **D, **args)
             for mode, (_o, module, args, _w, _d) in CASES.items()]
    result = play(None, tasks, timeout=240)

    for mode, (_o, _module, _a, words, deadline) in CASES.items():
        r = result.failed(mode)
        msg = r['msg']
        for word in words:
            assert word.replace('The API', 'the Kubernetes API at ' + servers[mode].url) in msg, (mode, msg)
        assert 'unexpected error' not in msg and 'Traceback' not in msg, (mode, msg)
        assert r['_duration'] < deadline + SLACK, (mode, r['_duration'], msg)
        server = servers[mode]
        # No partial change: no write of this hostile server was ever accepted.
        writes = sum(server.count(method=m) for m in ('POST', 'PUT', 'PATCH', 'DELETE'))
        if mode == 'conflict':
            assert writes == 5, server.counts()  # decided again from a fresh read, 5 times in all
        else:
            assert writes == 0, (mode, server.counts())
        assert server.count() <= 40, (mode, server.counts())

    # A watch that ends at once is re-opened with a growing pause, not in a tight loop.
    assert servers['empty_watch'].count(COLLECTION_PATH, watch=True) <= 12, servers['empty_watch'].counts()
    # A watch ended after one event each time is re-opened with a growing pause too.
    assert servers['normal'].count(COLLECTION_PATH, watch=True) <= 20, servers['normal'].counts()
    # Malformed answers are not retried.
    assert servers['garbage_lines'].count(COLLECTION_PATH, watch=True) == 1
    assert servers['huge'].count(OBJECT_PATH, method='GET') == 1
    assert servers['silent'].count(OBJECT_PATH, method='GET') == 1


def test_unauthorized_echo_shows_no_credential(hostile_server, play):  # noqa: F811
    server = hostile_server('unauthorized_echo')
    result = play(None, [task('echo', 'rollout_history', kubeconfig=server.kubeconfig(token=TOKEN),
                              allow_insecure_credentials=True, **D)])
    r = result.failed('echo')
    assert '401 Unauthorized' in r['msg']

    for secret in (TOKEN, base64.b64encode(('Bearer ' + TOKEN).encode()).decode()):
        assert secret not in result.stdout and secret not in result.stderr
        assert secret not in str(r)
    assert any('plain http' in w for w in r.get('warnings', [])), r.get('warnings')
    # The header really was sent (the server saw it), so the redaction above is what hid it.
    assert server.requests[0].headers['Authorization'] == 'Bearer ' + TOKEN


# ---- answers lost after the server applied the write ------------------------------------------

def _lost(action, kind, name):
    return f'{action}_after_write=apps/{kind.lower()}s/default/{name}:1'


def test_a_write_whose_answer_is_lost_is_made_once(kubesim_factory, play):
    """kubesim applies each verb's first write, then drops the connection or answers 500: the
    retry finds the write in place and succeeds without a second change (an undo to "the previous
    revision" does not undo twice)."""
    sim = kubesim_factory(nodes=1)
    kube = Kube(sim.kubeconfig)
    undos = {('Deployment', 'undo-d'): 'drop', ('StatefulSet', 'undo-s'): '500',
             ('DaemonSet', 'undo-ds'): 'drop'}
    others = {'restart-d': 'drop', 'image-d': '500', 'pause-d': 'drop'}
    kube.create_rolled_out([workload(kind, name, image='app:1', replicas=1) for kind, name in undos]
                           + [workload('Deployment', name, image='app:1', replicas=1) for name in others])
    for kind, name in undos:
        kube.patch(kind, name, {'spec': {'template': {'spec': {'containers': [{'name': 'app',
                                                                                 'image': 'app:2'}]}}}})
    for kind, name in undos:
        kube.rolled_out(kind, name)
    sim.set_faults(';'.join([_lost(action, kind, name) for (kind, name), action in undos.items()]
                            + [_lost(action, 'Deployment', name) for name, action in others.items()]))

    tasks = [task(f'undo {name}', 'rollout_undo', kind=kind, name=name, wait=True, wait_timeout=60)
             for kind, name in undos]
    tasks += [task('restart', 'rollout_restart', kind='Deployment', name='restart-d'),
              task('image', 'rollout_image', kind='Deployment', name='image-d', images={'app': 'app:2'}),
              task('pause', 'rollout_pause', kind='Deployment', name='pause-d')]
    res = play(sim, tasks)

    lost = [action for _method, _path, action in sim.faults.injected]
    assert sorted(lost) == sorted(f'{a}_after_write' for a in list(undos.values()) + list(others.values()))
    for kind, name in undos:
        undo = entry(res.ok(f'undo {name}'))
        assert undo['changed'] and undo['message'] == 'rolled back' and undo['to_revision'] == 1, undo
        assert undo['status']['done'] is True
        obj = kube.get(kind, name)
        assert image_of(obj) == 'app:1', (kind, 'undone twice: back on the release it undid')
        assert kube.history_numbers(kind, obj) == [2, 3], (kind, 'one undo: revision 1 became 3')

    restart = entry(res.ok('restart'))
    obj = kube.get('Deployment', 'restart-d')
    stamp = obj['spec']['template']['metadata']['annotations']['kubectl.kubernetes.io/restartedAt']
    assert restart['changed'] and restart['restarted_at'] == stamp
    assert kube.history_numbers('Deployment', obj) == [1, 2]

    image = entry(res.ok('image'))
    assert image['changed'] and image['images'] == {'app': 'app:2'}
    assert image['previous_images'] == {'app': 'app:1'}
    assert kube.history_numbers('Deployment', kube.get('Deployment', 'image-d')) == [1, 2]

    pause = res.ok('pause')
    assert pause['changed'] and entry(pause)['paused'] is True
    assert kube.get('Deployment', 'pause-d')['spec']['paused'] is True


# ---- kubeconfig auth-providers -----------------------------------------------------------------

def _jwt(claims):
    def part(data):
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip('=')
    return '%s.%s.c2lnbmF0dXJl' % (part({'alg': 'RS256', 'typ': 'JWT'}), part(claims))


def _provider_kubeconfig(path, sim, provider):
    config = kubeconfig_of(sim.url)
    config['users'][0]['user'] = {'auth-provider': provider}
    path.write_text(yaml.safe_dump(config))
    return str(path)


def test_oidc_id_token_reaches_the_server_and_removed_providers_name_their_plugin(kubesim_factory, play,
                                                                                  tmp_path):
    """The real ``kubernetes`` library reads a real kubeconfig: the oidc id-token is the bearer
    token kubesim demands; gcp and azure name the exec plugin that replaced them."""
    id_token = _jwt({'iss': 'https://issuer.invalid', 'sub': 'dev', 'exp': 4102444800})
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(token=id_token, request_log=log)
    Kube(sim.kubeconfig).create(workload('Deployment', 'web', replicas=1))
    oidc = _provider_kubeconfig(tmp_path / 'oidc', sim, {'name': 'oidc', 'config': {
        'id-token': id_token, 'client-id': 'kubernetes', 'idp-issuer-url': 'https://issuer.invalid'}})
    legacy = {name: _provider_kubeconfig(tmp_path / name, sim,
                                         {'name': name, 'config': {'access-token': id_token}})
              for name in ('gcp', 'azure')}
    tasks = [task(name, 'rollout_history', kubeconfig=path, allow_insecure_credentials=True, **D)
             for name, path in (('oidc', oidc), ('gcp', legacy['gcp']), ('azure', legacy['azure']))]
    mark = len(read_log(log))
    res = play(None, tasks)

    assert entry(res.ok('oidc'))['name'] == 'web'
    seen = read_log(log)[mark:]
    assert seen and all(e['auth'] == 'bearer' and e['status'] == 200 for e in seen), seen
    assert 'gke-gcloud-auth-plugin' in res.failed('gcp')['msg']
    assert 'kubelogin' in res.failed('azure')['msg']
    assert len(read_log(log)) == mark + len(seen), 'the refused users sent nothing'
    assert id_token not in res.stdout + res.stderr


# ---- bad input: a clear error before the first request -----------------------------------------

BIG = 2 ** 70
BAD_INPUT = {
    # title: (module, options, words the message holds)
    'image null': ('rollout_image', dict(D, images={'app': None}), ['container "app" has no image']),
    'image empty': ('rollout_image', dict(D, images={'app': ''}), ['container "app" has an empty image']),
    'image blank check': ('rollout_image', dict(D, images={'app': '  '}, check_mode=True),
                          ['container "app" has an empty image']),
    'name dots': ('rollout_history', dict(D, name='..'), ['name ".." is not a valid object name']),
    'name slash': ('rollout_history', dict(D, name='team-b/'), ['name "team-b/" is not a valid object name']),
    'name upper': ('rollout_restart', dict(D, name='Web'), ['name "Web" is not a valid object name']),
    'name long': ('rollout_history', dict(D, name='a' * 300), ['is longer than 253 characters']),
    'namespace slash': ('rollout_history', dict(D, namespace='team-b/'),
                        ['namespace: "team-b/" is not a valid namespace name']),
    'namespace dots': ('rollout_undo', dict(D, namespace='..'), ['"..\" is not a valid namespace name']),
    'wait_timeout': ('rollout_status', dict(D, wait_timeout=1e30), ['timeout must be at most 604800']),
    'to_revision big': ('rollout_undo', dict(D, to_revision=BIG), ['to_revision must be at most']),
    'to_revision negative': ('rollout_undo', dict(D, to_revision=-1), ['to_revision must be 0 or more']),
    'partition': ('rollout_image', dict(D, kind='StatefulSet', images={'app': 'app:2'}, partition=BIG),
                  ['partition must be at most 2147483647']),
    'config_maps empty': ('rollout_restart', dict(D, config_maps=['settings', '']),
                          ['config_maps: an object name must not be empty', 'ConfigMap']),
    'secrets blank': ('rollout_restart', dict(D, secrets=[' ']), ['secrets: " " is not a valid object name']),
    'rc new_name': ('rolling_update_rc', {'name': 'web', 'image': 'app:2', 'new_name': 'Web_v2'},
                    ['new_name "Web_v2" is not a valid object name']),
    'rc update_period': ('rolling_update_rc', {'name': 'web', 'image': 'app:2', 'update_period': 1e30},
                         ['update_period must be at most 604800']),
    'rc lease_duration': ('rolling_update_rc', {'name': 'web', 'image': 'app:2', 'lease_duration': BIG},
                          ['lease_duration must be at most 604800']),
}


PEM = b'-----BEGIN CERTIFICATE-----\nQ0EgUEVN\n-----END CERTIFICATE-----\n'
BAD_KUBECONFIGS = {
    # title: (kubeconfig section, changed fields, words the message holds)
    'server number': ('cluster', {'server': 6443}, ['field server of cluster "kubesim"', 'not a number']),
    'token number': ('user', {'token': 1234567890123}, ['field token of user "kubesim"', 'not a number']),
    'namespace list': ('context', {'namespace': ['a', 'b']}, ['field namespace of context', 'not a list']),
    'ca empty': ('cluster', {'certificate-authority-data': ''}, ['certificate-authority-data', 'is empty']),
    'ca invalid': ('cluster', {'certificate-authority-data': base64.b64encode(b'no cert').decode()},
                   ['holds no PEM certificate']),
    'ca and insecure': ('cluster', {'certificate-authority-data': base64.b64encode(PEM).decode(),
                                    'insecure-skip-tls-verify': True}, ['kubectl refuses too']),
}


def test_bad_input_is_refused_before_any_request(kubesim_factory, play, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=log, nodes=1)
    kube = Kube(sim.kubeconfig)
    kube.create_rolled_out([workload('Deployment', 'web', image='app:1', replicas=1)])
    rcs = Rcs(kube)
    rcs.create(rc_manifest('web', 'app:1', 1))
    before = rcs.wait_ready('web')
    cases = dict(BAD_INPUT)
    for title, (section, changes, words) in BAD_KUBECONFIGS.items():
        config = kubeconfig_of(sim.url, token='t' * 20)
        config[section + 's'][0][section].update(changes)
        path = tmp_path / title.replace(' ', '-')
        path.write_text(yaml.safe_dump(config))
        args = dict(D, kubeconfig=str(path), allow_insecure_credentials=True)
        cases[title] = ('rollout_history', args, words)
    mark = len(read_log(log))
    res = play(sim, [task(title, module, **args) for title, (module, args, _w) in cases.items()])

    for title, (_m, _a, words) in cases.items():
        msg = res.failed(title)['msg']
        for word in words:
            assert word in msg, (title, msg)
        assert 'Traceback' not in msg and 'unexpected error' not in msg, (title, msg)
    assert read_log(log)[mark:] == [], 'a refused task sent a request'
    assert image_of(kube.get('Deployment', 'web')) == 'app:1'
    assert rcs.get('web')['metadata']['resourceVersion'] == before['metadata']['resourceVersion']


def test_a_certificate_for_another_host_name_is_one_clear_error(kubesim_factory, play, tmp_path):
    sim = kubesim_factory(tls=True)  # its certificate is for 127.0.0.1 and localhost
    config = kubeconfig_of(sim.url, ca_pem=sim.ca_pem)
    config['clusters'][0]['cluster']['tls-server-name'] = 'api.other.example'
    path = tmp_path / 'other-name'
    path.write_text(yaml.safe_dump(config))
    res = play(None, [task('other name', 'rollout_history', kubeconfig=str(path), **D)])
    msg = res.failed('other name')['msg']
    assert msg.count('TLS handshake with the Kubernetes API at %s failed' % sim.url) == 1, msg
    assert 'Hostname mismatch' in msg and 'another host name' in msg and 'tls-server-name' in msg, msg
