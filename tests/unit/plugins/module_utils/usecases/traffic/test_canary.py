"""The traffic canary strategy (usecases/traffic/canary.py) against kubesim, driven as rollout_release's
main drives it: a rollback after a killed promotion. (What its preflight refuses: test_preflight.py.)"""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.traffic import record as traffic_record

from tests.support.traffic import NEW, OLD, service

from .conftest import SERVICES, DEPLOYMENTS, LEASES, image, run

pytestmark = pytest.mark.unit


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
