"""The traffic_canary role and playbooks/traffic_canary.yml through ansible-playbook against kubesim:
the role's variables checked, its steps across two runs (an approval between), its rollback."""

import os
import subprocess

import pytest
import yaml

from ..conftest import BIN, CALLBACKS, ROOT
from .conftest import NEW, OLD

pytestmark = pytest.mark.integration


def role(**variables):
    return {'name': 'role', 'ansible.builtin.include_role': {'name': 'kubeops.rollout.traffic_canary'},
            'vars': variables}


BASE = {'traffic_canary_deployment': 'web', 'traffic_canary_images': {'app': NEW},
        'traffic_canary_route': 'web',
        'traffic_canary_stable_service': 'web-stable', 'traffic_canary_canary_service': 'web-canary',
        'traffic_canary_timeout': 30}


def test_the_role_takes_the_steps_across_runs_and_rolls_back(world, play):
    steps = [{'weight': 50, 'pause': 'next_run'}, {'weight': 100}]
    r = play(world.sim, [role(traffic_canary_steps=steps, **BASE),
                         {'name': 'fact',
                          'ansible.builtin.debug': {'var': 'traffic_canary_result.traffic.phase'}}])
    assert r.ok('fact')['traffic_canary_result.traffic.phase'] == 'paused'
    assert world.weights()['web-canary'] == 50
    r = play(world.sim, [role(traffic_canary_steps=steps, traffic_canary_recover='rollback', **BASE)])
    assert r.rc == 0, r.stdout[-2000:]
    assert world.weights()['web-canary'] == 0
    assert world.kube.get('Deployment', 'web-canary')['spec']['replicas'] == 0
    assert world.kube.get('Deployment', 'web')['spec']['template']['spec']['containers'][0]['image'] == OLD


def test_the_role_refuses_a_bad_step_before_any_request(world, play):
    r = play(world.sim, [role(traffic_canary_steps=[{'weight': 'lots'}], **BASE)])
    assert r.rc != 0
    assert 'traffic_canary_steps' in r.stdout and 'weight' in r.stdout
    assert world.kube.list('Deployment', selector='track=canary') == []


def test_the_playbook_promotes_on_its_second_run(world, tmp_path):
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ANSIBLE_CALLBACK_PLUGINS=str(CALLBACKS))
    extra = {'kubeconfig': str(world.sim.kubeconfig), 'workload_name': 'web', 'workload_namespace': 'default',
             'container': 'app', 'image': NEW, 'route': 'web',
             'steps': '[{weight: 30, pause: next_run}, {weight: 60}]'}  # text, as a survey answers
    (tmp_path / 'vars.yml').write_text(yaml.safe_dump(extra))
    cmd = [str(BIN / 'ansible-playbook'), str(ROOT / 'playbooks' / 'traffic_canary.yml'),
           '-e', '@' + str(tmp_path / 'vars.yml')]
    for weight in (30, 0):
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
        assert proc.returncode == 0, proc.stdout[-3000:]
        assert world.weights()['web-canary'] == weight
    assert world.kube.get('Deployment', 'web')['spec']['template']['spec']['containers'][0]['image'] == NEW
    assert world.errors() == []
