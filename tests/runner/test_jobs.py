"""The shipped playbooks as AWX runs them: ansible-runner jobs with extra vars, against kubesim.

AWX hands a job to ansible-runner with a private data dir, an inventory (here `localhost`), extra
vars (from the launch form or a survey), environment variables (a Kubernetes credential becomes
K8S_AUTH_*), and `--check --diff` for a check job. These tests do the same and judge the jobs by
their events, as AWX shows them, and by kubesim's request log and objects.
"""

import json
import re
import os
import pathlib
import sys

import ansible_runner
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent
ESTATE = ROOT / 'scripts' / 'demo-estate' / 'estate.yaml'
WRITE_METHODS = ('POST', 'PUT', 'PATCH', 'DELETE')

pytestmark = pytest.mark.runner


class Cluster:
    """A kubesim, its request log, and kubectl for it."""

    def __init__(self, sim, kubectl, log_path):
        self.sim = sim
        self.kubectl = kubectl
        self.log_path = log_path

    def requests(self):
        if not self.log_path.exists():
            return []
        return [json.loads(line) for line in self.log_path.read_text().splitlines() if line.strip()]

    def image(self, resource):
        proc = self.kubectl('-n', 'demo', 'get', resource, '-o',
                            'jsonpath={.spec.template.spec.containers[0].image}', check=True)
        return proc.stdout.strip()

    def annotation(self, resource, key):
        proc = self.kubectl('-n', 'demo', 'get', resource, '-o', 'json', check=True)
        return (json.loads(proc.stdout)['spec']['template']['metadata'].get('annotations') or {}).get(key)


TOKEN = 'kubeops-runner-test-token-5f3a'


@pytest.fixture
def cluster(kubesim_factory, kubectl, tmp_path):
    log_path = tmp_path / 'requests.log'
    # Controller time 10x faster: a broken Deployment hits its 60 s progress deadline in 6 s. HTTPS
    # with a token required on every request, as a real API server would.
    sim = kubesim_factory(fail_image='broken', time_scale=10, request_log=log_path, tls=True, token=TOKEN)
    return Cluster(sim, kubectl.using(sim), log_path)


@pytest.fixture
def estate(cluster):
    """The cluster with the demo estate (scripts/demo-estate/estate.yaml) rolled out."""
    cluster.kubectl('apply', '-f', ESTATE, check=True)
    for workload in ('deployment/web', 'statefulset/db', 'daemonset/agent'):
        cluster.kubectl('-n', 'demo', 'rollout', 'status', workload, '--timeout=60s', check=True)
    return cluster


class Job:
    """One finished ansible-runner job: status, rc, events and the API requests it sent."""

    def __init__(self, result, requests):
        self.status = result.status
        self.rc = result.rc
        self.events = list(result.events)
        self.stats = result.stats or {}
        self.stdout = result.stdout.read()
        self.requests = requests

    def task_events(self, task, *kinds):
        return [e for e in self.events
                if e.get('event') in kinds and e.get('event_data', {}).get('task') == task]

    def failed_events(self):
        """Task failures that were not ignored (an ignored one is how the roles collect results).

        A failed loop item always fails its task too, and only the task's event says if it is ignored.
        """
        return [e for e in self.events
                if e.get('event') == 'runner_on_failed' and not e['event_data'].get('ignore_errors')]

    def writes(self):
        return [r for r in self.requests if r['method'] in WRITE_METHODS and not r['dry_run']]

    def __repr__(self):
        return f'<job {self.status} rc={self.rc}>\n{self.stdout[-5000:]}'


@pytest.fixture
def run_job(cluster, tmp_path, monkeypatch):
    # The job's settings come from its private data dir and arguments, as under AWX, not from the
    # repository's ansible.cfg.
    monkeypatch.delenv('ANSIBLE_CONFIG', raising=False)
    # ansible-runner runs the ansible-playbook it finds on PATH: this venv's.
    monkeypatch.setenv('PATH', f'{BIN}{os.pathsep}{os.environ.get("PATH", "")}')
    collections = tmp_path / 'collections' / 'ansible_collections' / 'kubeops'
    collections.mkdir(parents=True)
    (collections / 'rollout').symlink_to(ROOT)
    counter = iter(range(100))

    def run(playbook, extravars=None, cmdline=None, credential=None, env=None):
        before = len(cluster.requests())
        private_data_dir = tmp_path / f'job{next(counter)}'
        private_data_dir.mkdir()
        result = ansible_runner.run(
            private_data_dir=str(private_data_dir),
            project_dir=str(ROOT / 'playbooks'),
            playbook=playbook,
            inventory='localhost ansible_connection=local',
            extravars=extravars or {},
            cmdline=cmdline,
            envvars={
                # What an AWX credential sets: a kubeconfig file by default, or `credential`.
                **(credential or {'K8S_AUTH_KUBECONFIG': str(cluster.sim.kubeconfig)}),
                'ANSIBLE_COLLECTIONS_PATH': str(tmp_path / 'collections'),
                'ANSIBLE_NOCOLOR': '1',
                **(env or {}),
            },
            quiet=True,
        )
        return Job(result, cluster.requests()[before:])

    return run


UPGRADE_WEB = {'workload_kind': 'Deployment', 'workload_name': 'web', 'workload_namespace': 'demo',
               'container': 'web', 'change_cause': 'AWX job: web to 1.1'}


def test_upgrade_job_then_check_job(run_job, estate):
    job = run_job('upgrade.yml', dict(UPGRADE_WEB, image='registry.example.com/shop/web:1.1'))
    assert job.status == 'successful' and job.rc == 0, job
    assert job.failed_events() == [], job
    set_images = job.task_events('Release the new images', 'runner_on_ok')
    assert len(set_images) == 1 and set_images[0]['event_data']['res']['changed'] is True, job
    assert job.writes(), 'the upgrade job sent no write'
    assert estate.image('deployment/web') == 'registry.example.com/shop/web:1.1'
    assert estate.annotation('deployment/web', 'kubectl.kubernetes.io/restartedAt') is None

    # A check job (AWX job type "Check") for the next release: reports the change, writes nothing.
    check = run_job('upgrade.yml', dict(UPGRADE_WEB, image='registry.example.com/shop/web:1.2'),
                    cmdline='--check --diff')
    assert check.status == 'successful' and check.rc == 0, check
    assert check.failed_events() == [], check
    preview = check.task_events('Release the new images', 'runner_on_ok')
    assert len(preview) == 1, check
    res = preview[0]['event_data']['res']
    assert res['changed'] is True, check
    assert 'web:1.2' in json.dumps(res.get('diff')), 'the check job shows no diff of the image'
    assert check.requests, 'the check job sent no request at all'
    assert check.writes() == [], f'the check job wrote: {check.writes()}'
    assert estate.image('deployment/web') == 'registry.example.com/shop/web:1.1'
    # No rollout is waited for in a check job: nothing was started.
    assert check.task_events('Start a watch on each rollout', 'runner_on_ok', 'runner_item_on_ok') == []


def test_upgrade_job_with_home_unlike_the_password_file(run_job, estate, tmp_path):
    """Execution environment containers often run with a HOME that is not the user's home in the
    password file. The background watches must still be found, and a healthy rollout never rolled
    back because its watch could not be read."""
    home = tmp_path / 'ee-home'
    home.mkdir()
    job = run_job('upgrade.yml', dict(UPGRADE_WEB, image='registry.example.com/shop/web:1.3'),
                  env={'HOME': str(home)})
    assert job.status == 'successful' and job.rc == 0, job
    assert job.failed_events() == [], job
    assert estate.image('deployment/web') == 'registry.example.com/shop/web:1.3'


def test_broken_upgrade_job_rolls_back_and_fails(run_job, estate):
    job = run_job('upgrade.yml', {
        'workloads': [
            {'kind': 'Deployment', 'name': 'web', 'namespace': 'demo',
             'images': {'web': 'registry.example.com/shop/web:2.0-broken'}},
            {'kind': 'DaemonSet', 'name': 'agent', 'namespace': 'demo',
             'images': {'agent': 'registry.example.com/shop/agent:1.1'}},
        ],
        'rollout_timeout': 60,
    })
    assert job.status == 'failed' and job.rc != 0, job
    (release,) = job.task_events('Release the new images', 'runner_on_failed')
    outcomes = {w['name']: w['outcome'] for w in release['event_data']['res']['workloads']}
    # Atomic: the agent, healthy, is put back with the broken web.
    assert outcomes == {'web': 'rolled_back', 'agent': 'rolled_back'}, job
    assert release['event_data']['res']['changed'] is True
    # The release task fails the play itself, with its summary.
    fatal = job.failed_events()
    assert [e['event_data']['task'] for e in fatal] == ['Release the new images'], job
    msg = fatal[0]['event_data']['res']['msg']
    assert 'ROLLED BACK: Deployment demo/web, DaemonSet demo/agent' in msg and 'ImagePullBackOff' in msg, msg
    assert msg.count('ImagePullBackOff') == 1, msg  # each cause once
    # At AWX's verbosity (0) the job's output told the story as it went.
    for line in ('<localhost> Deployment demo/web: new images written',
                 '<localhost> waiting for 2 rollouts (up to 60 s): Deployment demo/web, DaemonSet demo/agent',
                 '<localhost> DaemonSet demo/agent: rolled out',
                 '<localhost> putting back Deployment demo/web, DaemonSet demo/agent',
                 '<localhost> DaemonSet demo/agent: put back to the template it had before the release'):
        assert line in job.stdout, (line, job)
    assert '<localhost> Deployment demo/web: not rolled out: ' in job.stdout, job
    # An early stop comes only after a probe saw the pull error, and said so at once (a rollout the
    # loaded machine kept busy past its probes ends on its deadline instead).
    web = [w for w in release['event_data']['res']['workloads'] if w['name'] == 'web'][0]
    if web['status']['reason'] == 'RolloutStuck':
        seen = r'<localhost> Deployment demo/web: ImagePullBackOff on 1 pod \(web-\S+\), '
        assert re.search(seen + r'stopping in 30 s unless it clears', job.stdout), job.stdout[-4000:]
    # Both are back.
    assert estate.image('deployment/web') == 'registry.example.com/shop/web:1.0'
    assert estate.image('daemonset/agent') == 'registry.example.com/shop/agent:1.0'


def test_upgrade_job_judged_by_analysis_checks_from_the_survey(run_job, estate):
    """The survey's textarea (YAML text) with an HTTP check: a release whose health endpoint answers
    503 is put back."""
    from tests.integration.metrics import MetricsServer
    server = MetricsServer()
    server.health_status, server.health_body = 503, 'degraded'
    try:
        analysis = ('interval: 1\nchecks:\n  - name: smoke\n    http:\n      url: %s/healthz\n'
                    '      body_regex: ok\n' % server.url)
        job = run_job('upgrade.yml', dict(UPGRADE_WEB, image='registry.example.com/shop/web:1.4',
                                          soak_seconds=1, analysis=analysis))
        assert job.status == 'failed' and job.rc != 0, job
        fatal = job.failed_events()
        assert [e['event_data']['task'] for e in fatal] == ['Release the new images'], job
        msg = fatal[0]['event_data']['res']['msg']
        assert 'ROLLED BACK: Deployment demo/web' in msg, msg
        assert 'check "smoke": GET %s/healthz answered 503, expected 200' % server.url in msg, msg
        assert ('/healthz', None) in server.requests
        assert estate.image('deployment/web') != 'registry.example.com/shop/web:1.4'
    finally:
        server.stop()


def test_canary_job_approved_by_verification_is_resumed_and_finished(run_job, estate, tmp_path):
    verify = tmp_path / 'verify-canary.yml'
    # The verification sees the Deployment paused with the canary pods of the new image running.
    verify.write_text(
        '- name: Would pausing change anything (no, when paused)\n'
        '  kubeops.rollout.rollout_pause:\n'
        '    kind: Deployment\n'
        '    name: "{{ rollout_upgrade_result.workloads[0].name }}"\n'
        '    namespace: "{{ rollout_upgrade_result.workloads[0].namespace }}"\n'
        '  check_mode: true\n'
        '  register: canary_pause\n'
        '- name: Read the paused canary\n'
        '  kubeops.rollout.rollout_history:\n'
        '    kind: Deployment\n'
        '    name: "{{ rollout_upgrade_result.workloads[0].name }}"\n'
        '    namespace: "{{ rollout_upgrade_result.workloads[0].namespace }}"\n'
        '  register: canary_history\n'
        '- name: The canary runs the new image\n'
        '  ansible.builtin.assert:\n'
        '    that:\n'
        '      - canary_pause is not changed\n'
        '      - (canary_history.workloads[0].revisions | selectattr("current") | first).images.web'
        ' == "registry.example.com/shop/web:1.1"\n'
        '      - (canary_history.workloads[0].revisions | selectattr("current") | first).replicas > 0\n')
    job = run_job('upgrade.yml', dict(UPGRADE_WEB, image='registry.example.com/shop/web:1.1', canary=True,
                                      canary_verify_tasks=str(verify)))
    assert job.status == 'successful', job
    assert job.failed_events() == [], job
    done = [e['event_data']['task'] for e in job.events
            if e.get('event') in ('runner_on_ok', 'runner_on_failed') and e['event_data'].get('task')]
    order = ['Canary | start', 'The canary runs the new image', 'Canary | promote']
    assert [t for t in done if t in order] == order, done
    assert 'Canary | roll back' not in done, done
    assert estate.image('deployment/web') == 'registry.example.com/shop/web:1.1'
    proc = estate.kubectl('-n', 'demo', 'get', 'deployment/web', '-o', 'json', check=True)
    web = json.loads(proc.stdout)
    assert not web['spec'].get('paused'), 'the approved canary was left paused'
    status = web['status']
    assert status.get('updatedReplicas') == web['spec']['replicas'] == status.get('availableReplicas'), status


def test_canary_job_rejected_by_verification_is_rolled_back(run_job, estate, tmp_path):
    verify = tmp_path / 'verify-canary.yml'
    verify.write_text(
        '- name: The canary runs an approved image\n'
        '  ansible.builtin.assert:\n'
        '    that: "\'-rc\' not in (rollout_upgrade_result.workloads[0].images.values() | join(\',\'))"\n'
        '    fail_msg: release candidates are not approved\n')
    job = run_job('upgrade.yml', dict(UPGRADE_WEB, image='registry.example.com/shop/web:1.1-rc1', canary=True,
                                      canary_verify_tasks=str(verify)))
    assert job.status == 'failed', job
    done = [e['event_data']['task'] for e in job.events
            if e.get('event') in ('runner_on_ok', 'runner_on_failed') and e['event_data'].get('task')]
    # Held once the new pods were Ready, verified (and rejected), aborted: put back, resumed.
    order = ['Canary | start', 'The canary runs an approved image', 'Canary | roll back']
    assert [t for t in done if t in order] == order, done
    fatal = job.failed_events()
    assert [e['event_data']['task'] for e in fatal] == ['The canary runs an approved image',
                                                          'Canary | fail the play'], job
    assert 'release candidates are not approved' in fatal[-1]['event_data']['res']['msg']
    (aborted,) = job.task_events('Canary | roll back', 'runner_on_ok')
    assert aborted['event_data']['res']['rolled_back'] == ['Deployment demo/web'], aborted
    assert estate.image('deployment/web') == 'registry.example.com/shop/web:1.0'
    proc = estate.kubectl('-n', 'demo', 'get', 'deployment/web', '-o', 'jsonpath={.spec.paused}', check=True)
    assert proc.stdout.strip() in ('', 'false'), 'the rejected canary was left paused'


@pytest.mark.parametrize('extravars, message', [
    ({'workloads': [{'kind': 'Job', 'name': 'web', 'images': {'web': 'x:1'}}]},
     'kind "Job" is not a kind rollouts apply to'),
    ({'workloads': [{'kind': 'Deployment', 'name': 'web'}]}, 'missing required arguments: images'),
    ({'workload_kind': 'Deployment', 'workload_name': 'web'}, 'Nothing to upgrade'),
])
def test_bad_extra_vars_fail_before_any_request(run_job, extravars, message):
    job = run_job('upgrade.yml', extravars)
    assert job.status == 'failed', job
    assert message in job.stdout, job
    assert job.requests == [], f'the job reached the API server: {job.requests}'


# ---- a canary split across jobs, as an AWX workflow runs it ------------------------------------
# canary_start.yml, then an approval node, then canary_promote.yml (approved) or canary_abort.yml
# (denied, or the promotion failed); the workflow's survey gives every job the same answers.
CANARY = 'kubeops.rollout/canary'
CANARY_WEB = dict(UPGRADE_WEB, image='registry.example.com/shop/web:1.1')


def read(estate, resource):
    return json.loads(estate.kubectl('-n', 'demo', 'get', resource, '-o', 'json', check=True).stdout)


def held(web):
    return bool(web['spec'].get('paused')) and CANARY in (web['metadata'].get('annotations') or {})


def test_canary_workflow_start_then_approved_promotion(run_job, estate):
    start = run_job('canary_start.yml', CANARY_WEB)
    assert start.status == 'successful' and start.failed_events() == [], start
    (started,) = start.task_events('Canary | start', 'runner_on_ok')
    assert started['event_data']['res']['changed'] is True, start
    web = read(estate, 'deployment/web')
    # Held after the job: paused, with the record, the canary pods of the new image running.
    assert held(web) and web['spec']['template']['spec']['containers'][0]['image'].endswith('web:1.1'), web
    assert 0 < web['status'].get('updatedReplicas', 0) < web['spec']['replicas'], web['status']

    promote = run_job('canary_promote.yml', dict(CANARY_WEB, soak_seconds=0))
    assert promote.status == 'successful' and promote.failed_events() == [], promote
    web = read(estate, 'deployment/web')
    assert not web['spec'].get('paused') and CANARY not in (web['metadata'].get('annotations') or {}), web
    status = web['status']
    assert status.get('updatedReplicas') == web['spec']['replicas'] == status.get('availableReplicas'), status
    # The start's change-cause stays in the history.
    annotations = web['metadata'].get('annotations') or {}
    assert annotations.get('kubernetes.io/change-cause') == 'AWX job: web to 1.1', annotations

    again = run_job('canary_promote.yml', dict(CANARY_WEB, soak_seconds=0))
    assert again.status == 'successful' and again.writes() == [], again


def test_canary_workflow_start_then_denied_abort(run_job, estate):
    start = run_job('canary_start.yml', dict(CANARY_WEB, image='registry.example.com/shop/web:1.2'))
    assert start.status == 'successful', start
    assert held(read(estate, 'deployment/web'))

    abort = run_job('canary_abort.yml', dict(CANARY_WEB, image='registry.example.com/shop/web:1.2'))
    assert abort.status == 'successful' and abort.failed_events() == [], abort
    (aborted,) = abort.task_events('Canary | roll back', 'runner_on_ok')
    assert aborted['event_data']['res']['rolled_back'] == ['Deployment demo/web'], aborted
    web = read(estate, 'deployment/web')
    assert not held(web) and not web['spec'].get('paused'), web
    assert estate.image('deployment/web') == 'registry.example.com/shop/web:1.0'


def test_canary_workflow_failed_promotion_puts_everything_back(run_job, estate):
    """A promotion judged by an analysis check that fails puts every workload back as it was before
    the canary (the record's template), record removed, and fails the job; an abort job after it (the
    workflow's failure path) finds no canary and changes nothing."""
    from tests.integration.metrics import MetricsServer
    server = MetricsServer()
    server.health_status, server.health_body = 503, 'degraded'
    try:
        assert run_job('canary_start.yml', CANARY_WEB).status == 'successful'
        analysis = 'interval: 1\nchecks:\n  - name: smoke\n    http:\n      url: %s/healthz\n' % server.url
        promote = run_job('canary_promote.yml', dict(CANARY_WEB, soak_seconds=1, analysis=analysis))
        assert promote.status == 'failed', promote
        assert [e['event_data']['task'] for e in promote.failed_events()] == ['Canary | promote'], promote
        res = promote.failed_events()[0]['event_data']['res']
        assert res['rolled_back'] == ['Deployment demo/web'] and 'analysis failed' in res['msg'], res
    finally:
        server.stop()
    web = read(estate, 'deployment/web')
    assert not held(web) and not web['spec'].get('paused'), web
    assert estate.image('deployment/web') == 'registry.example.com/shop/web:1.0'
    abort = run_job('canary_abort.yml', CANARY_WEB)
    assert abort.status == 'successful' and abort.writes() == [], abort
    (aborted,) = abort.task_events('Canary | roll back', 'runner_on_ok')
    assert aborted['event_data']['res']['unchanged'] == ['Deployment demo/web'], aborted


def test_canary_start_job_partitions_a_statefulset_by_canary_ordinals(run_job, estate):
    db = {'workload_kind': 'StatefulSet', 'workload_name': 'db', 'workload_namespace': 'demo',
          'container': 'db', 'image': 'registry.example.com/shop/db:1.1'}
    start = run_job('canary_start.yml', dict(db, canary_ordinals=1, canary_start_timeout=120))
    assert start.status == 'successful', start
    sts = read(estate, 'statefulset/db')
    assert sts['spec']['updateStrategy']['rollingUpdate']['partition'] == 1, sts['spec']
    images = {p['metadata']['name']: p['spec']['containers'][0]['image']
              for p in read(estate, 'pods')['items'] if p['metadata']['name'].startswith('db-')}
    assert images == {'db-0': 'registry.example.com/shop/db:1.0', 'db-1': 'registry.example.com/shop/db:1.1'}
    abort = run_job('canary_abort.yml', db)
    assert abort.status == 'successful', abort
    strategy = read(estate, 'statefulset/db')['spec']['updateStrategy']
    assert strategy.get('rollingUpdate', {}).get('partition', 0) == 0, strategy


def test_upgrade_job_takes_canary_ordinals_and_the_start_timeout(run_job, estate, tmp_path):
    verify = tmp_path / 'verify-canary.yml'
    verify.write_text(
        '- name: Both ordinals of db run the canary\n'
        '  ansible.builtin.assert:\n'
        '    that: rollout_upgrade_result.workloads[0].status.updated == 2\n')
    job = run_job('upgrade.yml', {'workload_kind': 'StatefulSet', 'workload_name': 'db',
                                  'workload_namespace': 'demo', 'container': 'db',
                                  'image': 'registry.example.com/shop/db:1.2', 'canary': True,
                                  'canary_verify_tasks': str(verify), 'canary_ordinals': 2,
                                  'canary_start_timeout': 120, 'soak_seconds': 0},
                  env={'ANSIBLE_INJECT_INVOCATION': 'true'})  # the task's arguments in its result (2.21+)
    assert job.status == 'successful' and job.failed_events() == [], job
    (started,) = job.task_events('Canary | start', 'runner_on_ok')
    assert started['event_data']['res']['invocation']['module_args']['timeout'] == 120, started
    assert estate.image('statefulset/db') == 'registry.example.com/shop/db:1.2'


# A key no playbook takes (namespace misspelt): each playbook hands the entries to its role as they
# are, and the role's argument specs refuse the key, naming the ones it takes.
MISSPELT = {'kind': 'Deployment', 'name': 'web', 'namspace': 'demo',
            'images': {'web': 'registry.example.com/shop/web:1.1'}}
TAKEN = {
    'upgrade.yml': 'change_cause, images, kind, name, namespace, to_revision',
    'rollback.yml': 'change_cause, images, kind, label_selectors, name, namespace, to_revision',
    'restart.yml': 'change_cause, images, kind, label_selectors, name, namespace, to_revision',
    'history.yml': 'change_cause, images, kind, label_selectors, name, namespace, to_revision',
}


@pytest.mark.parametrize('playbook', sorted(TAKEN))
def test_a_misspelt_workloads_key_fails_before_any_request(run_job, playbook):
    job = run_job(playbook, {'workloads': [MISSPELT]})
    assert job.status == 'failed' and job.rc != 0, job
    (fatal,) = job.failed_events()
    msg = fatal['event_data']['res']['msg']
    assert msg.startswith('Validation of arguments failed:\n'), msg
    assert f'workloads.namspace. Supported parameters include: {TAKEN[playbook]}.' in msg, msg
    assert job.requests == [], f'the job reached the API server: {job.requests}'


def test_one_list_of_workloads_serves_every_playbook(run_job, estate):
    """The keys of every playbook's entries in one list: each takes its own and ignores the others'."""
    workloads = [{'kind': 'Deployment', 'name': 'web', 'namespace': 'demo',
                  'images': {'web': 'registry.example.com/shop/web:1.1'}, 'change_cause': 'one list',
                  'to_revision': 1}]
    upgrade = run_job('upgrade.yml', {'workloads': workloads, 'soak_seconds': 0})
    assert upgrade.status == 'successful' and upgrade.failed_events() == [], upgrade
    assert estate.image('deployment/web') == 'registry.example.com/shop/web:1.1'
    assert estate.annotation('deployment/web', 'kubectl.kubernetes.io/restartedAt') is None

    history = run_job('history.yml', {'workloads': workloads})
    assert history.status == 'successful' and history.writes() == [], history
    assert 'Deployment demo/web: 2 revision(s), current 2' in history.stdout, history
    assert 'one list' in history.stdout, history

    restart = run_job('restart.yml', {'workloads': workloads})
    assert restart.status == 'successful' and restart.failed_events() == [], restart
    assert estate.annotation('deployment/web', 'kubectl.kubernetes.io/restartedAt')

    rollback = run_job('rollback.yml', {'workloads': workloads})
    assert rollback.status == 'successful' and rollback.failed_events() == [], rollback
    assert estate.image('deployment/web') == 'registry.example.com/shop/web:1.0'


def test_restart_job_serial_by_label(run_job, estate):
    job = run_job('restart.yml', {'workload_kind': 'StatefulSet', 'label_selector': 'tier=backend',
                                  'workload_namespace': 'demo', 'one_at_a_time': True})
    assert job.status == 'successful', job
    assert job.failed_events() == [], job
    restarted = job.task_events('Restart the workloads', 'runner_on_ok')
    assert len(restarted) == 1 and restarted[0]['event_data']['res']['changed'] is True, job
    outcome = restarted[0]['event_data']['res']['outcome']
    assert outcome['restarted'] == ['StatefulSet demo/db'] and outcome['failed'] == [], outcome
    assert estate.annotation('statefulset/db', 'kubectl.kubernetes.io/restartedAt')
    assert estate.annotation('deployment/web', 'kubectl.kubernetes.io/restartedAt') is None


def test_rollback_and_history_jobs(run_job, estate):
    # Revision 2 of web, made with kubectl (the upgrade job has its own test).
    estate.kubectl('-n', 'demo', 'annotate', 'deployment/web',
                   'kubernetes.io/change-cause=AWX job: web to 1.1', check=True)
    estate.kubectl('-n', 'demo', 'set', 'image', 'deployment/web', 'web=registry.example.com/shop/web:1.1',
                   check=True)
    estate.kubectl('-n', 'demo', 'rollout', 'status', 'deployment/web', '--timeout=60s', check=True)

    rollback = run_job('rollback.yml', {'workload_kind': 'Deployment', 'workload_name': 'web',
                                        'workload_namespace': 'demo', 'to_revision': 1})
    assert rollback.status == 'successful', rollback
    assert rollback.failed_events() == [], rollback
    undo = rollback.task_events('Roll back the workloads', 'runner_on_ok')
    assert undo and undo[0]['event_data']['res']['changed'] is True, rollback
    assert undo[0]['event_data']['res']['workloads'][0]['status']['reason'] == 'Complete', rollback
    assert estate.image('deployment/web') == 'registry.example.com/shop/web:1.0'
    # The rollback job ends with the history: revision 1 reused as 3, the upgrade kept as 2.
    assert 'Deployment demo/web: 2 revision(s), current 3' in rollback.stdout, rollback

    # Rolling back to the same revision again changes nothing.
    again = run_job('rollback.yml', {'workload_kind': 'Deployment', 'workload_name': 'web',
                                     'workload_namespace': 'demo', 'to_revision': 3})
    assert again.status == 'successful', again
    assert again.stats.get('changed', {}).get('localhost', 0) == 0, again
    assert again.writes() == [], again

    history = run_job('history.yml', {'workloads': [
        {'kind': 'Deployment', 'name': 'web', 'namespace': 'demo'},
        {'kind': 'DaemonSet', 'label_selectors': ['tier=node'], 'namespace': 'demo'},
    ]})
    assert history.status == 'successful', history
    assert history.writes() == []
    shown = history.task_events('Show the revisions of each workload', 'runner_item_on_ok')
    lines = {e['event_data']['res']['item']['name']: e['event_data']['res']['msg'] for e in shown}
    assert set(lines) == {'web', 'agent'}, history
    assert any(line.startswith('2 ') and 'AWX job: web to 1.1' in line for line in lines['web']), lines['web']
    assert any(line.startswith('3 *') and 'web:1.0' in line for line in lines['web']), lines['web']


def test_rc_upgrade_check_job_then_job(run_job, estate):
    extravars = {'rc_name': 'legacy', 'rc_namespace': 'demo',
                 'rc_image': 'registry.example.com/shop/legacy:1.1'}
    check = run_job('rc_upgrade.yml', extravars, cmdline='--check --diff')
    assert check.status == 'successful', check
    plan = check.task_events('Rolling update of the ReplicationController', 'runner_on_ok')
    assert len(plan) == 1, check
    assert plan[0]['event_data']['res']['changed'] is True and plan[0]['event_data']['res']['steps'], check
    assert check.writes() == [], f'the check job wrote: {check.writes()}'
    assert estate.image('replicationcontroller/legacy') == 'registry.example.com/shop/legacy:1.0'

    job = run_job('rc_upgrade.yml', dict(extravars, rc_update_period=0.2))
    assert job.status == 'successful', job
    assert job.failed_events() == [], job
    assert estate.image('replicationcontroller/legacy') == 'registry.example.com/shop/legacy:1.1'

    # The same image again, pulled anew (kubectl's --image-pull-policy): the survey's pull policy.
    repull = run_job('rc_upgrade.yml', dict(extravars, rc_update_period=0.2, rc_image_pull_policy='Always'))
    assert repull.status == 'successful', repull
    done = repull.task_events('Rolling update of the ReplicationController', 'runner_on_ok')
    assert done and done[0]['event_data']['res']['changed'] and done[0]['event_data']['res']['steps'], repull
    proc = estate.kubectl('-n', 'demo', 'get', 'replicationcontroller/legacy', '-o', 'json', check=True)
    container = json.loads(proc.stdout)['spec']['template']['spec']['containers'][0]
    assert container['image'] == 'registry.example.com/shop/legacy:1.1'
    assert container['imagePullPolicy'] == 'Always'



def test_bearer_token_credential_job(run_job, estate, tmp_path):
    """The variables AWX's "OpenShift or Kubernetes API Bearer Token" credential exports, no kubeconfig."""
    ca_cert = tmp_path / 'ca.crt'
    ca_cert.write_bytes(estate.sim.ca_pem)
    credential = {'K8S_AUTH_HOST': estate.sim.url, 'K8S_AUTH_API_KEY': TOKEN, 'K8S_AUTH_VERIFY_SSL': 'True',
                  'K8S_AUTH_SSL_CA_CERT': str(ca_cert)}
    job = run_job('history.yml', {'workload_kind': 'Deployment', 'workload_name': 'web',
                                  'workload_namespace': 'demo'}, credential=credential)
    assert job.status == 'successful', job
    shown = job.task_events('Show the revisions of each workload', 'runner_item_on_ok')
    assert len(shown) == 1 and shown[0]['event_data']['res']['msg'][0].startswith('Deployment demo/web'), job
    assert TOKEN not in job.stdout
    assert TOKEN not in json.dumps(job.events), 'the token appears in the job events'

    wrong = run_job('history.yml', {'workload_kind': 'Deployment', 'workload_name': 'web',
                                    'workload_namespace': 'demo'},
                    credential=dict(credential, K8S_AUTH_API_KEY='not-the-token'))
    assert wrong.status == 'failed', wrong
    assert '401 Unauthorized' in wrong.stdout, wrong
    assert 'not-the-token' not in wrong.stdout
