"""The traffic canary strategy (usecases/traffic/canary.py) against kubesim, driven as rollout_release's
main drives it: what its preflight refuses before any write, and a record of another release."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common import vocabulary
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.wait_options import GateOptions
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases import strategies
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release import (
    targets as release_targets,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.traffic import record as traffic_record

from tests.support.kube import api_client, create_settled, read_log, writes
from tests.support.traffic import GW, NEW, OLD, deployment, gateway, route, service

pytestmark = pytest.mark.unit

SERVICES = '/api/v1/namespaces/default/services'
DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments'
LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases'


def image(obj):
    return obj['spec']['template']['spec']['containers'][0]['image']
TRAFFIC = {'route': {'name': 'web'}, 'stable_service': 'web-stable', 'canary_service': 'web-canary',
           'track_label': 'track', 'steps': [{'weight': 10, 'pause': 0, 'analysis': True}]}


@pytest.fixture
def sim(kubesim_factory, tmp_path):
    sim = kubesim_factory(gateway_api=True, ready_delay=0.02, request_log=tmp_path / 'requests.log')
    sim.log = tmp_path / 'requests.log'
    sim.client = api_client(sim)
    create_settled(sim.client, deployment('web', 'stable', 2))
    sim.client.create(GW.format(ns='default') + '/gateways', gateway())
    sim.client.create(GW.format(ns='default') + '/httproutes', route())
    return sim


def run(client, **options):
    opts = release_targets.ReleaseOptions(timeout=20, gates=GateOptions(fail_fast_seconds=1),
                                          traffic=dict(TRAFFIC), **options)
    targets = release_targets.build_targets([{'kind': 'Deployment', 'name': 'web', 'images': {'app': NEW}}],
                                            'default')
    return strategies.strategy(opts)(client, targets, opts).run()


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


def test_an_abort_after_a_killed_promotion_puts_the_promotion_back_too(sim, monkeypatch):
    """Killed while its promotion's release was judging the stable Deployment (its record and the
    new images on it): `recover: rollback` takes the traffic back, scales the canary down and puts
    the stable Deployment back from that release's sealed record; no record and no Lease is left."""
    from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.release import Release

    sim.client.create(SERVICES, service('web-stable', {'app': 'web', 'track': 'stable'}))
    sim.client.create(SERVICES, service('web-canary', {'app': 'web', 'track': 'canary'}))
    sim.client.create(SERVICES, service('web-legacy', {'app': 'legacy'}))

    def killed(self):
        raise SystemExit('killed')  # as SIGKILL: nothing more of this run happens

    monkeypatch.setattr(Release, 'gate', killed)
    with pytest.raises(SystemExit):
        run(sim.client)
    stable = sim.client.get(DEPLOYMENTS + '/web')
    assert image(stable) == NEW and 'kubeops.rollout/release' in stable['metadata']['annotations']
    monkeypatch.undo()
    result = run(sim.client, recover='rollback')
    assert not result.failed, result.message
    assert 'the promotion of Deployment default/web (interrupted after its release wrote it) was put ' \
        'back' in result.message
    stable = sim.client.get(DEPLOYMENTS + '/web')
    assert image(stable) == OLD and 'kubeops.rollout/release' not in stable['metadata']['annotations']
    canary = sim.client.get(DEPLOYMENTS + '/web-canary')
    assert canary['spec']['replicas'] == 0
    assert traffic_record.TRAFFIC_ANNOTATION not in (canary['metadata'].get('annotations') or {})
    assert [lease['metadata']['name'] for lease in sim.client.list(LEASES)['items']] == []
    # A second abort finds nothing left to do, and a new release of web is not refused.
    assert not run(sim.client, recover='rollback').failed
