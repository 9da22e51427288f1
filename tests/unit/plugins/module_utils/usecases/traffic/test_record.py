import json

import jsonpatch
import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.traffic import record as rec
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.record import (
    TRAFFIC_ANNOTATION,
)

pytestmark = pytest.mark.unit

STABLE = {
    'metadata': {'name': 'web', 'namespace': 'shop', 'labels': {'app': 'web'}},
    'spec': {'replicas': 4, 'selector': {'matchLabels': {'app': 'web', 'track': 'stable'}},
             'strategy': {'type': 'RollingUpdate'}, 'paused': True,
             'template': {'metadata': {'labels': {'app': 'web', 'track': 'stable'}},
                          'spec': {'containers': [{'name': 'app', 'image': 'web:1'}]}}},
}


@pytest.mark.parametrize('weight,replicas,want', [(0, 4, 0), (5, 4, 1), (25, 4, 1), (50, 4, 2), (100, 4, 4),
                                                  (10, 1, 1), (33, 10, 4)])
def test_replicas_for_a_weight(weight, replicas, want):
    assert rec.replicas_for(weight, replicas) == want


def test_the_canary_body_is_the_stable_template_on_the_canary_track_with_the_record():
    record = rec.record_text('r-1', {'app': 'web:2'}, 0, 'shop/web', 'me', 'now')
    body = rec.canary_body(STABLE, 'shop', 1, {'app': 'web:2'}, 'track', record)
    assert body['metadata'] == {'name': 'web-canary', 'namespace': 'shop',
                                'labels': {'app': 'web', 'track': 'canary'},
                                'annotations': {TRAFFIC_ANNOTATION: record}}
    assert body['spec']['selector'] == {'matchLabels': {'app': 'web', 'track': 'canary'}}
    assert body['spec']['template']['metadata']['labels'] == {'app': 'web', 'track': 'canary'}
    assert body['spec']['template']['spec']['containers'] == [{'name': 'app', 'image': 'web:2'}]
    assert body['spec']['strategy'] == {'type': 'RollingUpdate'} and 'paused' not in body['spec']
    assert rec.parse(body) == (json.loads(record), None)


def test_the_canary_patch_writes_template_replicas_and_record_guarded_and_removes_the_record_at_the_end():
    first = rec.record_text('r-1', {'app': 'web:2'}, 0, 'shop/web', 'me', 'now')
    canary = rec.canary_body(STABLE, 'shop', 1, {'app': 'web:2'}, 'track', first)
    canary['metadata']['generation'] = 2
    template = canary['spec']['template']
    second = rec.record_text('r-1', {'app': 'web:2'}, 1, 'shop/web', 'me', 'now')
    ops = rec.canary_patch(canary, template, 2, second)
    assert ops[0] == {'op': 'test', 'path': '/metadata/generation', 'value': 2}
    after = jsonpatch.apply_patch(canary, ops)
    assert after['spec']['replicas'] == 2 and rec.parse(after)[0]['step'] == 1
    assert rec.canary_patch(after, template, 2, second) == []  # in place: nothing to send
    # Only the runner or time differ: the same record.
    assert rec.canary_patch(after, template, 2, rec.record_text('r-1', {'app': 'web:2'}, 1, 'shop/web', 'x',
                                                                'later')) == []
    done = jsonpatch.apply_patch(after, rec.canary_patch(after, template, 0, None))
    assert done['spec']['replicas'] == 0 and TRAFFIC_ANNOTATION not in done['metadata']['annotations']
    assert rec.canary_patch(done, template, 0, None) == []


def test_a_record_that_does_not_parse_says_why():
    def obj(text):
        return {'metadata': {'annotations': {TRAFFIC_ANNOTATION: text}}}
    assert rec.parse({'metadata': {}}) == (None, None)
    assert rec.parse(obj('{'))[1] == 'it is not JSON'
    assert rec.parse(obj('{"id": "r"}'))[1] == 'it lacks the release id or the images'
    assert 'neither a step index' in rec.parse(obj('{"id": "r", "images": {}, "step": -1}'))[1]
