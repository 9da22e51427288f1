"""Every role names a variable it was given with its prefix but does not know (a misspelt one), with
the closest one it knows, in a warning before any request; the facts a role sets itself are not
taken for unknown variables when it runs again. Real ansible-playbook runs against kubesim, its
request log telling which task sent what."""

import pytest

from ..conftest import Kube, caught, include, workload

pytestmark = pytest.mark.integration

CHECK = "Check the names of the role's variables"
WEB = [{'kind': 'Deployment', 'name': 'web'}]

# role: (its variables, the misspelt one, the one meant)
ROLES = {
    'rollout_upgrade': ({'rollout_upgrade_soak_seconds': 0,
                         'rollout_upgrade_workloads': [dict(WEB[0], images={'app': 'nginx:1.26'})]},
                        'rollout_upgrade_soak_second', 'rollout_upgrade_soak_seconds'),
    'rollout_rollback': ({'rollout_rollback_workloads': WEB, 'rollout_rollback_show_history': False},
                         'rollout_rollback_to_revison', 'rollout_rollback_to_revision'),
    'rollout_restart': ({'rollout_restart_workloads': WEB}, 'rollout_restart_timout',
                        'rollout_restart_timeout'),
    'rollout_wait': ({'rollout_wait_workloads': WEB}, 'rollout_wait_namepsace', 'rollout_wait_namespace'),
    'history_report': ({'history_report_workloads': WEB}, 'history_report_namspace',
                       'history_report_namespace'),
    'traffic_canary': ({'traffic_canary_deployment': 'web', 'traffic_canary_images': {'app': 'nginx:1.26'},
                        'traffic_canary_route': 'web', 'traffic_canary_stable_service': 'web-stable',
                        'traffic_canary_canary_service': 'web-canary',
                        'traffic_canary_steps': [{'weight': 10}]},
                       'traffic_canary_recovr', 'traffic_canary_recover'),
    'rc_upgrade': ({'rc_upgrade_name': 'front', 'rc_upgrade_image': 'app:2'}, 'rc_upgrade_max_surg',
                   'rc_upgrade_max_surge'),
}


def role_task_names(res, role):
    prefix = f'kubeops.rollout.{role} : '
    return [name[len(prefix):] for name in res.results
            if name.startswith(prefix) and 'Validating arguments' not in name]


@pytest.mark.parametrize('role', sorted(ROLES))
def test_a_misspelt_variable_is_a_warning_naming_the_one_meant_before_any_request(kubesim_factory, play,
                                                                                  role, tmp_path):
    log = tmp_path / 'requests.jsonl'
    sim = kubesim_factory(request_log=log)
    Kube(sim.kubeconfig).create_rolled_out([workload('Deployment', 'web')])
    known, misspelt, meant = ROLES[role]

    res = play(sim, caught(include(role, **known, **{misspelt: 60}), f'{role}_result'),
               extra_env={'KUBEOPS_REQUEST_LOG': str(log)})

    checked = res.ok(f'kubeops.rollout.{role} : {CHECK}')
    text = (f'role {role}: variable {misspelt} is not one of its variables and is ignored; '
            f'did you mean {meant}?')
    assert checked['warnings'] == [text], checked
    assert checked['unknown'] == [{'name': misspelt, 'closest': meant}] and checked['changed'] is False
    # ansible-playbook shows it (on stderr, as every warning).
    assert f'[WARNING]: {text}' in res.stdout + res.stderr, res.stderr[-3000:]
    # The role's first task, and it sent no request.
    assert role_task_names(res, role)[0] == CHECK, list(res.results)
    assert checked['_requests'] == [], checked['_requests']


def test_a_role_run_twice_warns_about_nothing(kubesim_factory, play):
    sim = kubesim_factory()
    Kube(sim.kubeconfig).create_rolled_out([workload('Deployment', 'web')])
    roles = ['rollout_restart', 'rollout_wait', 'history_report', 'rollout_upgrade']
    tasks = [include(role, **ROLES[role][0]) for role in roles]
    # The second run finds the facts the first one set (rollout_restart_result, rollout_restart_run, ...).
    res = play(sim, tasks + [dict(t, name=t['name'] + ' again') for t in tasks],
               extra_env={'ANSIBLE_INJECT_INVOCATION': 'true'})  # the result's invocation, from 2.21
    assert res.rc == 0, res.stdout[-3000:]
    assert '[WARNING]' not in res.stdout + res.stderr, res.stderr
    for role in roles:
        checked = res.ok(f'kubeops.rollout.{role} : {CHECK}')
        assert checked['unknown'] == [], checked
        assert f'{role}_result' in checked['invocation']['module_args']['variables'], checked


def test_a_name_like_none_of_the_roles_lists_them(kubesim_factory, play):
    sim = kubesim_factory()
    res = play(sim, [include('rollout_wait', rollout_wait_workloads=[], rollout_wait_xyz=1)])
    assert res.rc == 0, res.stdout[-3000:]
    (text,) = res.ok(f'kubeops.rollout.rollout_wait : {CHECK}')['warnings']
    assert text == ('role rollout_wait: variable rollout_wait_xyz is not one of its variables and is '
                    'ignored; its variables are rollout_wait_for_terminating, rollout_wait_namespace, '
                    'rollout_wait_timeout, rollout_wait_workloads'), text
