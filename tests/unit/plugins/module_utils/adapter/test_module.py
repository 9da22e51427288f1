"""The workloads option of the rollout modules (entries checked before any request, each named), and the
pure parts of rollout_restart's since and summary, run through the controller runtime's real argument
validation. No entry reaches the network: the tasks below fail before a connection is configured (an
empty environment, no kubeconfig)."""

import datetime

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import verbs
from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import KubeModule
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment
from ansible_collections.kubeops.rollout.plugins.modules import rollout_restart, rollout_status, rollout_undo
from ansible_collections.kubeops.rollout.plugins.plugin_utils.controller import ModuleExit, TaskContext

from tests.support.manifests import deployment, replica_set
from tests.unit.plugins.module_utils.usecases.test_verbs import ScriptedClient

pytestmark = pytest.mark.unit


def run(module, args, check_mode=False):
    context = TaskContext(module.__name__.rsplit('.', 1)[1], args, check_mode, False, {}, 'localhost')
    with pytest.raises(ModuleExit) as exited:
        module.main(context.runtime)
    return exited.value.result


def test_every_bad_entry_is_named_in_one_failure_before_any_request():
    result = run(rollout_undo, {'workloads': [
        {'kind': 'Deployment', 'name': 'web'},                     # fine
        {'kind': 'Deployment'},                                    # neither name nor selectors
        {'kind': 'Pod', 'name': 'p'},                              # not a rollout kind
        {'kind': 'deploy', 'name': 'a', 'label_selectors': ['x=y']},  # both
        {'kind': 'deploy', 'name': 'Bad_Name'},                    # not a valid name
        {'kind': 'sts', 'name': 'db', 'to_revision': -1},          # negative revision
        {'label_selectors': [' ']},                                # would select everything
        {'kind': 'deploy,sts', 'name': 'x'},                       # a name names one kind
        {'name': 'y'},                                             # no kind
        {'kind': 'ds', 'name': 'agent', 'namespace': 'Not_A_Namespace'},
    ]})
    assert result['failed'] is True and result['changed'] is False and result['workloads'] == []
    msg = result['msg']
    assert msg.startswith('workloads: ') and msg.endswith('Nothing was done.'), msg
    for i in range(1, 10):
        assert 'workloads[%d]' % i in msg, (i, msg)
    assert 'workloads[0]' not in msg
    assert 'workloads[2] (p): kind "Pod" is not a kind rollouts apply to' in msg
    assert 'workloads[3] (a): give name or label_selectors, not both' in msg
    assert 'workloads[5] (db): to_revision must be 0 or more (got -1)' in msg
    assert 'workloads[8] (y): kind is required with name' in msg


def test_workloads_is_exclusive_with_name_and_takes_no_unknown_key():
    both = run(rollout_status, {'name': 'web', 'kind': ['Deployment'],
                                'workloads': [{'kind': 'Deployment', 'name': 'web'}]})
    assert 'mutually exclusive' in both['msg'] and 'workloads' in both['msg'], both['msg']
    unknown = run(rollout_status, {'workloads': [{'kind': 'Deployment', 'name': 'web', 'images': {}}]})
    assert 'images' in unknown['msg'] and 'workloads' in unknown['msg'], unknown['msg']
    empty = run(rollout_status, {'workloads': []})
    assert 'workloads is empty' in empty['msg']
    # A per-entry field only the undo takes.
    revision = run(rollout_restart, {'workloads': [{'kind': 'Deployment', 'name': 'web', 'to_revision': 2}]})
    assert 'to_revision' in revision['msg'], revision['msg']


def namespace_of(args):
    context = TaskContext('rollout_status', args, False, False, {}, 'localhost')
    spec = {'namespace': {'type': 'str'}, 'workload_namespace': {'type': 'str'}}
    return KubeModule(spec, context.runtime).namespace


def test_workload_namespace_comes_before_namespace():
    # What a role passes as workload_namespace wins over the play's module_defaults namespace.
    assert namespace_of({'workload_namespace': 'team', 'namespace': 'shop'}) == 'team'
    # Empty counts as unset: the namespace option (the play's module_defaults) then applies.
    assert namespace_of({'workload_namespace': '', 'namespace': 'shop'}) == 'shop'
    with pytest.raises(ModuleExit) as exited:
        namespace_of({'workload_namespace': 'Not_A_Namespace', 'namespace': 'shop'})
    assert exited.value.result['msg'].startswith('workload_namespace: '), exited.value.result


def test_every_rollout_module_takes_workload_namespace():
    for module in (rollout_restart, rollout_status, rollout_undo):
        result = run(module, {'workloads': [{'kind': 'Deployment', 'name': 'web'}],
                              'workload_namespace': 'Bad_Namespace', 'namespace': 'shop'})
        assert result['failed'] is True and 'workload_namespace: ' in result['msg'], (module, result['msg'])


@pytest.mark.parametrize('since', ['yesterday', '2026-01-02 03:04:05Z', '2026-13-01T00:00:00Z',
                                   '2026-01-02T03:04:05', '1767323045'])
def test_since_must_be_rfc3339(since):
    result = run(rollout_restart, {'kind': ['Deployment'], 'name': 'web', 'since': since})
    assert result['failed'] is True
    assert result['msg'] == 'since must be an RFC 3339 time such as 2026-01-02T03:04:05Z, not "%s"' % since


def test_since_is_refused_with_configuration():
    result = run(rollout_restart, {'kind': ['Deployment'], 'name': 'web', 'since': '2026-01-02T03:04:05Z',
                                   'config_from_template': True})
    assert 'since cannot be combined with config_maps' in result['msg']


def test_last_replaced_is_the_later_of_the_restart_and_the_current_revision():
    # The current revision (4, the template's image) was created 2026-01-04; the template's restart later.
    restarted = deployment(image='nginx:4', annotations={'deployment.kubernetes.io/revision': '4'})
    restarted['spec']['template']['metadata']['annotations'] = {
        'kubectl.kubernetes.io/restartedAt': '2026-01-05T10:00:00+02:00'}
    history = [replica_set(3, 'nginx:3'), replica_set(4, 'nginx:4', replicas=3)]
    history[1]['spec']['template']['metadata']['annotations'] = {
        'kubectl.kubernetes.io/restartedAt': '2026-01-05T10:00:00+02:00'}
    last = verbs.last_replaced(ScriptedClient(history=history), Deployment(restarted))
    assert last == datetime.datetime(2026, 1, 5, 8, 0, tzinfo=datetime.timezone.utc)
    # Never restarted: the creation of the current revision.
    plain = Deployment(deployment(image='nginx:4'))
    last = verbs.last_replaced(ScriptedClient(history=[replica_set(3, 'nginx:3'), replica_set(4, 'nginx:4')]),
                               plain)
    assert last == datetime.datetime(2026, 1, 4, tzinfo=datetime.timezone.utc)
    # Nothing recorded yet: unknown (so it is restarted).
    assert verbs.last_replaced(ScriptedClient(history=[]), plain) is None


def test_restarted_since_is_an_unchanged_outcome_that_is_not_waited_for():
    outcome = verbs.restarted_since(Deployment(deployment()),
                                    datetime.datetime(2026, 1, 5, tzinfo=datetime.timezone.utc),
                                    '2026-01-02T00:00:00Z')
    entry = outcome.entry()
    assert outcome.changed is False and outcome.waits is False
    assert entry['skipped'] is True and entry['last_replaced'] == '2026-01-05T00:00:00Z'
    assert entry['message'] == 'restarted or rolled out since 2026-01-02T00:00:00Z'


def test_restart_summary_sorts_each_workload_and_gives_reasons():
    def done(name, changed):
        return {'kind': 'Deployment', 'namespace': 'shop', 'name': name,
                'workload': 'Deployment shop/' + name, 'changed': changed}
    outcome = {'done': [done('a', True), done('b', False), done('c', True), done('d', False)],
               'failed': [], 'not_reached': []}
    entries = {'Deployment shop/a': {'restart_reason': 'ConfigMap/x changed',
                                     'config_objects': ['ConfigMap/x']},
               'Deployment shop/b': {'config_objects': ['ConfigMap/x']},
               'Deployment shop/c': {'recorded_only': True, 'config_objects': ['ConfigMap/x']},
               'Deployment shop/d': {'config_objects': []}}
    rollout_restart.summarize(True, '', False)(outcome, entries)
    assert outcome['restarted'] == ['Deployment shop/a'] and outcome['recorded'] == ['Deployment shop/c']
    assert outcome['unchanged'] == ['Deployment shop/b', 'Deployment shop/d'] and outcome['skipped'] == []
    assert outcome['reasons'] == {'Deployment shop/a': 'ConfigMap/x changed',
                                  'Deployment shop/b': 'configuration digest unchanged',
                                  'Deployment shop/c': 'configuration digest recorded, no restart',
                                  'Deployment shop/d': 'no ConfigMap or Secret to tie the restart to'}
    assert outcome['lines'] == [
        'Restarted: Deployment shop/a (ConfigMap/x changed)',
        'Recorded the configuration digest, no restart: Deployment shop/c (configuration digest recorded, '
        'no restart)',
        'Unchanged: Deployment shop/b (configuration digest unchanged), Deployment shop/d (no ConfigMap or '
        'Secret to tie the restart to)']
    since = {'done': [done('a', False)], 'failed': [], 'not_reached': []}
    rollout_restart.summarize(False, '2026-01-02T00:00:00Z', True)(
        since, {'Deployment shop/a': {'skipped': True}})
    assert since['lines'] == ['Would restart: none',
                              'Already restarted since 2026-01-02T00:00:00Z: Deployment shop/a']
    assert since['skipped'] == ['Deployment shop/a'] and since['reasons'] == {}
