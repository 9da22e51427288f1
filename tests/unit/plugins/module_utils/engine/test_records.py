"""Unit tests of module_utils/engine/records.py (the one record codec and the seals), and of a Lease
that keeps seals for as long as a record needs them (against kubesim)."""

import json

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.engine import lease as lease_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records

from tests.support.kube import api_client

pytestmark = pytest.mark.unit


def obj(uid='u-1', name='web', text='{}'):
    return {'kind': 'Deployment', 'metadata': {'name': name, 'namespace': 'shop', 'uid': uid,
                                               'annotations': {'kubeops.rollout/release': text}}}


def test_encode_then_decode_is_the_record_with_its_version():
    text = records.encode({'id': 'r-1', 'b': [1, {'c': None}]})
    assert text == '{"b":[1,{"c":null}],"id":"r-1","v":%d}' % records.VERSION
    assert records.decode(text) == {'id': 'r-1', 'b': [1, {'c': None}], 'v': records.VERSION}


@pytest.mark.parametrize('text, why', [
    ('x' * (records.MAX_BYTES + 1), 'more than a record may hold'),
    ('[' * 10000 + ']' * 10000, 'nested more than 8 levels deep'),  # no RecursionError, no parse
    ('{"a":' * 9 + '1' + '}' * 9, 'nested more than 8 levels deep'),
    ('not json', 'not JSON'),
    ('[1]', 'not a JSON object'),
    (None, 'not text'),
])
def test_a_record_out_of_bounds_is_malformed_never_a_crash(text, why):
    with pytest.raises(records.Malformed) as e:
        records.decode(text)
    assert why in str(e.value)


def test_depth_counts_brackets_outside_strings_only():
    deep_in_a_string = json.dumps({'a': '[' * 50 + '{' * 50})
    assert records.decode(deep_in_a_string)['a'].startswith('[[')
    eight = '{"a":' * 7 + '[1]' + '}' * 7
    assert records.decode(eight)


def test_a_seal_binds_the_object_its_uid_the_annotation_and_the_exact_text():
    base = records.digest(obj(), 'kubeops.rollout/release', '{}')
    assert base != records.digest(obj(uid='u-2'), 'kubeops.rollout/release', '{}')  # recreated object
    assert base != records.digest(obj(name='api'), 'kubeops.rollout/release', '{}')  # copied elsewhere
    assert base != records.digest(obj(), 'kubeops.rollout/canary', '{}')
    assert base != records.digest(obj(), 'kubeops.rollout/release', '{ }')


def test_seals_keep_the_newest_two_and_drop_on_request():
    seals = records.with_seals({}, {'k': 'd1'})
    seals = records.with_seals(seals, {'k': 'd2', 'j': 'e1'})
    seals = records.with_seals(seals, {'k': 'd3'})
    assert seals == {'k': ['d3', 'd2'], 'j': ['e1']}
    assert records.with_seals(seals, {'k': None}) == {'j': ['e1']}


def test_unsealed_says_why_a_record_is_not_vouched_for():
    o = obj(text='{"id":"r-1"}')
    text = o['metadata']['annotations']['kubeops.rollout/release']
    assert 'does not exist' in records.unsealed(None, o, 'kubeops.rollout/release', text)
    seals = records.with_seals({}, {records.seal_key(o): records.digest(o, 'kubeops.rollout/release', text)})
    lease = {'metadata': {'name': 'kubeops-release-r-1', 'namespace': 'shop',
                          'annotations': {records.SEALS_ANNOTATION: records.seals_text(seals)}}}
    assert records.unsealed(lease, o, 'kubeops.rollout/release', text) is None
    assert 'not on its release\'s Lease shop/kubeops-release-r-1' in records.unsealed(
        lease, o, 'kubeops.rollout/release', '{"id":"r-1","images":{}}')


@pytest.mark.parametrize('value, name', [
    ('r-0123456789ab', 'kubeops-release-r-0123456789ab'),
    ('bg-abc', 'kubeops-release-bg-abc'),
    ('../kube-system', None), ('kube-system/kube-scheduler', None), ('', None), (7, None), ('A', None),
])
def test_a_lease_name_is_computed_from_a_release_id_never_taken_from_a_record(value, name):
    assert records.lease_name(value) == name


def test_the_way_out_is_a_kubectl_annotate_command():
    step = records.clear_command('Deployment', 'web', 'shop', 'kubeops.rollout/release')
    assert step == 'kubectl annotate deployment web -n shop kubeops.rollout/release-'


def test_a_lease_keeps_its_seals_while_a_record_needs_them(kubesim_factory):
    """Sealed when taken; handed back (no holder) while a seal is left; deleted with the last seal."""
    client = api_client(kubesim_factory(nodes=0))
    path = lease_mod.LEASES_PATH % 'default' + '/kubeops-release-r-1'
    first = lease_mod.Lease(client, 'default', 'kubeops-release-r-1', 'release r-1', 30, seals={'a': 'd1'})
    first.acquire(wait=False, timeout=0)
    first.seal({'b': 'e1'})
    assert records.seals_of(client.get(path)) == {'a': ['d1'], 'b': ['e1']}
    first.release(['a'])  # the record a is gone, b is left: the Lease stays, without a holder
    kept = client.get(path)
    assert records.seals_of(kept) == {'b': ['e1']} and not kept['spec'].get('holderIdentity')
    second = lease_mod.Lease(client, 'default', 'kubeops-release-r-1', 'release r-1', 30, seals={'b': 'e2'})
    assert second.acquire(wait=False, timeout=0) is None  # free at once: nobody holds it
    assert records.seals_of(client.get(path)) == {'b': ['e2', 'e1']}
    second.release(['b'])
    with pytest.raises(Exception) as e:
        client.get(path)
    assert getattr(e.value, 'status', None) == 404
