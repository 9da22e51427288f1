"""ControllerWatch (rc/watch.py): the ReplicationControllers of one namespace, kept current by one
watch against kubesim (re-opened when the server ends it, listed again after 410 Gone), and the
write answers it is offered."""

import threading
import time

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.watch import ControllerWatch

from tests.support.kube import api_client, read_log
from tests.support.manifests import workload
from tests.support.rc import RCS, rc

pytestmark = pytest.mark.unit


def later(seconds, call):
    timer = threading.Timer(seconds, call)
    timer.start()
    return timer


def new_rc(name, replicas=0):
    return workload('ReplicationController', name, 'nginx:1', replicas, namespace='default')


def test_start_lists_the_namespaces_controllers(kubesim):
    client = api_client(kubesim)
    client.create(RCS, new_rc('web'))
    watch = ControllerWatch(client, RCS).start()
    assert list(watch.objs) == ['web'] and watch.get('web')['metadata']['name'] == 'web'
    assert watch.rv and watch.events is None and watch.get('api') is None


def test_wait_follows_the_watch_until_done(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log')
    client = api_client(sim)
    client.create(RCS, new_rc('web'))
    watch = ControllerWatch(client, RCS).start()
    timer = later(0.2, lambda: client.create(RCS, new_rc('api')))
    assert watch.wait(lambda: watch.get('api') is not None, time.time() + 10)
    timer.join()
    timer = later(0.2, lambda: client.delete(RCS + '/web'))
    assert watch.wait(lambda: watch.get('web') is None, time.time() + 10)
    timer.join()
    watches = [e for e in read_log(tmp_path / 'requests.log') if 'watch=' in e['query']]
    assert len(watches) == 1 and 'resourceVersion=' in watches[0]['query']  # one watch from the LIST on


def test_wait_gives_up_at_the_deadline(kubesim):
    watch = ControllerWatch(api_client(kubesim), RCS).start()
    started = time.monotonic()
    assert watch.wait(lambda: False, time.time() + 0.5) is False
    assert 0.4 < time.monotonic() - started < 3
    assert watch.wait(lambda: True, time.time() - 1) is True  # done already: no request


def test_a_watch_the_server_ends_is_opened_again(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log', max_watch_seconds=1)
    client = api_client(sim)
    watch = ControllerWatch(client, RCS).start()
    timer = later(1.5, lambda: client.create(RCS, new_rc('api')))
    assert watch.wait(lambda: watch.get('api') is not None, time.time() + 10)
    timer.join()
    assert len([e for e in read_log(tmp_path / 'requests.log') if 'watch=' in e['query']]) >= 2


class Gone:
    """An API whose first watch answers 410 Gone (its resourceVersion compacted away)."""

    def __init__(self, listed):
        self.listed = list(listed)
        self.calls = []

    def list(self, path):
        self.calls.append('LIST')
        return self.listed.pop(0)

    def watch(self, path, resource_version=None, timeout_seconds=None):
        self.calls.append('WATCH %s' % resource_version)
        if len(self.calls) == 2:
            raise ApiError(410, 'Expired', 'too old resource version')
        yield 'ADDED', dict(rc('api'), metadata=dict(rc('api')['metadata'], resourceVersion='30'))


def test_after_410_gone_the_controllers_are_listed_again():
    api = Gone([{'metadata': {'resourceVersion': '5'}, 'items': [rc('web')]},
                {'metadata': {'resourceVersion': '20'}, 'items': []}])
    watch = ControllerWatch(api, RCS).start()
    assert watch.wait(lambda: watch.get('api') is not None, time.time() + 5)
    assert api.calls == ['LIST', 'WATCH 5', 'LIST', 'WATCH 20']
    assert watch.get('web') is None and watch.rv == '30'  # web was gone from the second LIST


def test_another_error_ends_the_wait():
    class Broken(Gone):
        def watch(self, path, **kw):
            raise ApiError(403, 'Forbidden', 'no watch')
            yield  # pragma: no cover

    watch = ControllerWatch(Broken([{'items': []}]), RCS).start()
    with pytest.raises(ApiError, match='no watch'):
        watch.wait(lambda: False, time.time() + 5)


def test_a_write_answer_is_kept_unless_the_watch_showed_something_newer():
    watch = ControllerWatch(None, RCS)
    watch.offer(dict(rc('web'), metadata=dict(rc('web')['metadata'], resourceVersion='12')))
    watch.offer(dict(rc('web', replicas=1), metadata=dict(rc('web')['metadata'], resourceVersion='11')))
    assert watch.get('web')['spec']['replicas'] == 3  # the older answer is ignored
    watch.offer(dict(rc('web', replicas=5), metadata=dict(rc('web')['metadata'], resourceVersion='12')))
    assert watch.get('web')['spec']['replicas'] == 5  # the same version: taken
    unversioned = rc('web', replicas=0)
    del unversioned['metadata']['resourceVersion']
    watch.offer(unversioned)
    assert watch.get('web')['spec']['replicas'] == 0  # cannot tell: the answer wins
