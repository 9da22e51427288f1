"""The traffic canary's names through ansible-playbook against kubesim: the old names (rollout_traffic's
stable and canary, the role's traffic_canary_abort, the playbook's traffic_abort) still work, each with
a deprecation warning, on every supported ansible-core; and one refusal - the canary of another
release - names what to set as the module, the role and the playbook each call it."""

import json
import os
import subprocess

import pytest

from tests.conftest import ansible_core

from ..conftest import BIN, CALLBACKS, ROOT
from .conftest import NEW, OLD, canary_task, traffic_task

pytestmark = pytest.mark.integration

DEPRECATIONS = {'ANSIBLE_DEPRECATION_WARNINGS': 'true'}
OLDER_VERSIONS = ('2.16', '2.17', '2.18')
BASE = {'traffic_canary_deployment': 'web', 'traffic_canary_images': {'app': NEW},
        'traffic_canary_route': 'web',
        'traffic_canary_stable_service': 'web-stable', 'traffic_canary_canary_service': 'web-canary',
        'traffic_canary_timeout': 30}
PAUSED = [{'weight': 25, 'pause': 'next_run'}, {'weight': 100}]
EXTRA = {'workload_name': 'web', 'workload_namespace': 'default', 'container': 'app', 'route': 'web',
         'steps': '[{weight: 25, pause: next_run}, {weight: 60}]'}


def role(title='role', **variables):
    return {'name': title, 'ansible.builtin.include_role': {'name': 'kubeops.rollout.traffic_canary'},
            'vars': dict(BASE, **variables)}


def output(res):
    # Ansible wraps long warnings: compare the words.
    return ' '.join((res.stdout + res.stderr).split())


def playbook(world, **extra):
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ANSIBLE_CALLBACK_PLUGINS=str(CALLBACKS), **DEPRECATIONS)
    variables = dict(EXTRA, kubeconfig=str(world.sim.kubeconfig), **extra)
    return subprocess.run([str(BIN / 'ansible-playbook'), str(ROOT / 'playbooks' / 'traffic_canary.yml'),
                           '-e', json.dumps(variables)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)


def test_rollout_traffic_s_old_option_names_work_with_a_deprecation_on_every_ansible_core(world, play):
    for version in ('venv',) + OLDER_VERSIONS:
        core = None if version == 'venv' else ansible_core(version)
        weight = 0  # the canary Service has no pods: its weight stays 0
        old = traffic_task('old names', weight)
        args = old['kubeops.rollout.rollout_traffic']
        args['stable'], args['canary'] = args.pop('stable_service'), args.pop('canary_service')
        res = play(world.sim, [old], extra_env=dict(DEPRECATIONS, ANSIBLE_INJECT_INVOCATION='true'),
                   ansible_core=core)
        r = res.ok('old names')
        assert r['weight'] == weight and world.weights()['web-canary'] == weight, version
        assert r['invocation']['module_args']['stable_service'] == 'web-stable', version
        text = output(res)
        for alias in ('stable', 'canary'):
            assert "Alias '%s' is deprecated" % alias in text, (version, text[-3000:])
        assert 'kubeops.rollout' in text and '3.0.0' in text, (version, text[-3000:])
    # The new names: no deprecation.
    res = play(world.sim, [traffic_task('new names', 0)], extra_env=DEPRECATIONS)
    assert res.ok('new names')['weight'] == 0
    assert 'is deprecated' not in output(res)


def test_the_refusal_names_the_option_of_the_module_the_role_and_the_playbook(world, play):
    play(world.sim, [role(traffic_canary_steps=PAUSED)]).ok('role')
    assert world.weights()['web-canary'] == 25
    other = {'app': 'nginx:9.9'}  # another release of web while the canary is held at step 1

    direct = play(world.sim, [canary_task('module', PAUSED, images=other)]).failed('module')
    assert 'carries the traffic canary of release' in direct['msg'] and ', step 1)' in direct['msg']
    assert 'or this one with recover: rollback to roll it back' in direct['msg'], direct['msg']
    assert direct['next_step'] == 'recover: rollback'

    res = play(world.sim, [role(traffic_canary_steps=PAUSED, traffic_canary_images=other)])
    from_role = res.failed('kubeops.rollout.traffic_canary : Release the new images as a canary measured '
                           'in traffic')
    assert 'or this one with traffic_canary_recover: rollback to roll it back' in from_role['msg'], \
        from_role['msg']
    assert from_role['next_step'] == 'traffic_canary_recover: rollback'

    proc = playbook(world, image='nginx:9.9')
    assert proc.returncode != 0
    text = ' '.join(proc.stdout.split())
    assert 'or this one with recover: rollback to roll it back' in text, text[-3000:]
    assert 'traffic_canary_recover' not in text
    # Nothing was written by the refusals: the canary is still held at its step.
    assert world.weights()['web-canary'] == 25


def test_the_role_s_traffic_canary_abort_still_rolls_back_with_a_deprecation(world, play):
    play(world.sim, [role(traffic_canary_steps=PAUSED)]).ok('role')
    res = play(world.sim, [role(traffic_canary_steps=PAUSED, traffic_canary_abort=True)],
               extra_env=DEPRECATIONS)
    assert res.rc == 0, res.stdout[-3000:]
    text = output(res)
    assert ('variable traffic_canary_abort is deprecated (still honoured) and goes away in kubeops.rollout '
            '3.0.0: use traffic_canary_recover: rollback instead') in text, text[-3000:]
    checked = res.ok("kubeops.rollout.traffic_canary : Check the names of the role's variables")
    assert checked['unknown'] == [] and checked['deprecated'] == [
        {'name': 'traffic_canary_abort', 'instead': 'traffic_canary_recover: rollback'}]
    assert world.weights()['web-canary'] == 0
    assert world.kube.get('Deployment', 'web-canary')['spec']['replicas'] == 0
    assert world.kube.get('Deployment', 'web')['spec']['template']['spec']['containers'][0]['image'] == OLD


def test_the_playbook_s_traffic_abort_still_rolls_back_with_a_deprecation_and_recover_without(world):
    for extra in ({'traffic_abort': True}, {'recover': 'rollback'}):
        proc = playbook(world, image=NEW)
        assert proc.returncode == 0, proc.stdout[-3000:]
        assert world.weights()['web-canary'] == 25
        proc = playbook(world, image=NEW, **extra)
        assert proc.returncode == 0, proc.stdout[-3000:]
        text = ' '.join((proc.stdout + proc.stderr).split())
        deprecated = ('variable traffic_abort is deprecated (still honoured) and goes away in '
                      'kubeops.rollout 3.0.0: use recover: rollback instead')
        assert (deprecated in text) == ('traffic_abort' in extra), (extra, text[-3000:])
        assert world.weights()['web-canary'] == 0, extra
        assert world.kube.get('Deployment', 'web-canary')['spec']['replicas'] == 0
