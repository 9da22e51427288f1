"""What a release is about (usecases/release/targets.py): its targets, read from the workloads
entries before any request, its options and result, who else manages a workload, the result the
upgrade role registers and the diff."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.engine.rollouts import SHARED_READS_FROM

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import (
    DEFAULT_TIMEOUT,
    GateOptions,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.status import RolloutStatus
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import Deployment, StatefulSet
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import targets as release

from tests.support.manifests import deployment, statefulset

pytestmark = pytest.mark.unit

CAUSE = 'kubernetes.io/change-cause'


def target(kind=Deployment, name='web', images=None, cause='release 2'):
    return release.Target(kind, name, 'default', dict(images or {'web': 'nginx:2'}), cause)


# ---- targets ---------------------------------------------------------------------------------------

def test_targets_refuse_what_is_not_a_workload_before_any_request():
    with pytest.raises(release.PreflightFailed) as e:
        release.build_targets(
            [
                {'kind': 'ReplicaSet', 'name': 'rs', 'images': {'a': 'b'}},
                {'kind': 'deploy', 'name': ' ', 'images': {'a': 'b'}},
                {'kind': 'sts', 'name': 'db', 'images': {'a': None}},
                {'kind': 'ds', 'name': 'agent', 'images': {}},
                {'kind': 'deploy', 'name': 'web', 'images': {'a': 'b'}},
                {'kind': 'Deployment', 'name': 'web', 'images': {'a': 'c'}},
            ],
            'shop',
        )
    problems = e.value.args[0]
    assert problems[0].startswith('workloads[0] (rs): kind "ReplicaSet" is not a kind')
    assert problems[1] == 'workloads[1]: name is empty'
    assert problems[2] == 'StatefulSet shop/db: no image given for container a'
    assert problems[3] == 'DaemonSet shop/agent: images is empty'
    assert problems[4] == 'Deployment shop/web: listed twice'
    assert len(problems) == 5


def test_names_and_namespaces_the_api_server_would_refuse_are_refused_first():
    with pytest.raises(release.PreflightFailed) as e:
        release.build_targets([
            {'kind': 'deploy', 'name': 'Web_1', 'images': {'a': 'b'}},
            {'kind': 'deploy', 'name': 'web', 'namespace': 'Shop', 'images': {'a': 'b'}},
            {'kind': 'deploy', 'name': 'Bad_', 'namespace': 'a.b', 'images': {'a': 'b'}},
            {'kind': 'sts', 'name': 'db', 'images': {'a': ' ', 'b': 'x', 'c': None}},
        ], 'shop')
    problems = e.value.args[0]
    assert problems[0].startswith('workloads[0]: name ') and 'Web_1' in problems[0]
    assert problems[1].startswith('workloads[1]: namespace ') and 'Shop' in problems[1]
    assert problems[2].startswith('workloads[2]: name ') and '; namespace ' in problems[2]
    assert problems[3] == 'StatefulSet shop/db: no image given for container a, c'


def test_targets_take_the_entry_namespace_and_cause_first():
    (t,) = release.build_targets(
        [{'kind': 'deploy', 'name': 'web', 'namespace': 'a', 'images': {'w': 'x:1'}}], 'b', None
    )
    assert (t.namespace, t.change_cause) == ('a', 'rollout_release: w=x:1')
    assert t.kind is Deployment and t.label() == 'Deployment a/web'
    (t, s) = release.build_targets([
        {'kind': 'deploy', 'name': 'web', 'images': {'w': 'x:1'}, 'change_cause': 'mine'},
        {'kind': 'statefulsets.apps', 'name': 'db', 'images': {'b': 'y:2', 'a': 'x:1'}}], 'b', 'the task')
    assert (t.name, t.namespace, t.change_cause) == ('web', 'b', 'mine')
    assert (s.kind, s.change_cause) == (StatefulSet, 'the task')
    assert release.default_change_cause({'b': 'y:2', 'a': 'x:1'}) == 'rollout_release: a=x:1, b=y:2'


def test_a_target_starts_empty_and_keeps_what_the_preflight_read():
    t = target()
    assert (t.workload, t.patch, t.written, t.outcome, t.cause) == (None, None, None, None, None)
    assert not t.write_sent and not t.would_change and t.deleted_pods == []
    read = deployment('nginx:1', annotations={CAUSE: 'release 1'})
    t.read(Deployment(read))
    assert t.original_template == read['spec']['template'] and t.original_cause == 'release 1'
    t.read(Deployment(deployment('nginx:1', annotations={})))
    assert t.original_cause is None


# ---- a target's result entry -----------------------------------------------------------------------

def test_the_entry_of_a_target_never_read():
    t = target()
    t.outcome, t.cause = release.UNTOUCHED, 'not found'
    assert t.entry() == {'kind': 'Deployment', 'name': 'web', 'namespace': 'default', 'outcome': 'untouched',
                         'cause': 'not found', 'changed': False, 'images_before': None, 'images': None}


def test_the_entry_shows_the_images_before_and_after_the_write():
    t = target()
    t.read(Deployment(deployment('nginx:1')))
    t.outcome = release.UNCHANGED
    entry = t.entry()
    assert entry['images_before'] == entry['images'] == {'web': 'nginx:1'} and entry['changed'] is False
    t.dry_run = deployment('nginx:2')  # check mode: the dry run's answer
    t.would_change = True
    assert t.entry()['images'] == {'web': 'nginx:2'} and t.entry()['changed'] is True
    t.would_change, t.written, t.write_sent = False, deployment('nginx:3'), True  # the write wins
    assert t.entry()['images'] == {'web': 'nginx:3'} and t.entry()['changed'] is True


def test_the_entry_carries_status_diagnosis_deleted_pods_and_the_put_back():
    t = target(StatefulSet, 'db', {'web': 'redis:8'})
    t.read(StatefulSet(statefulset()))
    t.status = RolloutStatus(False, 'timed out', 'Timeout', counts={'replicas': 2})
    t.status.diagnosis = {'lines': ['db-1: ImagePullBackOff']}
    t.deleted_pods = ['db-1']
    t.rollback, t.outcome = 'put back to the template it had before the release', release.ROLLED_BACK
    entry = t.entry()
    assert entry['status'] == {'done': False, 'message': 'timed out', 'reason': 'Timeout', 'replicas': 2}
    assert entry['diagnosis'] == {'lines': ['db-1: ImagePullBackOff']}
    assert entry['deleted_pods'] == ['db-1'] and entry['changed'] is True  # pods deleted: a change
    assert entry['rollback'].startswith('put back')
    entry['deleted_pods'].append('db-0')
    assert t.deleted_pods == ['db-1']  # a copy


# ---- options and result ----------------------------------------------------------------------------

def test_options_defaults():
    options = release.ReleaseOptions()
    assert (options.atomic, options.rollback, options.check_mode, options.canary) == (True, True, False, None)
    assert options.timeout == options.rollback_timeout == DEFAULT_TIMEOUT
    assert isinstance(options.gates, GateOptions) and options.canary_ordinals == 1
    assert release.ReleaseOptions(timeout=60).rollback_timeout == 60
    assert release.ReleaseOptions(timeout=60, rollback_timeout=30).rollback_timeout == 30


def test_a_result_changed_what_was_written_or_in_check_mode_what_would_be():
    written, untouched, replaced = target(), target(name='api'), target(StatefulSet, 'db')
    written.write_sent = True
    replaced.deleted_pods = ['db-0']
    assert release.ReleaseResult([written], False, '', [], [], False, False).changed
    assert release.ReleaseResult([replaced], False, '', [], [], False, False).changed
    assert not release.ReleaseResult([untouched], False, '', [], [], False, False).changed
    # In check mode: what its run predicted would be written, not a patch that a refusal never sends.
    untouched.patch = ('application/strategic-merge-patch+json', {})
    assert not release.ReleaseResult([untouched], False, '', [], [], True, False).changed
    untouched.would_change = True
    assert release.ReleaseResult([untouched], False, '', [], [], True, False).changed
    assert not release.ReleaseResult([replaced], False, '', [], [], True, False).changed


# ---- who else manages a workload -------------------------------------------------------------------

def test_helm_and_argo_cd_owners_are_found_from_labels_annotations_and_managed_fields():
    helm = {
        'metadata': {
            'labels': {'app.kubernetes.io/managed-by': 'Helm'},
            'annotations': {'meta.helm.sh/release-name': 'shop'},
        }
    }
    argo = {
        'metadata': {'annotations': {'argocd.argoproj.io/tracking-id': 'shop-app:apps/Deployment:shop/web'}}
    }
    fields = {'metadata': {'managedFields': [{'manager': 'argocd-controller'}, {'manager': 'kubectl'}]}}
    assert release.managers(helm) == ['Helm (release shop)']
    assert release.managers(argo) == ['Argo CD (application shop-app)']
    assert release.managers(fields) == ['Argo CD']
    assert release.managers({'metadata': {'labels': {'app.kubernetes.io/instance': 'web'}}}) == []


def test_both_managers_and_the_argo_cd_instance_label():
    both = {'metadata': {'labels': {'argocd.argoproj.io/instance': 'shop-app'},
                         'managedFields': [{'manager': 'helm'}]}}
    assert release.managers(both) == ['Helm', 'Argo CD (application shop-app)']
    assert release.managers({}) == []


# ---- the module's result and diff ------------------------------------------------------------------

def test_the_result_groups_labels_by_outcome():
    entries = [
        {'kind': 'Deployment', 'namespace': 'a', 'name': 'x', 'outcome': 'upgraded', 'changed': True},
        {'kind': 'Deployment', 'namespace': 'a', 'name': 'y', 'outcome': 'rolled_back', 'changed': True},
        {'kind': 'StatefulSet', 'namespace': 'a', 'name': 'z', 'outcome': 'unchanged', 'changed': False},
    ]
    fact = release.result_fields(entries, ['line'])
    assert fact['upgraded'] == ['Deployment a/x'] and fact['rolled_back'] == ['Deployment a/y']
    assert fact['unchanged'] == ['StatefulSet a/z'] and fact['summary'] == ['line']
    assert fact['rollback_failed'] == [] and fact['untouched'] == []
    assert fact['workloads'][0]['workload'] == 'Deployment a/x'
    assert 'workload' not in entries[0]  # the entries given are not changed


def test_an_upgrade_that_changed_nothing_is_listed_unchanged():
    # An OnDelete StatefulSet whose pods were replaced, its template already the release's.
    entries = [{'kind': 'StatefulSet', 'namespace': 'a', 'name': 'db', 'outcome': 'upgraded',
                'changed': False}]
    fact = release.result_fields(entries, [])
    assert fact['upgraded'] == [] and fact['unchanged'] == ['StatefulSet a/db']
    assert set(release.OUTCOMES) <= set(fact)


def test_the_diff_is_the_servers_answer_or_computed_locally():
    t = target(images={'web': 'nginx:2'}, cause='release 2')
    t.read(Deployment(deployment('nginx:1', annotations={'keep': 'me'})))
    t.patch = t.workload.image_patch(t.images, t.change_cause)
    before, after = release.diff_of(t)
    assert before['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1'
    assert before['metadata']['annotations'] == {'keep': 'me'}
    assert after['spec']['template']['spec']['containers'][0]['image'] == 'nginx:2'
    assert after['metadata']['annotations'] == {'keep': 'me', CAUSE: 'release 2'}
    answer = deployment('nginx:2', annotations={CAUSE: 'server'})
    answer['spec']['template']['spec']['containers'][0]['imagePullPolicy'] = 'IfNotPresent'  # defaulted
    t.dry_run = answer
    _, after = release.diff_of(t)
    assert after['spec']['template']['spec']['containers'][0]['imagePullPolicy'] == 'IfNotPresent'
    assert after['metadata']['annotations'] == {CAUSE: 'server'}
    after['spec']['template']['spec']['containers'][0]['image'] = 'changed'
    assert answer['spec']['template']['spec']['containers'][0]['image'] == 'nginx:2'  # a copy


def _named(obj, name):
    obj['metadata']['name'] = name
    return obj


class Reads:
    """Answers GETs and LISTs from a namespace's Deployments and records each request."""

    def __init__(self, names):
        self.objects = {n: _named(deployment(), n) for n in names}
        self.requests = []

    def get(self, path):
        self.requests.append(('GET', path))
        name = path.rsplit('/', 1)[1]
        if name not in self.objects:
            raise ApiError(404, 'NotFound', 'deployments.apps "%s" not found' % name)
        return dict(self.objects[name])

    def list(self, path):
        self.requests.append(('LIST', path))
        items = []
        for obj in self.objects.values():
            item = dict(obj)
            item.pop('kind', None), item.pop('apiVersion', None)  # as a list's items come
            items.append(item)
        return {'kind': 'DeploymentList', 'apiVersion': 'apps/v1', 'items': items}


def test_a_few_targets_are_read_one_get_each():
    client = Reads(['web', 'api'])
    targets = [target(name='web'), target(name='gone')]
    read = release.read_targets(client, targets)
    assert read[id(targets[0])]['metadata']['name'] == 'web'
    assert read[id(targets[1])].status == 404
    assert [r[0] for r in client.requests] == ['GET', 'GET']


def test_many_targets_of_one_kind_and_namespace_are_read_with_one_list():
    names = ['w%d' % i for i in range(SHARED_READS_FROM)]
    client = Reads(names)
    targets = [target(name=n) for n in names] + [target(name='gone')]
    read = release.read_targets(client, targets)
    assert client.requests == [('LIST', '/apis/apps/v1/namespaces/default/deployments')]
    for t in targets[:-1]:
        obj = read[id(t)]
        assert obj['metadata']['name'] == t.name
        assert (obj['kind'], obj['apiVersion']) == ('Deployment', 'apps/v1')  # as a GET answers
    assert read[id(targets[-1])].status == 404 and 'gone' in str(read[id(targets[-1])])


@pytest.mark.parametrize('text, left, remedy', [
    ('not put back: its template was changed by someone else since this release wrote it (gen 7)',
     release.CHANGED_ELSEWHERE, 'kubectl annotate deployment web -n default kubeops.rollout/release-'),
    ('put back, but its rollout did not complete: timed out', release.NOT_COMING_UP,
     'kubeops.rollout.rollout_status (its diagnosis)'),
    ('the put-back was refused: forbidden', release.STILL_RECORDED,
     'run the same task again with recover: rollback'),
    ('not put back: the workload kept changing while it was being put back', release.STILL_RECORDED,
     'recover: rollback'),
])
def test_a_failed_put_back_says_what_remains_and_how_to_finish(text, left, remedy):
    t = target()
    t.read(Deployment(deployment()))
    finished = release.how_to_finish(t, text, left)
    assert finished.startswith(text + '. ') and remedy in finished, finished


def test_an_interrupted_release_names_what_is_put_back_and_what_keeps_its_record():
    web, db, api = target(name='web'), target(name='db'), target(name='api')
    web.write_sent = db.write_sent = True
    db.put_back_sent = True
    text = release.interrupted_message('r-1', [web, db, api])
    assert text.startswith('release r-1 interrupted; written so far: Deployment default/web, '
                           'Deployment default/db')
    assert 'Put back (the template and change-cause they had' in text
    assert text.count('Deployment default/db') == 2
    assert 'Deployment default/web keeps the kubeops.rollout/release record: run the same task again' in text
    assert release.interrupted_message('r-2', [api]) == 'release r-2 interrupted; written so far: nothing'
