"""Where the rollout modules look for each target: the entry's namespace, else workload_namespace
(what the roles pass), else namespace (what a play's module_defaults give), through the controller
runtime's real argument validation and a client that records the paths it is asked for."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.rollout_module import (
    TARGET_ARG_SPEC,
    RolloutModule,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.plugin_utils.controller import TaskContext

pytestmark = pytest.mark.unit


class NothingThere:
    """Answers every GET with a 404, recording the path."""

    def __init__(self):
        self.paths = []

    def get(self, path, **_):
        self.paths.append(path)
        raise ApiError(404, 'NotFound', 'not found')


def looked_up(args):
    context = TaskContext('rollout_status', args, False, False, {}, 'localhost')
    module = RolloutModule(wait=True, runtime=context.runtime, entry_options={})
    client = NothingThere()
    module._client = client
    module.targets(each_alone=True)
    return [path.split('/')[5] for path in client.paths]  # /apis/apps/v1/namespaces/<ns>/...


def test_workload_namespace_is_a_target_option():
    assert TARGET_ARG_SPEC['workload_namespace'] == {'type': 'str'}


def test_entry_then_workload_namespace_then_namespace():
    entries = [{'kind': ['Deployment'], 'name': 'a', 'namespace': 'own'},
               {'kind': ['Deployment'], 'name': 'b'},
               {'kind': ['Deployment'], 'name': 'c', 'namespace': ''}]
    assert looked_up({'workloads': entries, 'workload_namespace': 'role', 'namespace': 'play'}) == [
        'own', 'role', 'role']
    # Unset or empty (a role's variable left unset): the namespace option, a play's module_defaults.
    assert looked_up({'workloads': entries, 'namespace': 'play'}) == ['own', 'play', 'play']
    assert looked_up({'workloads': entries, 'workload_namespace': '', 'namespace': 'play'}) == [
        'own', 'play', 'play']
