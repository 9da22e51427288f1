"""The analysis checks' requests honour the task's ``environment:`` on the controller path as on the
module path: real ``ansible-playbook`` runs of ``rollout_analysis`` against a local endpoint and a
forward proxy that records what reaches it.

Before, the action plugin ran the module's code in the controller process with the controller's
own environment: a task that excluded its endpoint from the controller's proxy (``no_proxy``) still
sent the check, ``Authorization`` header included, through that proxy; and a proxy set only for
the task was not used. A token that ends in a newline is refused before any request, and shown
nowhere (http.client's refusal used to print it at default verbosity)."""

import pytest

from tests.hostile.endpoints import Endpoint, RecordingProxy

from ..conftest import run_playbook, task

pytestmark = pytest.mark.integration

TOKEN = 'analysis-tok-3f9a61'
PATHS = {'controller path': {}, 'module path': {'KUBEOPS_ROLLOUT_MODULE_PATH': '1'}}
PROXY_VARIABLES = ('http_proxy', 'https_proxy', 'all_proxy', 'no_proxy',
                   'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY')


@pytest.fixture
def servers():
    endpoint, proxy = Endpoint(), RecordingProxy()
    endpoint.answer('/healthz', 200, 'ok')
    try:
        yield endpoint, proxy
    finally:
        endpoint.stop()
        proxy.stop()


def check_task(title, endpoint, environment, token=TOKEN):
    analysis = {'checks': [{'name': 'smoke', 'http': {
        'url': endpoint.url + '/healthz', 'bearer_token': token, 'body_regex': '^ok$'}}]}
    return dict(task(title, 'rollout_analysis', analysis=analysis), environment=environment)


@pytest.mark.parametrize('path', PATHS)
def test_the_tasks_environment_decides_the_proxy_of_the_checks(servers, tmp_path, path):
    endpoint, proxy = servers
    controller_env = dict.fromkeys(PROXY_VARIABLES, '')
    controller_env.update(PATHS[path])
    tasks = [
        # The controller's proxy, excluded by the task: the request must go straight to the endpoint.
        check_task('excluded', endpoint, {'no_proxy': '127.0.0.1'}),
        # A proxy only the task names: the request must go through it.
        check_task('task proxy', endpoint, {'http_proxy': proxy.url, 'no_proxy': ''}),
        # A token read from a file, with its newline: refused before anything is sent, not shown.
        check_task('newline', endpoint, {}, token=TOKEN + '\n'),
    ]
    for name in ('excluded', 'task-proxy'):
        (tmp_path / name).mkdir()
    res = run_playbook(None, tasks[:1] + tasks[2:], workdir=tmp_path / 'excluded',
                       extra_env=dict(controller_env, http_proxy=proxy.url))
    assert res.ok('excluded')['analysis']['passed'] is True
    assert proxy.requests == [], 'the check went to the proxy the task excluded'
    assert [(m, p, h['Authorization']) for m, p, h in endpoint.requests] == [
        ('GET', '/healthz', 'Bearer ' + TOKEN)]
    refused = res.failed('newline')['msg']
    assert refused.startswith('invalid analysis option: analysis check "smoke": bearer_token contains a line '
                              'break (CR or LF)'), refused
    assert TOKEN not in res.stdout + res.stderr

    res = run_playbook(None, tasks[1:2], workdir=tmp_path / 'task-proxy', extra_env=controller_env)
    assert res.ok('task proxy')['analysis']['passed'] is True
    assert [(m, t) for m, t, _h in proxy.requests] == [('GET', endpoint.url + '/healthz')]
    assert len(endpoint.requests) == 2
    assert TOKEN not in res.stdout
