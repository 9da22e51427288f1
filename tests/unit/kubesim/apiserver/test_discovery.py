"""Discovery documents built from the resource rows: the `storageVersionHash` of each stored
resource (apiserver endpoints/discovery/storageversionhash.go)."""

import base64
import hashlib

import pytest

from tests.kubesim.apiserver import discovery

pytestmark = pytest.mark.unit


def entries(group, version):
    return {e['name']: e for e in discovery.api_resource_list(group, version)['resources']}


@pytest.mark.parametrize('gvk, expected', [
    # Hashes a kube-apiserver lists in its discovery documents.
    (('', 'v1', 'Pod'), 'xPOwRZ+Yhw8='),
    (('', 'v1', 'Namespace'), 'Q3oi5N2YM8M='),
    (('apps', 'v1', 'Deployment'), '8aSe+NMegvE='),
])
def test_storage_version_hash_of_known_kinds(gvk, expected):
    assert discovery.storage_version_hash(*gvk) == expected


def test_hash_is_the_first_eight_bytes_of_the_sha256_of_group_version_kind():
    digest = hashlib.sha256(b'batch/v1/Job').digest()
    assert discovery.storage_version_hash('batch', 'v1', 'Job') == base64.b64encode(digest[:8]).decode()
    assert discovery.storage_version_hash('batch', 'v1', 'Job') != discovery.storage_version_hash(
        'batch', 'v1', 'CronJob')


def test_main_entries_carry_the_hash_subresources_do_not():
    core = entries('', 'v1')
    assert core['pods']['storageVersionHash'] == discovery.storage_version_hash('', 'v1', 'Pod')
    assert list(core['pods'])[-1] == 'storageVersionHash'  # the last field, as Go encodes APIResource
    for sub in ('pods/status', 'pods/log', 'pods/exec', 'namespaces/status'):
        assert 'storageVersionHash' not in core[sub]
    apps = entries('apps', 'v1')
    assert apps['deployments']['storageVersionHash'] == '8aSe+NMegvE='
    assert 'storageVersionHash' not in apps['deployments/scale']


def test_every_version_carries_the_storage_versions_hash():
    # autoscaling/v1 HorizontalPodAutoscalers are stored as autoscaling/v2.
    stored = discovery.storage_version_hash('autoscaling', 'v2', 'HorizontalPodAutoscaler')
    assert entries('autoscaling', 'v1')['horizontalpodautoscalers']['storageVersionHash'] == stored
    assert entries('autoscaling', 'v2')['horizontalpodautoscalers']['storageVersionHash'] == stored


def test_resources_without_storage_have_no_hash():
    reviews = entries('authorization.k8s.io', 'v1')
    assert reviews and all('storageVersionHash' not in e for e in reviews.values())
