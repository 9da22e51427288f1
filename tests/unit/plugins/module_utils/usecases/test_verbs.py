"""The verbs against a scripted client: which requests, which decisions, check mode writes nothing."""

import copy
import datetime
import os
import subprocess
import sys

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.api import client as client_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import verbs
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import ApiError
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.patches import UnknownContainer
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.revisions import RevisionNotFound
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workload import NotSupported, Refused
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.workloads import (
    DaemonSet,
    Deployment,
    StatefulSet,
)

from tests.support.manifests import controller_revision, deployment, replica_set, statefulset

pytestmark = pytest.mark.unit


class ScriptedClient:
    """Answers LIST with ``history`` items, GET with ``fresh`` objects, PATCH with ``patch_answers``
    (an ApiError is raised, a dict returned, None echoes the workload)."""

    def __init__(self, history=(), fresh=(), patch_answers=()):
        self.history = list(history)
        self.fresh = list(fresh)
        self.patch_answers = list(patch_answers)
        self.calls = []

    def list(self, path, label_selector=None, **_):
        self.calls.append(('LIST', path, label_selector))
        return {'items': copy.deepcopy(self.history)}

    def get(self, path, **_):
        self.calls.append(('GET', path))
        return self.fresh.pop(0)

    def patch(self, path, body, content_type='application/strategic-merge-patch+json', dry_run=False,
              retry=False):
        self.calls.append(('DRY-RUN PATCH' if dry_run else 'PATCH', path, content_type, body, retry))
        answer = self.patch_answers.pop(0) if self.patch_answers else {}
        if isinstance(answer, Exception):
            raise answer
        return answer

    def writes(self):
        """The writes that persist (a dry run does not)."""
        return [c for c in self.calls if c[0] == 'PATCH']

    def dry_runs(self):
        return [c for c in self.calls if c[0] == 'DRY-RUN PATCH']


DEPLOY_PATH = '/apis/apps/v1/namespaces/default/deployments/web'


def deploy_history():
    return [replica_set(1, 'nginx:1'), replica_set(3, 'nginx:3'), replica_set(4, 'nginx:4', replicas=3)]


# ---- history ---------------------------------------------------------------------------------

def test_history_is_one_list_with_the_selector():
    client = ScriptedClient(history=deploy_history() + [replica_set(2, 'x', owner_uid='other')])
    out = verbs.history(client, Deployment(deployment('nginx:4')))
    assert client.calls == [('LIST', '/apis/apps/v1/namespaces/default/replicasets', 'app=web')]
    entry = out.entry()
    assert [r['revision'] for r in entry['revisions']] == [1, 3, 4]
    assert entry['current_revision'] == 4 and entry['revisions'][2]['current']
    assert entry['changed'] is False and 'template' not in entry


def test_history_with_revision_template_and_unknown_revision():
    client = ScriptedClient(history=deploy_history())
    entry = verbs.history(client, Deployment(deployment('nginx:4')), revision=3).entry()
    assert entry['template']['spec']['containers'][0]['image'] == 'nginx:3'
    assert 'pod-template-hash' not in entry['template']['metadata']['labels']
    with pytest.raises(RevisionNotFound, match=r'existing revisions: 1, 3, 4'):
        verbs.history(client, Deployment(deployment('nginx:4')), revision=2)


def test_history_compare_to_previous_is_the_revision_below_in_a_gapped_history():
    client = ScriptedClient(history=deploy_history())  # revisions 1, 3, 4; the template is 4's
    last = verbs.history(client, Deployment(deployment('nginx:4')), compare_to=verbs.PREVIOUS).entry()
    assert last['compare'] == {'from': 'revision 3', 'to': 'current template (revision 4)', 'equal': False}
    of_three = verbs.history(client, Deployment(deployment('nginx:4')), revision=3,
                             compare_to=verbs.PREVIOUS).entry()
    assert of_three['compare']['from'] == 'revision 1' and of_three['compare']['to'] == 'revision 3'
    # a template no revision records yet: its previous is the newest revision
    pending = verbs.history(client, Deployment(deployment('nginx:5')), compare_to=verbs.PREVIOUS).entry()
    assert pending['compare']['from'] == 'revision 4'
    with pytest.raises(Refused, match=r'revision 1 is the oldest in the history \(1, 3, 4\)'):
        verbs.history(client, Deployment(deployment('nginx:4')), revision=1, compare_to=verbs.PREVIOUS)
    with pytest.raises(RevisionNotFound):
        verbs.history(client, Deployment(deployment('nginx:4')), revision=2, compare_to=verbs.PREVIOUS)


def test_statefulset_history_lists_controller_revisions():
    client = ScriptedClient(history=[controller_revision(1, 'redis:1'), controller_revision(2, 'redis:7')])
    entry = verbs.history(client, StatefulSet(statefulset('redis:7'))).entry()
    assert client.calls[0] == ('LIST', '/apis/apps/v1/namespaces/default/controllerrevisions', 'app=db')
    assert entry['current_revision'] == 2


# ---- undo ------------------------------------------------------------------------------------

def test_undo_previous_is_second_highest_and_sends_guarded_json_patch():
    client = ScriptedClient(history=deploy_history(), patch_answers=[deployment('nginx:3', rv='101')])
    out = verbs.undo(client, Deployment(deployment('nginx:4')))
    assert out.changed and out.fields == {'from_revision': 4, 'to_revision': 3, 'message': 'rolled back',
                                          'revision_before': 4, 'revision_after': 5}
    (_, path, ctype, body, retry), = client.writes()
    assert path == DEPLOY_PATH and ctype == 'application/json-patch+json' and retry
    assert body[0] == {'op': 'test', 'path': '/metadata/generation', 'value': 4}
    assert body[1] == {'op': 'test', 'path': '/metadata/annotations',
                       'value': {'deployment.kubernetes.io/revision': '4'}}
    assert body[2]['value']['spec']['containers'][0]['image'] == 'nginx:3'
    assert out.after['spec']['template']['spec']['containers'][0]['image'] == 'nginx:3'


def test_undo_check_mode_sends_the_same_patch_as_a_dry_run():
    client = ScriptedClient(history=deploy_history(), patch_answers=[deployment('nginx:1')])
    out = verbs.undo(client, Deployment(deployment('nginx:4')), to_revision=1, check_mode=True)
    assert out.changed and client.writes() == []
    (_, path, ctype, body, _retry), = client.dry_runs()
    assert ctype == 'application/json-patch+json'
    assert body[2]['value']['spec']['containers'][0]['image'] == 'nginx:1'
    assert out.before['spec']['template']['spec']['containers'][0]['image'] == 'nginx:4'
    assert out.after['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1'
    assert not out.warnings


def test_undo_check_mode_without_write_permission_computes_locally_and_warns():
    forbidden = ApiError(403, 'Forbidden', 'deployments.apps "web" is forbidden')
    client = ScriptedClient(history=deploy_history(), patch_answers=[forbidden])
    out = verbs.undo(client, Deployment(deployment('nginx:4')), to_revision=1, check_mode=True)
    assert out.changed and client.writes() == [] and len(client.dry_runs()) == 1
    assert out.after['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1'
    assert out.warnings and 'computed locally' in out.warnings[0]
    assert 'Deployment default/web' in out.warnings[0]


def test_check_mode_surfaces_the_servers_validation_error():
    invalid = ApiError(422, 'Invalid', 'spec.template.spec.containers[0].image: Required value')
    client = ScriptedClient(patch_answers=[invalid])
    with pytest.raises(ApiError, match='Required value'):
        verbs.image(client, Deployment(deployment('nginx:1')), {'web': ''}, check_mode=True)
    assert client.writes() == []


def test_undo_skips_when_template_already_matches():
    client = ScriptedClient(history=deploy_history())
    out = verbs.undo(client, Deployment(deployment('nginx:4')), to_revision=4)
    assert not out.changed and client.writes() == []
    assert out.fields['message'] == 'skipped rollback (current template already matches revision 4)'


def test_undo_unknown_revision_and_no_previous():
    with pytest.raises(RevisionNotFound, match=r'unable to find specified revision 2 in history \(existing '
                                               r'revisions: 1, 3, 4\)'):
        verbs.undo(ScriptedClient(history=deploy_history()), Deployment(deployment('nginx:4')), to_revision=2)
    with pytest.raises(RevisionNotFound, match=r'revision -3 in history \(existing revisions: 1, 3, 4\)'):
        verbs.undo(ScriptedClient(history=deploy_history()), Deployment(deployment('nginx:4')),
                   to_revision=-3)
    with pytest.raises(Refused, match='no rollout history found for deployment "web"'):
        verbs.undo(ScriptedClient(history=[replica_set(1, 'nginx:4')]), Deployment(deployment('nginx:4')))
    with pytest.raises(Refused, match='no last revision to roll back to'):
        verbs.undo(ScriptedClient(history=[controller_revision(1, 'redis:7')]), StatefulSet(statefulset()))


def test_undo_refuses_paused_deployment():
    with pytest.raises(Refused, match='cannot rollback a paused deployment'):
        verbs.undo(ScriptedClient(history=deploy_history()), Deployment(deployment('nginx:4', paused=True)))


def test_undo_refuses_paused_deployment_before_looking_up_the_revision():
    # kubectl checks spec.paused first: the refusal is what to fix, not a mistyped revision.
    with pytest.raises(Refused, match='cannot rollback a paused deployment'):
        verbs.undo(ScriptedClient(history=deploy_history()), Deployment(deployment('nginx:4', paused=True)),
                   to_revision=99)


def test_undo_conflict_retries_from_a_fresh_read():
    # What the API server answers a JSON patch whose `test` failed; the client marks it.
    conflict = ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request')
    conflict.patch_had_test = True
    fresh = deployment('nginx:4', rv='150')
    fresh['metadata']['generation'] = 5  # someone wrote the spec (the same template) in between
    client = ScriptedClient(history=deploy_history(), fresh=[fresh],
                            patch_answers=[conflict, deployment('nginx:3', rv='151')])
    out = verbs.undo(client, Deployment(deployment('nginx:4', rv='100')))
    assert out.changed
    kinds = [c[0] for c in client.calls]
    assert kinds == ['LIST', 'PATCH', 'GET', 'LIST', 'PATCH']
    assert client.writes()[1][3][0] == {'op': 'test', 'path': '/metadata/generation', 'value': 5}


def test_undo_does_not_retry_a_validation_error_of_its_guarded_patch():
    # A 422 with causes is the server judging the patched object, not a failed `test`: not retried.
    invalid = ApiError(422, 'Invalid', 'Deployment.apps "web" is invalid: '
                       'spec.template.spec.containers[0].image: Required value',
                       body={'details': {'causes': [{'field': 'spec.template'}]}})
    invalid.patch_had_test = True
    client = ScriptedClient(history=deploy_history(), patch_answers=[invalid])
    with pytest.raises(ApiError, match='Required value'):
        verbs.undo(client, Deployment(deployment('nginx:4')))
    assert len(client.writes()) == 1


def test_undo_target_reached_during_a_conflict_is_reported_changed():
    conflict = ApiError(409, 'Conflict', 'the object has been modified')
    client = ScriptedClient(history=deploy_history(), fresh=[deployment('nginx:3', rv='150')],
                            patch_answers=[conflict])
    out = verbs.undo(client, Deployment(deployment('nginx:4', rv='100')))
    assert out.changed and out.fields['message'] == 'rolled back'
    assert len(client.writes()) == 1


def test_image_and_pause_retry_a_conflict_from_a_fresh_read():
    conflict = ApiError(409, 'Conflict', 'the object has been modified')
    client = ScriptedClient(fresh=[deployment('nginx:1', rv='7')],
                            patch_answers=[conflict, deployment('nginx:2')])
    out = verbs.image(client, Deployment(deployment('nginx:1')), {'web': 'nginx:2'})
    # (the controller has observed the spec: its revision annotation stands in for a LIST)
    assert out.changed and [c[0] for c in client.calls] == ['PATCH', 'GET', 'PATCH']
    # the fresh read shows the state already reached: still a change made by this task
    client = ScriptedClient(fresh=[deployment(paused=True)], patch_answers=[conflict])
    out = verbs.pause(client, Deployment(deployment()), True)
    assert out.changed and out.fields == {'paused': True}


def test_undo_conflict_retries_are_bounded():
    conflict = ApiError(409, 'Conflict', 'the object has been modified')
    n = client_mod.WRITE_ATTEMPTS
    client = ScriptedClient(history=deploy_history(), fresh=[deployment('nginx:4') for _ in range(n)],
                            patch_answers=[conflict] * n)
    with pytest.raises(ApiError):
        verbs.undo(client, Deployment(deployment('nginx:4')))
    assert len(client.writes()) == n


def test_statefulset_undo_is_json_patch_of_the_revision_template_guarded_by_generation():
    history = [controller_revision(1, 'redis:1'), controller_revision(2, 'redis:2'),
               controller_revision(3, 'redis:7')]
    client = ScriptedClient(history=history, patch_answers=[statefulset('redis:2')])
    out = verbs.undo(client, StatefulSet(statefulset('redis:7')))
    assert out.fields['to_revision'] == 2 and out.fields['from_revision'] == 3
    (_, path, ctype, body, _retry), = client.writes()
    assert path == '/apis/apps/v1/namespaces/default/statefulsets/db'
    assert ctype == 'application/json-patch+json'
    template = {k: v for k, v in history[1]['data']['spec']['template'].items() if k != '$patch'}
    # neither the workload nor the revision has a change-cause: the template is all that changes
    assert body == [{'op': 'test', 'path': '/metadata/generation', 'value': 2},
                    {'op': 'replace', 'path': '/spec/template', 'value': template}]


def test_daemonset_undo_uses_daemonset_path():
    crs = [controller_revision(1, 'a:1'), controller_revision(2, 'a:2')]
    ds = statefulset('a:2')
    ds['kind'] = 'DaemonSet'
    client = ScriptedClient(history=crs, patch_answers=[{}])
    verbs.undo(client, DaemonSet(ds))
    assert client.writes()[0][1] == '/apis/apps/v1/namespaces/default/daemonsets/db'


# ---- pause, restart, image -------------------------------------------------------------------

def test_pause_resume_idempotent_and_deployment_only():
    client = ScriptedClient(patch_answers=[deployment(paused=True)])
    out = verbs.pause(client, Deployment(deployment()), True)
    assert out.changed and out.fields == {'paused': True}
    assert client.writes()[0][3] == {'spec': {'paused': True}}
    assert out.before == {'spec': {'paused': False}} and out.after == {'spec': {'paused': True}}
    client = ScriptedClient()
    assert not verbs.pause(client, Deployment(deployment(paused=True)), True).changed
    assert not verbs.pause(client, Deployment(deployment()), False).changed
    assert client.writes() == []
    with pytest.raises(NotSupported, match=r'statefulsets.apps "db" pausing is not supported'):
        verbs.pause(client, StatefulSet(statefulset()), True)
    with pytest.raises(NotSupported, match=r'resuming is not supported'):
        verbs.pause(client, StatefulSet(statefulset()), False)


def test_pause_check_mode():
    client = ScriptedClient(patch_answers=[deployment()])
    out = verbs.pause(client, Deployment(deployment(paused=True)), False, check_mode=True)
    assert out.changed and client.writes() == [] and out.after == {'spec': {'paused': False}}


def test_restart_patch_and_paused_refusal():
    client = ScriptedClient(patch_answers=[deployment()])
    out = verbs.restart(client, Deployment(deployment()), now=lambda: '2026-01-02T03:04:05Z')
    assert out.changed and out.fields == {'restarted_at': '2026-01-02T03:04:05Z', 'revision_before': 4,
                                          'revision_after': 5}
    assert [c[0] for c in client.calls] == ['PATCH']
    assert client.writes()[0][3] == {'spec': {'template': {'metadata': {'annotations': {
        'kubectl.kubernetes.io/restartedAt': '2026-01-02T03:04:05Z'}}}}}
    with pytest.raises(Refused, match=r"deployments.apps \"web\" can't restart paused deployment"):
        verbs.restart(client, Deployment(deployment(paused=True)))


def test_deployment_revision_numbers_come_from_the_revisions_until_the_controller_caught_up():
    synced = deployment()
    client = ScriptedClient(history=deploy_history())
    assert Deployment(synced).revision_numbers(client, True) == (4, 5)
    assert Deployment(synced).revision_numbers(client, False) == (4, 4)
    assert client.calls == []
    # A spec the controller has not observed yet (or no annotation): the revision annotation may
    # lag behind, so the revisions are listed.
    behind = deployment()
    behind['status']['observedGeneration'] = 3
    behind['spec']['template'] = replica_set(3, 'nginx:3')['spec']['template']  # revision 3's
    no_annotation = deployment('nginx:3', annotations={})
    for obj in (behind, no_annotation):
        client = ScriptedClient(history=deploy_history())
        assert Deployment(obj).revision_numbers(client, True) == (3, 5)
        assert [c[0] for c in client.calls] == ['LIST']


def test_statefulset_restart_and_image_are_get_and_patch_unless_revisions_are_asked_for():
    history = [controller_revision(1, 'redis:6'), controller_revision(2, 'redis:7')]
    for verb in (lambda c, **kw: verbs.restart(c, StatefulSet(statefulset()), now=lambda: 'T', **kw),
                 lambda c, **kw: verbs.image(c, StatefulSet(statefulset()), {'web': 'redis:8'}, **kw)):
        client = ScriptedClient(history=history, patch_answers=[statefulset('redis:8')])
        out = verb(client)
        assert [c[0] for c in client.calls] == ['PATCH']  # the GET was the caller's: kubectl's two
        assert (out.fields['revision_before'], out.fields['revision_after']) == (None, None)
        client = ScriptedClient(history=history, patch_answers=[statefulset('redis:8')])
        out = verb(client, read_revisions=True)
        assert [c[0] for c in client.calls] == ['LIST', 'PATCH']
        assert (out.fields['revision_before'], out.fields['revision_after']) == (2, 3)


def test_restart_within_the_same_second_waits_for_the_next():
    stamps = iter(['T1', 'T2'])
    slept = []
    d = deployment(annotations={}, )
    d['spec']['template']['metadata']['annotations'] = {'kubectl.kubernetes.io/restartedAt': 'T1'}
    out = verbs.restart(ScriptedClient(), StatefulSet(d), check_mode=True, now=lambda: next(stamps),
                        sleep=slept.append)
    assert out.fields['restarted_at'] == 'T2' and slept == [1.0]


def test_image_idempotent_unknown_container_and_check_mode():
    client = ScriptedClient()
    out = verbs.image(client, Deployment(deployment('nginx:1')), {'web': 'nginx:1'})
    assert not out.changed and out.fields['images'] == {'web': 'nginx:1'} and client.writes() == []
    with pytest.raises(UnknownContainer, match=r'named "api" \(containers: web\)'):
        verbs.image(client, Deployment(deployment('nginx:1')), {'api': 'x'})
    client = ScriptedClient(history=deploy_history(), patch_answers=[deployment('nginx:2')])
    out = verbs.image(client, Deployment(deployment('nginx:4')), {'web': 'nginx:2'}, check_mode=True)
    assert out.changed and client.writes() == [] and len(client.dry_runs()) == 1
    assert out.fields == {'images': {'web': 'nginx:2'}, 'previous_images': {'web': 'nginx:4'},
                          'init_containers': [], 'revision_before': 4, 'revision_after': 5}


def test_image_with_change_cause_in_one_patch():
    patched = deployment('nginx:2', annotations={'kubernetes.io/change-cause': 'v2'})
    client = ScriptedClient(patch_answers=[patched])
    out = verbs.image(client, Deployment(deployment('nginx:1')), {'web': 'nginx:2'}, change_cause='v2')
    (_, _path, _ctype, body, _retry), = client.writes()
    assert body['metadata'] == {'annotations': {'kubernetes.io/change-cause': 'v2'}}
    assert out.after['metadata']['annotations'] == {'kubernetes.io/change-cause': 'v2'}
    assert 'kubernetes.io/change-cause' not in out.before['metadata']['annotations']
    # an empty change-cause is no change-cause: nothing is written for it
    client = ScriptedClient(patch_answers=[deployment('nginx:2')])
    verbs.image(client, Deployment(deployment('nginx:1')), {'web': 'nginx:2'}, change_cause='')
    (_, _path, _ctype, body, _retry), = client.writes()
    assert 'metadata' not in body


# ---- restart since ---------------------------------------------------------------------------

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


def test_the_read_only_modules_do_not_load_the_release_record():
    # A module process imports what its module names at the top; the release record (and its
    # lease) is for the writing verbs' in-flight check, loaded when one runs.
    utils = 'ansible_collections.kubeops.rollout.plugins.module_utils.'
    unused = [utils + 'usecases.release.record', utils + 'engine.lease']
    code = ('import importlib, sys\n'
            'for m in ("rollout_history", "rollout_status"):\n'
            '    importlib.import_module("ansible_collections.kubeops.rollout.plugins.modules." + m)\n'
            f'print([m for m in {unused!r} if m in sys.modules])\n'
            f'importlib.import_module({utils!r} + "usecases.verbs")._refuse_in_flight(None, None, "x")\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)))
    assert out.stdout.strip() == '[]', out.stdout + out.stderr
    assert 'release/record.py' in out.stderr  # the writing verbs' check loads it (and fails on None)
