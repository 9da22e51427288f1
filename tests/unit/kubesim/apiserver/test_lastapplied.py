"""The last-applied manager and updater on plain objects: which conflicts an apply by `kubectl`
may take over, and the annotation it leaves."""

import json

import pytest

from tests.kubesim.apiserver import fieldmanager, lastapplied

pytestmark = pytest.mark.unit

CM = 'core.v1.ConfigMap'


def configmap(data, last_applied=None):
    meta = {'name': 's', 'namespace': 'ns'}
    obj = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': meta, 'data': data}
    if last_applied is not None:
        obj['metadata']['annotations'] = {lastapplied.LAST_APPLIED: json.dumps(last_applied)}
    return obj


def created_by_client_side_apply(data):
    config = configmap(data)
    live = configmap(data, last_applied=config)
    live['metadata']['managedFields'] = fieldmanager.update(None, live, CM, 'kubectl-client-side-apply', 'v1')
    return live


def test_kubectl_takes_over_the_fields_the_annotation_still_holds():
    live = created_by_client_side_apply({'a': '1', 'b': '2'})
    config = configmap({'a': '1', 'b': '3'})
    with pytest.raises(fieldmanager.Conflicts):
        fieldmanager.apply(live, config, CM, 'kubectl', 'v1', False)
    merged = lastapplied.apply(live, config, CM, 'kubectl', 'v1', False)
    assert merged['data'] == {'a': '1', 'b': '3'}
    assert merged['metadata']['annotations'][lastapplied.LAST_APPLIED] == (
        '{"apiVersion":"v1","data":{"a":"1","b":"3"},"kind":"ConfigMap","metadata":{"name":"s","namespace":"ns"}}\n')


def test_a_field_changed_since_and_other_managers_still_conflict():
    live = created_by_client_side_apply({'a': '1', 'b': '2'})
    changed = json.loads(json.dumps(live))
    changed['data']['b'] = 'patched'
    changed['metadata']['managedFields'] = fieldmanager.update(live, changed, CM, 'kubectl-patch', 'v1')
    with pytest.raises(fieldmanager.Conflicts) as err:
        lastapplied.apply(changed, configmap({'a': '1', 'b': '3'}), CM, 'kubectl', 'v1', False)
    assert [(key[0], fieldmanager.path_text(path)) for key, path in err.value.conflicts] == [
        ('kubectl-patch', '.data.b')]
    with pytest.raises(fieldmanager.Conflicts):
        lastapplied.apply(live, configmap({'a': '1', 'b': '3'}), CM, 'deployer', 'v1', False)


def test_the_annotation_of_another_version_gives_no_pass():
    live = created_by_client_side_apply({'a': '1', 'b': '2'})
    other = {**configmap({'a': '1', 'b': '2'}), 'apiVersion': 'v2'}
    live['metadata']['annotations'][lastapplied.LAST_APPLIED] = json.dumps(other)
    with pytest.raises(fieldmanager.Conflicts):
        lastapplied.apply(live, configmap({'a': '1', 'b': '3'}), CM, 'kubectl', 'v1', False)


def test_an_update_of_managed_fields_alone_keeps_the_ones_sent():
    live = created_by_client_side_apply({'a': '1'})
    sent = json.loads(json.dumps(live))
    [entry] = sent['metadata']['managedFields']
    sent['metadata']['managedFields'] = [{**entry, 'manager': 'kubectl', 'operation': 'Apply'}]
    assert fieldmanager.update(live, sent, CM, 'kubectl', 'v1') == sent['metadata']['managedFields']


def test_a_map_whose_entries_are_still_applied_is_not_pruned():
    live = configmap({'a': '1', 'b': '2'})
    paths = {('f:data',), ('f:data', 'f:a'), ('f:data', 'f:b')}
    tree = fieldmanager.to_fields_v1(paths)
    live['metadata']['managedFields'] = [{'manager': 'kubectl', 'operation': 'Apply', 'apiVersion': 'v1',
                                          'fieldsType': 'FieldsV1', 'fieldsV1': tree}]
    merged = fieldmanager.apply(live, configmap({'a': '1'}), CM, 'kubectl', 'v1', False)
    assert merged['data'] == {'a': '1'}
