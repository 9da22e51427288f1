"""Every module's documentation renders with ansible-doc and says what it needs."""

import json
import os
import subprocess

import pytest

from ..conftest import BIN, ROOT

pytestmark = pytest.mark.integration

MODULES = ['rollout_history', 'rollout_pause', 'rollout_restart', 'rollout_undo', 'rollout_status',
           'rollout_image']
CONNECTION = ['kubeconfig', 'context', 'host', 'api_key', 'username', 'password', 'validate_certs', 'ca_cert',
              'client_cert', 'client_key', 'proxy', 'no_proxy', 'proxy_headers', 'impersonate_user',
              'impersonate_groups']


def test_ansible_doc_renders_every_module():
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / 'ansible.cfg'))
    names = [f'kubeops.rollout.{m}' for m in MODULES]
    waiting = names + ['kubeops.rollout.rollout_release']
    proc = subprocess.run([str(BIN / 'ansible-doc'), '-j', *waiting], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    docs = json.loads(proc.stdout)
    for name in names:
        doc = docs[name]['doc']
        options = doc['options']
        assert set(CONNECTION + ['kind', 'name', 'label_selectors', 'namespace']) <= set(options), name
        # any of kubectl's spellings: no choices list, the description names the three kinds
        assert 'choices' not in options['kind'] and 'spellings' in ' '.join(options['kind']['description'])
        assert options['kind'].get('default') == (['Deployment'] if name.endswith('pause') else None)
        assert options['kind']['type'] == 'list'  # one kind or several, as kubectl's deploy,sts
        assert options['validate_certs']['aliases'] == ['verify_ssl']
        assert doc['version_added'] == '0.1.0'
        assert any('PyYAML' in r for r in doc['requirements'])
        assert not any('urllib3' in r for r in doc['requirements'])  # HTTP(S): the standard library
        assert any('RBAC' in n for n in doc['notes']), f'{name} does not list the RBAC verbs it needs'
        assert docs[name]['examples'].strip()
        assert 'workloads' in docs[name]['return']
        if name.endswith(('pause', 'restart', 'undo', 'image')):
            assert options['wait']['default'] is False
    assert docs['kubeops.rollout.rollout_status']['doc']['options']['wait']['default'] is True
    # One name per idea: every module that waits calls its deadline timeout, with wait_timeout as
    # another name for it.
    for name in waiting:
        if name.endswith('history'):  # reads only: no wait
            continue
        timeout = docs[name]['doc']['options']['timeout']
        assert timeout['default'] == 300 and timeout['aliases'] == ['wait_timeout'], (name, timeout)
    every = {o for d in docs.values() for o in d['doc']['options']}
    assert 'wait_timeout' not in every
