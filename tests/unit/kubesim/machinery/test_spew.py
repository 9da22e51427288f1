"""The pod-template hash kubesim's controllers give a template is the one kube-controller-manager
gives it: template_hashes.json holds templates with the hash Go computed for each (its `about` says
how), and kubesim must print and hash every one the same way."""

import json
import pathlib

import pytest

from tests.kubesim.machinery import spew
from tests.kubesim.controllers.common import compute_hash
from tests.kubesim.controllers.statefulset import StatefulSetController
from tests.kubesim.machinery.gotypes_table import TYPES
from tests.kubesim.machinery.quantity import go_parse_quantity, go_quantity_string, go_round_up
from tests.kubesim.machinery.spew_table import NAMED, STRUCTS

pytestmark = pytest.mark.unit

FACTS = json.loads((pathlib.Path(__file__).parent / 'template_hashes.json').read_text())
VECTORS = FACTS['cases']


@pytest.mark.parametrize('index', range(len(VECTORS)))
def test_hash_is_the_controllers(index):
    case = VECTORS[index]
    assert compute_hash(case['template'], case['collisionCount']) == case['hash']


@pytest.mark.parametrize('case', [c for c in VECTORS if 'printed' in c], ids=lambda c: c['hash'])
def test_printed_text_is_go_spews(case):
    assert spew.pod_template(case['template']) == case['printed']


@pytest.mark.parametrize('case', FACTS['statefulset_revisions'], ids=lambda c: c['name'])
def test_statefulset_revision_names_are_the_controllers(case):
    revision = StatefulSetController.build_revision(case['statefulset'], 1, case['collisionCount'])
    assert revision['metadata']['name'] == case['name']


def test_the_vectors_cover_what_the_printer_must_get_right():
    texts = [spew.pod_template(case['template']) for case in VECTORS]
    # both forms of a quantity, a cached text, an inlined struct, a pointer to an empty struct,
    # a negative and an absent collision count
    assert any('Dec:(*inf.Dec){unscaled:(big.Int)' in text for text in texts)
    assert any('s:(string)100m' in text for text in texts)
    inlined = 'EphemeralContainerCommon:(v1.EphemeralContainerCommon){Name:(string)dbg'
    empty = ('EmptyDir:(*v1.EmptyDirVolumeSource){Medium:(v1.StorageMedium) '
             'SizeLimit:(*resource.Quantity)<nil> ')
    assert any(inlined in text for text in texts)
    assert any(empty in text for text in texts)
    counts = {case['collisionCount'] for case in VECTORS}
    assert None in counts and -1 in counts and 0 in counts


def test_empty_lists_and_maps_print_as_nil_as_protobuf_decodes_them():
    with_empty = {'metadata': {'labels': {}},
                  'spec': {'containers': [{'name': 'a', 'args': []}], 'volumes': []}}
    without = {'metadata': {}, 'spec': {'containers': [{'name': 'a'}]}}
    assert spew.pod_template(with_empty) == spew.pod_template(without)
    assert 'Labels:(map[string]string)<nil>' in spew.pod_template(with_empty)
    # a pointer to an empty struct is not nil
    assert spew.pod_template({'spec': {'securityContext': {}}}) != spew.pod_template({'spec': {}})


def test_resource_lists_are_rounded_up_to_milli_units_other_quantities_are_not():
    def text(spec):
        return spew.pod_template({'spec': spec})
    rounded = text({'containers': [{'name': 'a', 'resources': {'limits': {'cpu': '1n'}}}]})
    assert 'cpu:{i:(resource.int64Amount){value:(int64)1 scale:(resource.Scale)-3}' in rounded
    kept = text({'volumes': [{'name': 'v', 'emptyDir': {'sizeLimit': '1n'}}]})
    assert 'value:(int64)1 scale:(resource.Scale)-9' in kept


@pytest.mark.parametrize('text, canonical, cached', [
    ('100m', '100m', '100m'), ('0.5', '500m', ''), ('1500m', '1500m', '1500m'), ('2000', '2k', ''),
    ('128Mi', '128Mi', ''), ('1.5Gi', '1536Mi', ''), ('+1', '+1', '+1'), ('1E3', '1E3', '1E3'),
    ('1000E', '1', ''), ('512Ki', '512Ki', ''), ('1023', '1023', '1023'),
])
def test_quantity_text_as_string_gives_it(text, canonical, cached):
    quantity = go_parse_quantity(text)
    assert (go_quantity_string(quantity), quantity.s) == (canonical, cached)


def test_round_up_goes_away_from_zero():
    assert go_quantity_string(go_round_up(go_parse_quantity('1n'), -3)) == '1m'
    assert go_quantity_string(go_round_up(go_parse_quantity('-1n'), -3)) == '-1m'
    assert go_quantity_string(go_round_up(go_parse_quantity('1.0001'), -3)) == '1001m'
    assert go_quantity_string(go_round_up(go_parse_quantity('12345678901234567890.5'), -3)) == \
        '12345678901234567890500m'


@pytest.mark.parametrize('bad', ['', '1x', '1.2.3', '--1', '1Mib'])
def test_quantity_errors(bad):
    with pytest.raises(ValueError):
        go_parse_quantity(bad)


def test_the_go_structs_agree_with_the_api_tables():
    """spew_table.py and gotypes_table.py describe the same structs: the same JSON fields in the same
    order, an inlined struct where the other has one."""
    compared = 0
    for name in STRUCTS:
        package, _, short = name.partition('.')
        if package != 'v1':
            continue
        api = TYPES.get(f'core.v1.{short}') or TYPES.get(f'meta.v1.{short}')
        if api is None:
            continue
        assert [field[2] for field in spew.fields(name)] == [field[0] for field in api], name
        compared += 1
    assert compared > 100


def test_every_type_the_printer_meets_is_known():
    def known(type_name):
        while type_name.startswith(('*', '[]')):
            type_name = type_name[1:] if type_name[0] == '*' else type_name[2:]
        if type_name.startswith('map['):
            key, value = spew._map_types(type_name)
            return known(key) and known(value)
        return type_name in STRUCTS or type_name in NAMED or type_name in {
            'string', 'bool', 'int', 'int32', 'int64', 'uint64', 'uint8', 'inf.Dec', 'time.Location'}
    for fields in STRUCTS.values():
        for field in fields:
            assert known(field[1]), field
