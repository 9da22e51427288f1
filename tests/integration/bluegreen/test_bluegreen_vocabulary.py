"""Blue/green's old names through ansible-playbook against kubesim: the module's scale_down_delay, the
role's rollout_bluegreen_scale_down_delay and the playbook's scale_down_delay still set the delay,
each with a deprecation warning; and a refusal names the state to run as each caller knows it."""

import json
import os
import subprocess

import pytest

from ..conftest import BIN, ROOT
from .conftest import Apps, app, bluegreen

pytestmark = pytest.mark.integration

DEPRECATIONS = {'ANSIBLE_DEPRECATION_WARNINGS': 'true'}
BARE = app(images=False)
ROLE = {'rollout_bluegreen_apps': [app()], 'rollout_bluegreen_timeout': 30,
        'rollout_bluegreen_fail_fast_seconds': 5}


def words(text):
    return ' '.join(text.split())


def role(title, **variables):
    return {'name': title, 'ansible.builtin.include_role': {'name': 'kubeops.rollout.rollout_bluegreen'},
            'vars': dict(ROLE, **variables)}


def test_the_module_s_scale_down_delay_sets_the_delay_with_a_deprecation(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    Apps(sim.kubeconfig).create_app(replicas=1)
    res = play(sim, [bluegreen('switched', scale_down_delay=600), bluegreen('finished', BARE)],
               extra_env=DEPRECATIONS)
    res.ok('switched')
    finished = res.ok('finished')
    assert finished['changed'] is False, finished  # 600 s to wait: nothing scaled down yet
    assert "Alias 'scale_down_delay' is deprecated" in words(res.stdout + res.stderr)


def test_the_role_s_old_variable_sets_the_delay_and_a_refusal_names_the_role_s_state(kubesim_factory, play):
    sim = kubesim_factory(ready_delay=0.05)
    Apps(sim.kubeconfig).create_app(replicas=1)
    res = play(sim, [role('switch', rollout_bluegreen_state='switched',
                          rollout_bluegreen_scale_down_delay=600),
                     role('finish', rollout_bluegreen_state='finished')], extra_env=DEPRECATIONS)
    assert res.rc == 0, res.stdout[-3000:]
    text = words(res.stdout + res.stderr)
    assert ('variable rollout_bluegreen_scale_down_delay is deprecated (still honoured) and goes away in '
            'kubeops.rollout 3.0.0: use rollout_bluegreen_scale_down_delay_seconds instead') in text, \
        text[-3000:]
    web = Apps(sim.kubeconfig).get('Deployment', 'web-blue')
    assert web['spec']['replicas'] == 1  # the old color waits for its 600 s
    # Preparing the next version over the old color's pods is refused, naming the role's variable.
    res = play(sim, [role('prepare', rollout_bluegreen_state='prepared',
                          rollout_bluegreen_apps=[app(images={'app': 'nginx:1.27'})])])
    failed = res.failed('kubeops.rollout.rollout_bluegreen : Bring the apps to prepared')
    assert 'Run rollout_bluegreen_state: finished first' in failed['msg'], failed['msg']
    assert failed['next_step'] == 'rollout_bluegreen_state: finished'


def test_the_playbook_s_old_extra_var_sets_the_delay_with_a_deprecation(kubesim_factory):
    sim = kubesim_factory(ready_delay=0.05)
    kube = Apps(sim.kubeconfig)
    kube.create_app(replicas=1)
    answers = {'service': 'web', 'preview_service': 'web-preview', 'blue_deployment': 'web-blue',
               'green_deployment': 'web-green', 'container': 'app', 'image': 'nginx:1.26',
               'workload_namespace': 'default', 'kubeconfig': str(sim.kubeconfig), 'fail_fast_seconds': 5,
               'bluegreen_state': 'switched', 'scale_down_delay': 600}
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1', **DEPRECATIONS)
    proc = subprocess.run([str(BIN / 'ansible-playbook'), str(ROOT / 'playbooks' / 'bluegreen.yml'),
                           '-e', json.dumps(answers)], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:]
    text = words(proc.stdout + proc.stderr)
    assert ('variable scale_down_delay is deprecated (still honoured) and goes away in kubeops.rollout '
            '3.0.0: use scale_down_delay_seconds instead') in text, text[-3000:]
    record = json.loads(kube.service('web')['metadata']['annotations']['kubeops.rollout/bluegreen'])
    assert record['scaleDownAt'] > record['switchedAt']
