"""rollout_restart's own logic (plugins/modules/rollout_restart.py): the ``since`` option read before any
request, and the summary of what each workload's restart did; run through the controller runtime's real
argument validation (the tasks below fail before a connection is configured)."""

import pytest

from ansible_collections.kubeops.rollout.plugins.modules import rollout_restart
from ansible_collections.kubeops.rollout.plugins.plugin_utils.controller import ModuleExit, TaskContext

pytestmark = pytest.mark.unit


def run(module, args, check_mode=False):
    context = TaskContext(module.__name__.rsplit('.', 1)[1], args, check_mode, False, {}, 'localhost')
    with pytest.raises(ModuleExit) as exited:
        module.main(context.runtime)
    return exited.value.result


@pytest.mark.parametrize('since', ['yesterday', '2026-01-02 03:04:05Z', '2026-13-01T00:00:00Z',
                                   '2026-01-02T03:04:05', '1767323045'])
def test_since_must_be_rfc3339(since):
    result = run(rollout_restart, {'kind': ['Deployment'], 'name': 'web', 'since': since})
    assert result['failed'] is True
    assert result['msg'] == 'since must be an RFC 3339 time such as 2026-01-02T03:04:05Z, not "%s"' % since


def test_since_is_refused_with_configuration():
    result = run(rollout_restart, {'kind': ['Deployment'], 'name': 'web', 'since': '2026-01-02T03:04:05Z',
                                   'config_from_template': True})
    assert 'since cannot be combined with config_maps' in result['msg']


def test_restart_summary_sorts_each_workload_and_gives_reasons():
    def done(name, changed):
        return {'kind': 'Deployment', 'namespace': 'shop', 'name': name,
                'workload': 'Deployment shop/' + name, 'changed': changed}
    outcome = {'done': [done('a', True), done('b', False), done('c', True), done('d', False)],
               'failed': [], 'not_reached': []}
    entries = {'Deployment shop/a': {'restart_reason': 'ConfigMap/x changed',
                                     'config_objects': ['ConfigMap/x']},
               'Deployment shop/b': {'config_objects': ['ConfigMap/x']},
               'Deployment shop/c': {'recorded_only': True, 'config_objects': ['ConfigMap/x']},
               'Deployment shop/d': {'config_objects': []}}
    rollout_restart.summarize(True, '', False)(outcome, entries)
    assert outcome['restarted'] == ['Deployment shop/a'] and outcome['recorded'] == ['Deployment shop/c']
    assert outcome['unchanged'] == ['Deployment shop/b', 'Deployment shop/d'] and outcome['skipped'] == []
    assert outcome['reasons'] == {'Deployment shop/a': 'ConfigMap/x changed',
                                  'Deployment shop/b': 'configuration digest unchanged',
                                  'Deployment shop/c': 'configuration digest recorded, no restart',
                                  'Deployment shop/d': 'no ConfigMap or Secret to tie the restart to'}
    assert outcome['lines'] == [
        'Restarted: Deployment shop/a (ConfigMap/x changed)',
        'Recorded the configuration digest, no restart: Deployment shop/c (configuration digest recorded, '
        'no restart)',
        'Unchanged: Deployment shop/b (configuration digest unchanged), Deployment shop/d (no ConfigMap or '
        'Secret to tie the restart to)']
    since = {'done': [done('a', False)], 'failed': [], 'not_reached': []}
    rollout_restart.summarize(False, '2026-01-02T00:00:00Z', True)(
        since, {'Deployment shop/a': {'skipped': True}})
    assert since['lines'] == ['Would restart: none',
                              'Already restarted since 2026-01-02T00:00:00Z: Deployment shop/a']
    assert since['skipped'] == ['Deployment shop/a'] and since['reasons'] == {}
