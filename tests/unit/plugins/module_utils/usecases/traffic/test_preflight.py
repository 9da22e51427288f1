"""What a traffic canary refuses before any write (usecases/traffic/preflight.py), against kubesim."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common import vocabulary
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.traffic import record as traffic_record

from tests.support.kube import read_log, writes
from tests.support.traffic import GW, service

from .conftest import SERVICES, run

pytestmark = pytest.mark.unit


def test_services_that_would_reach_the_other_track_are_refused_before_any_write(sim):
    sim.client.create(SERVICES, service('web-stable', {'app': 'web'}))  # selects the canary's pods too
    sim.client.create(SERVICES, service('web-canary', {'app': 'web', 'track': 'canary'}))
    result = run(sim.client)
    assert result.failed and result.message.startswith('release refused before any write')
    assert ("Service default/web-stable (stable_service) selects the canary's pods (labels "
            'app=web,track=canary; its selector app=web)') in result.message
    # The last write is the setup's (the canary Service): the release wrote nothing.
    assert writes(read_log(sim.log), dry_run=False)[-1]['path'] == SERVICES


def test_a_missing_route_and_service_are_named(sim):
    sim.client.create(SERVICES, service('web-stable', {'app': 'web', 'track': 'stable'}))
    sim.client.delete(GW.format(ns='default') + '/httproutes/web')
    result = run(sim.client)
    assert 'Service default/web-canary (canary_service): not found' in result.message
    assert 'HTTPRoute default/web: not found' in result.message


def test_the_canary_of_another_release_is_refused_naming_it_and_the_ways_out(sim):
    for name, track in (('web-stable', 'stable'), ('web-canary', 'canary')):
        sim.client.create(SERVICES, service(name, {'app': 'web', 'track': track}))
    other = traffic_record.record_text('r-other', {'app': 'nginx:9'}, 1, 'default/web', 'ci/1',
                                       '2026-01-01T00:00:00Z')
    stable = sim.client.get('/apis/apps/v1/namespaces/default/deployments/web')
    body = traffic_record.canary_body(stable, 'default', 0, {'app': 'nginx:9'}, 'track', other)
    sim.client.create('/apis/apps/v1/namespaces/default/deployments', body)
    result = run(sim.client)
    # The record keeps the step's index (1): the messages count steps from 1, as the progress lines do.
    assert ('Deployment default/web-canary carries the traffic canary of release r-other (started '
            '2026-01-01T00:00:00Z by ci/1, step 2)') in result.message
    assert 'recover: rollback' in result.message
    how = 'kubectl annotate deployment web-canary -n default kubeops.rollout/traffic-canary-'
    assert how in result.message
    # Called by a role, the same refusal names the role's variable.
    vocabulary.speak({'recover': 'traffic_canary_recover'})
    try:
        again = run(sim.client)
    finally:
        vocabulary.speak(None)
    assert 'this one with traffic_canary_recover: rollback to roll it back' in again.message
    assert again.fields['next_step'] == 'traffic_canary_recover: rollback'
