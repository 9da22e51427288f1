"""The playbooks given extra vars as AWX sends them (an integer question's answer as an integer, a text
question's as a string, an optional question left empty as ``""``) against kubesim: what reaches the
module is the answer as given (``0`` stays 0, ``false`` stays false), and only an unset or empty answer
takes the playbook's default."""

import json
import subprocess

import pytest

from ..bluegreen.conftest import Apps, bluegreen
from ..conftest import BIN, ROOT, Kube, recording_env, workload

pytestmark = pytest.mark.integration


def run_job(sim, tmp_path, playbook, extra_vars, *args):
    """``playbooks/<playbook>`` with ``extra_vars`` in a JSON file (-e @file, as ansible-runner passes a
    job's extra vars); the credential's kubeconfig in K8S_AUTH_KUBECONFIG."""
    n = len(list(tmp_path.glob('extra-*.json')))
    extra = tmp_path / f'extra-{n}.json'
    extra.write_text(json.dumps(extra_vars))
    out = tmp_path / f'results-{n}.json'
    env = recording_env(out)
    # Each task's arguments in its result (off by default from ansible-core 2.21): what reached it.
    env.update(ANSIBLE_INJECT_INVOCATION='true', K8S_AUTH_KUBECONFIG=str(sim.kubeconfig))
    proc = subprocess.run([str(BIN / 'ansible-playbook'), f'playbooks/{playbook}', '-e', f'@{extra}', *args],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert out.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(out.read_text()), proc


def module_args(results, task):
    assert task in results, sorted(results)
    return results[task]['invocation']['module_args']


APP = {'service': 'web', 'preview_service': 'web-preview', 'blue_deployment': 'web-blue',
       'green_deployment': 'web-green', 'workload_namespace': 'default'}


def test_bluegreen_answers_of_0_are_0_and_empty_answers_the_defaults(kubesim_factory, play, tmp_path):
    sim = kubesim_factory(ready_delay=0.1)
    Apps(sim.kubeconfig).create_app(replicas=1)
    play(sim, [bluegreen('switched', scale_down_delay_seconds=600, soak_seconds=0)]).ok('switched')
    task = 'kubeops.rollout.rollout_bluegreen : Bring the apps to finished'

    unset, _ = run_job(sim, tmp_path, 'bluegreen.yml', dict(APP, bluegreen_state='finished'))
    args = module_args(unset, task)
    assert (args['scale_down_delay_seconds'], args['soak_seconds'], args['fail_fast_seconds'],
            args['max_restarts'], args['atomic']) == (None, 10, 30, 0, True), args

    empty, _ = run_job(sim, tmp_path, 'bluegreen.yml', dict(
        APP, bluegreen_state='finished', scale_down_delay_seconds='', soak_seconds='',
        fail_fast_seconds='',
        max_restarts='', atomic=''))
    args = module_args(empty, task)
    assert (args['scale_down_delay_seconds'], args['soak_seconds'], args['fail_fast_seconds'],
            args['max_restarts'], args['atomic']) == (None, 10, 30, 0, True), args
    # Unset, finished keeps the time recorded at the switch (600 s away).
    assert empty[task]['apps'][0]['outcome'] == 'unchanged', empty[task]['apps']

    as_text, _ = run_job(sim, tmp_path, 'bluegreen.yml', dict(
        APP, bluegreen_state='finished', scale_down_delay_seconds='0', soak_seconds='0',
        fail_fast_seconds='0', atomic='false'))
    args = module_args(as_text, task)
    assert (args['scale_down_delay_seconds'], args['soak_seconds'], args['fail_fast_seconds'],
            args['atomic']) == (0, 0, 0, False), args
    assert as_text[task]['apps'][0]['outcome'] == 'scaled_down', as_text[task]['apps']

    as_integers, _ = run_job(sim, tmp_path, 'bluegreen.yml', dict(
        APP, bluegreen_state='finished', scale_down_delay_seconds=0, soak_seconds=0, fail_fast_seconds=0,
        atomic=False))
    args = module_args(as_integers, task)
    assert (args['scale_down_delay_seconds'], args['soak_seconds'], args['fail_fast_seconds'],
            args['atomic']) == (0, 0, 0, False), args


RELEASE = 'kubeops.rollout.rollout_upgrade : Release the new images'
UPGRADE = {'workload_kind': 'Deployment', 'workload_name': 'web', 'workload_namespace': 'default',
           'container': 'app', 'image': 'nginx:1.26'}


@pytest.mark.parametrize('answers, expected', [
    ({}, {'soak_seconds': 10, 'fail_fast_seconds': 30, 'max_restarts': 0, 'timeout': 300, 'rollback': True,
          'atomic': True}),
    ({'soak_seconds': '', 'fail_fast_seconds': '', 'max_restarts': '', 'rollout_timeout': '',
      'auto_rollback': '', 'atomic': ''},
     {'soak_seconds': 10, 'fail_fast_seconds': 30, 'max_restarts': 0, 'timeout': 300, 'rollback': True,
      'atomic': True}),
    ({'soak_seconds': 0, 'fail_fast_seconds': 0, 'max_restarts': 0, 'rollout_timeout': 60,
      'auto_rollback': 'false', 'atomic': False},
     {'soak_seconds': 0, 'fail_fast_seconds': 0, 'max_restarts': 0, 'timeout': 60, 'rollback': False,
      'atomic': False}),
], ids=['unset', 'empty', 'zero-and-false'])
def test_upgrade_answers_reach_the_module_as_given(kubesim_factory, tmp_path, answers, expected):
    sim = kubesim_factory(ready_delay=0.05)
    Kube(sim.kubeconfig).create_rolled_out([workload('Deployment', 'web', image='nginx:1.25', replicas=1)])
    results, proc = run_job(sim, tmp_path, 'upgrade.yml', dict(UPGRADE, **answers), '--check')
    args = module_args(results, RELEASE)
    assert {k: args[k] for k in expected} == expected, args
    assert results[RELEASE]['_status'] == 'ok', proc.stdout[-3000:]


@pytest.mark.parametrize('surge, unavailable', [(0, 1), ('0', '1'), (2, 0)])
def test_rc_upgrade_max_surge_0_stays_0(kubesim_factory, tmp_path, surge, unavailable):
    sim = kubesim_factory()
    results, _ = run_job(sim, tmp_path, 'rc_upgrade.yml', {
        'rc_name': 'web', 'rc_image': 'nginx:1.26', 'rc_max_surge': surge, 'rc_max_unavailable': unavailable,
        'rc_update_period': 0, 'rc_timeout': ''}, '--check')
    args = module_args(results, 'kubeops.rollout.rc_upgrade : Rolling update of the ReplicationController')
    assert (str(args['max_surge']), str(args['max_unavailable']), args['update_period'], args['timeout']) == (
        str(surge), str(unavailable), 0, 300), args


# Soaks by default: an image whose pods are Ready for a moment, then crash (kubesim: crash_after).
CRASH = {'crash_image': r'^crash:', 'crash_after': 1.0}


def test_bluegreen_default_soak_catches_a_preview_that_crashes_after_being_ready(kubesim_factory, tmp_path):
    sim = kubesim_factory(ready_delay=0.1, **CRASH)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=1)
    results, proc = run_job(sim, tmp_path, 'bluegreen.yml', dict(
        APP, bluegreen_state='prepared', container='app', image='crash:2'))
    r = results['kubeops.rollout.rollout_bluegreen : Bring the apps to prepared']
    assert r['_status'] == 'failed' and r['invocation']['module_args']['soak_seconds'] == 10, r.get('msg')
    assert 'restarted' in r['msg'] and 'during the soak' in r['msg'], r['msg']
    assert r['summary'][0].startswith('Preview not ready (put back): Service default/web'), r['summary']
    notes = [line for line in proc.stdout.splitlines() if line.startswith('<localhost> ')]
    assert '<localhost> Deployment default/web-green: preview pods Ready, soaking next' in notes, notes
    assert any(line.startswith('<localhost> Deployment default/web-green: not ready after the soak: ')
               for line in notes), notes
    assert not any(line.endswith(': rolled out') for line in notes), notes
    assert kube.get('Deployment', 'web-green')['spec']['replicas'] == 0  # put back


@pytest.mark.parametrize('answer, soak', [(None, 10), ('', 10), (0, 0), ('5', 5)])
def test_traffic_canary_soaks_as_upgrade_does_unless_told(kubesim_factory, tmp_path, answer, soak):
    from ..traffic.conftest import build
    sim = kubesim_factory(gateway_api=True, gateway_delay=0.05, ready_delay=0.05)
    build(Kube(sim.kubeconfig))
    answers = {'workload_name': 'web', 'workload_namespace': 'default', 'container': 'app',
               'image': 'nginx:1.26',
               'route': 'web', 'steps': '[{weight: 50}]', 'traffic_abort': 'false'}
    if answer is not None:
        answers['soak_seconds'] = answer
    results, proc = run_job(sim, tmp_path, 'traffic_canary.yml', answers, '--check')
    r = results['kubeops.rollout.traffic_canary : Release the new images as a canary measured in traffic']
    assert r['_status'] == 'ok', proc.stdout[-3000:]
    assert r['invocation']['module_args']['soak_seconds'] == soak


def test_traffic_canary_takes_a_router_and_a_destination_rule_as_survey_text(kubesim_factory, tmp_path):
    """The survey's Router and DestinationRule answers (text) reach the module as the router's name and a
    dict; an empty canary Service is no Service (subset level)."""
    from tests.support.routers.virtualservice import VirtualServiceSubsetCase
    from tests.support.traffic import deployment
    case = VirtualServiceSubsetCase()
    sim = kubesim_factory(ready_delay=0.05, **case.sim_options)
    kube = Kube(sim.kubeconfig)
    kube.create(deployment('web', 'stable', 2))
    case.build(kube, 'default', 'web')
    kube.rolled_out('Deployment', 'web')
    answers = {'workload_name': 'web', 'workload_namespace': 'default', 'container': 'app',
               'image': 'nginx:1.26', 'router': 'virtualservice', 'route': 'web', 'stable_service': 'web',
               'canary_service': '', 'destination_rule': '{name: web}', 'steps': '[{weight: 50}]'}
    results, proc = run_job(sim, tmp_path, 'traffic_canary.yml', answers, '--check')
    r = results['kubeops.rollout.traffic_canary : Release the new images as a canary measured in traffic']
    assert r['_status'] == 'ok', proc.stdout[-3000:]
    traffic = r['invocation']['module_args']['traffic']
    assert traffic['router'] == 'virtualservice' and traffic['canary_service'] is None
    assert traffic['destination_rule'] == {'name': 'web', 'stable_subset': 'stable',
                                           'canary_subset': 'canary'}
    assert r['traffic']['phase'] == 'promotion'  # check mode plans the steps up to the promotion
