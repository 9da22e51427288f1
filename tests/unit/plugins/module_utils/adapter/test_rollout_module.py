"""RolloutModule (adapter/rollout_module.py): the ``workloads`` entries checked before any request
(run through the controller runtime's real argument validation, without a connection), then, against
kubesim, targets by name, by label selectors over several kinds or by entries, the verb applied to
each after every precheck, one at a time with ``serial``, the wait on the engine, results, diffs and
the ``outcome``."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.rollout_module import (
    TARGET_ARG_SPEC,
    RolloutModule,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workload import Refused
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import verbs
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.writes import Outcome
from ansible_collections.kubeops.rollout.plugins.modules import rollout_restart, rollout_status, rollout_undo
from ansible_collections.kubeops.rollout.plugins.plugin_utils.controller import ModuleExit, TaskContext

from tests.support.kube import api_client, create_settled, read_log
from tests.support.manifests import workload

pytestmark = pytest.mark.unit

DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments'


def run_module(module, args, check_mode=False):
    context = TaskContext(module.__name__.rsplit('.', 1)[1], args, check_mode, False, {}, 'localhost')
    with pytest.raises(ModuleExit) as exited:
        module.main(context.runtime)
    return exited.value.result


# ---- the workloads entries, checked before any request ---------------------------------------------

def test_every_bad_entry_is_named_in_one_failure_before_any_request():
    result = run_module(rollout_undo, {'workloads': [
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
    both = run_module(rollout_status, {'name': 'web', 'kind': ['Deployment'],
                                       'workloads': [{'kind': 'Deployment', 'name': 'web'}]})
    assert 'mutually exclusive' in both['msg'] and 'workloads' in both['msg'], both['msg']
    unknown = run_module(rollout_status, {'workloads': [{'kind': 'Deployment', 'name': 'web', 'images': {}}]})
    assert 'images' in unknown['msg'] and 'workloads' in unknown['msg'], unknown['msg']
    empty = run_module(rollout_status, {'workloads': []})
    assert 'workloads is empty' in empty['msg']
    # A per-entry field only the undo takes.
    revision = run_module(rollout_restart, {'workloads': [{'kind': 'Deployment', 'name': 'web',
                                                            'to_revision': 2}]})
    assert 'to_revision' in revision['msg'], revision['msg']


@pytest.mark.parametrize('args, message', [
    ({'name': 'web'}, 'kind is required with name: give the kind of "web"'),
    ({'name': 'web', 'kind': ['deploy,sts']}, 'name "web" names one workload, but kind lists Deployment or '
                                              'StatefulSet'),
    ({'name': 'web', 'kind': ['pod']}, 'kind "pod" is not a kind rollouts apply to'),
    ({'name': ' ', 'kind': ['deploy']}, 'name is empty: give the Deployment name, or label_selectors'),
    ({'name': 'Web', 'kind': ['deploy']}, 'name "Web" is not a valid object name'),
    ({'label_selectors': ['app=web', ' ']},
     "label_selectors ['app=web', ' '] has an empty selector: an empty selector matches every Deployment, "
     'StatefulSet or DaemonSet'),
    ({}, 'one of the following is required: name, label_selectors'),
])
def test_a_target_that_would_act_on_something_else_is_refused_before_any_request(args, message):
    result = run_module(rollout_status, args)
    assert result['failed'] and message in result['msg'], result['msg']


# ---- against kubesim -------------------------------------------------------------------------------

@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(request_log=tmp_path / 'requests.log', ready_delay=0.02,
                          fail_image=r'^registry\.invalid/')
    sim.log = tmp_path / 'requests.log'
    sim.client = api_client(sim)
    create_settled(sim.client, workload('Deployment', 'web', 'nginx:1', 1, labels={'tier': 'front'}))
    create_settled(sim.client, workload('StatefulSet', 'db', 'redis:1', 1, labels={'tier': 'front'}))
    create_settled(sim.client, workload('Deployment', 'api', 'api:1', 1, labels={'tier': 'back'}))
    return sim


def module_of(sim, args, check_mode=False, diff=False, **kwargs):
    """A RolloutModule on the controller runtime, connected to ``sim``; its exit is a ModuleExit."""
    context = TaskContext('rollout_test', dict(args, kubeconfig=str(sim.kubeconfig)), check_mode, diff, {},
                          'localhost')
    return RolloutModule(kwargs.pop('spec', {}), runtime=context.runtime, **kwargs)


def result_of(module, verb, **run):
    with pytest.raises(ModuleExit) as exited:
        module.run(verb, **run)
    return exited.value.result


def recording(calls, outcome=None):
    """A verb that records the workloads it is applied to."""
    def verb(client, workload):
        calls.append(workload.label())
        return outcome(client, workload) if outcome else Outcome(workload, False)
    return verb


def test_a_workload_by_name_is_changed_and_waited_for(sim):
    module = module_of(sim, {'kind': ['deploy'], 'name': 'web', 'wait_timeout': 30}, wait=True)
    result = result_of(module, lambda client, w: verbs.image(client, w, {'app': 'nginx:2'}))
    assert not result.get('failed') and result['changed'], result
    (entry,) = result['workloads']
    assert (entry['kind'], entry['name'], entry['namespace']) == ('Deployment', 'web', 'default')
    assert entry['status']['done'] and 'successfully rolled out' in entry['status']['message']
    pods = sim.client.list('/api/v1/namespaces/default/pods', label_selector='app=web')['items']
    assert {p['spec']['containers'][0]['image'] for p in pods if not p['metadata'].get('deletionTimestamp')} \
        == {'nginx:2'}


def test_a_wait_that_fails_names_the_workload_and_why(sim):
    module = module_of(sim, {'kind': ['deploy'], 'name': 'web', 'wait_timeout': 30, 'fail_fast_seconds': 1},
                       wait=True)
    result = result_of(module, lambda client, w: verbs.image(client, w, {'app': 'registry.invalid/web:2'}))
    assert result['failed'] and result['changed']
    assert result['msg'].startswith('Deployment default/web: 1/1 new pods not ready: '), result['msg']
    assert result['workloads'][0]['status']['done'] is False


def test_label_selectors_list_each_kind_once_in_order(sim):
    calls, mark = [], len(read_log(sim.log))
    result = result_of(module_of(sim, {'label_selectors': ['tier=front']}), recording(calls))
    assert calls == ['Deployment default/web', 'StatefulSet default/db'] and not result['changed']
    assert [(e['method'], e['path'].rsplit('/', 1)[1], e['query']) for e in read_log(sim.log)[mark:]] == [
        ('GET', kind, 'labelSelector=tier%3Dfront') for kind in ('deployments', 'statefulsets', 'daemonsets')]
    assert [w['namespace'] for w in result['workloads']] == ['default', 'default']
    calls[:] = []
    result_of(module_of(sim, {'label_selectors': ['tier=front'], 'kind': ['sts']}), recording(calls))
    assert calls == ['StatefulSet default/db']


def test_a_selection_that_matches_nothing_warns_or_fails_when_a_match_is_required(sim):
    calls = []
    module = module_of(sim, {'label_selectors': ['tier=none'], 'kind': ['deploy']})
    result = result_of(module, recording(calls))
    assert not result.get('failed') and calls == [] and result['workloads'] == []
    assert result['warnings'] == ['label_selectors "tier=none" matched no Deployment in namespace "default": '
                                  'nothing was done']
    result = result_of(module_of(sim, {'label_selectors': ['tier=none'], 'require_match': True}),
                       recording(calls))
    assert result['failed'] and result['msg'].startswith(
        'label_selectors "tier=none" matched no Deployment, StatefulSet or DaemonSet in namespace "default", '
        'and require_match is true')


def test_a_name_that_does_not_exist_fails(sim):
    result = result_of(module_of(sim, {'kind': ['deploy'], 'name': 'nope'}), recording([]))
    assert result['failed'] and result['msg'] == 'Deployment default/nope not found'


def test_every_target_is_prechecked_before_the_first_write(sim):
    calls = []

    def precheck(workload):
        if workload.name == 'db':
            raise Refused('not today')

    module = module_of(sim, {'label_selectors': ['tier=front']})
    result = result_of(module, recording(calls), precheck=precheck, report=True)
    assert result['failed'] and not result['changed'] and calls == []
    assert result['msg'] == 'StatefulSet default/db: not today'
    assert result['outcome']['failed'][0]['message'] == 'not today'


def test_serial_stops_at_the_first_failure(sim):
    calls = []

    def refuse_web(client, workload):
        if workload.name == 'web':
            raise Refused('%s is not ready' % workload.label())
        return Outcome(workload, False)

    module = module_of(sim, {'label_selectors': ['tier=front'], 'serial': True}, serial=True)
    result = result_of(module, recording(calls, refuse_web), report=True)
    assert calls == ['Deployment default/web'] and result['failed']
    assert result['msg'] == 'Deployment default/web is not ready'  # named once
    assert [w['workload'] for w in result['outcome']['not_reached']] == ['StatefulSet default/db']
    # Without serial every workload is tried.
    calls[:] = []
    result_of(module_of(sim, {'label_selectors': ['tier=front']}), recording(calls, refuse_web))
    assert calls == ['Deployment default/web', 'StatefulSet default/db']


def test_entries_resolve_first_and_carry_their_own_fields(sim):
    seen = []
    module = module_of(sim, {'to_revision': 0, 'workloads': [
        {'kind': 'deploy', 'name': 'web', 'to_revision': 3},
        {'label_selectors': ['tier=front']},            # web again (same fields? no: fails below)
    ]}, spec={'to_revision': {'type': 'int', 'default': 0}}, entry_options={'to_revision': {'type': 'int'}})
    result = result_of(module, recording(seen))
    assert result['failed'] and seen == []
    assert result['msg'] == ('workloads[0] (web) and workloads[1] (tier=front) both list Deployment '
                             'default/web, with different to_revision: list it once')
    module = module_of(sim, {'to_revision': 1, 'workloads': [
        {'kind': 'deploy', 'name': 'web', 'to_revision': 3},
        {'kind': 'sts', 'label_selectors': ['tier=front']},
        {'kind': 'deploy', 'name': 'web', 'to_revision': 3}]},  # listed twice, the same: acted on once
        spec={'to_revision': {'type': 'int', 'default': 0}}, entry_options={'to_revision': {'type': 'int'}})
    result = result_of(module, recording(seen, lambda c, w: Outcome(w, False, {
        'to_revision': module.option(w, 'to_revision')})))
    assert seen == ['Deployment default/web', 'StatefulSet default/db']
    assert [w['to_revision'] for w in result['workloads']] == [3, 1]  # the entry's, else the option


def test_each_alone_sets_a_missing_workload_aside_and_changes_the_others(sim):
    calls = []
    wanted = [{'kind': 'deploy', 'name': 'gone'}, {'kind': 'deploy', 'name': 'web'}]
    module = module_of(sim, {'workloads': wanted}, entry_options={})
    result = result_of(module, recording(calls, lambda c, w: Outcome(w, True)), each_alone=True)
    assert calls == ['Deployment default/web'] and result['failed'] and result['changed']
    assert result['msg'] == 'Deployment default/gone not found'
    assert result['failures'] == [{'kind': 'Deployment', 'namespace': 'default', 'name': 'gone',
                                   'msg': 'Deployment default/gone not found'}]
    module = module_of(sim, {'workloads': [{'kind': 'deploy', 'name': 'gone'}]}, entry_options={})
    result = result_of(module, recording(calls))
    assert result['failed'] and result['msg'] == 'Deployment default/gone not found'
    assert result['workloads'] == []


def test_diff_and_check_mode(sim):
    module = module_of(sim, {'kind': ['deploy'], 'name': 'web', 'wait': True}, check_mode=True, diff=True,
                       wait=True)
    result = result_of(module, lambda client, w: verbs.pause(client, w, True, check_mode=True))
    assert result['changed'] and 'status' not in result['workloads'][0]  # check mode waits for nothing
    label = 'Deployment default/web'
    assert result['diff'] == [{'before': {'spec': {'paused': False}}, 'after': {'spec': {'paused': True}},
                               'before_header': label, 'after_header': label}]
    assert not sim.client.get(DEPLOYMENTS + '/web')['spec'].get('paused')


def test_errors_of_one_workload_and_bugs_are_one_line_each(sim):
    def api_error(client, workload):
        raise ApiError(409, 'Conflict', 'the object has been modified')

    result = result_of(module_of(sim, {'kind': ['deploy'], 'name': 'web'}), api_error)
    assert result['failed']
    assert result['msg'] == 'Deployment default/web: the object has been modified (409 Conflict)'

    def bug(client, workload):
        raise ValueError('oops')

    result = result_of(module_of(sim, {'kind': ['deploy'], 'name': 'web'}), bug)
    assert result['msg'] == 'unexpected error: ValueError: oops' and 'Traceback' in result['exception']


def test_an_outcome_that_failed_is_diagnosed_when_the_rollout_did_not_finish(sim):
    def timed_out(client, workload):
        return Outcome(workload, False, {'reason': 'Timeout'}, error='Deployment default/web: timed out')

    result = result_of(module_of(sim, {'kind': ['deploy'], 'name': 'web'}), timed_out)
    assert result['failed'] and result['msg'].startswith('Deployment default/web: timed out')
    assert 'lines' in result['workloads'][0]['diagnosis']


# ---- where each target is looked for: the entry, workload_namespace, namespace ---------------------

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


def test_every_rollout_module_takes_workload_namespace():
    for module in (rollout_restart, rollout_status, rollout_undo):
        result = run_module(module, {'workloads': [{'kind': 'Deployment', 'name': 'web'}],
                                     'workload_namespace': 'Bad_Namespace', 'namespace': 'shop'})
        assert result['failed'] is True and 'workload_namespace: ' in result['msg'], (module, result['msg'])
