"""The apiextensions pieces that are pure logic: structural schemas (pruning, defaulting,
structurality), value validation and its Go renderings, the CRD's JSON types, printer columns'
JSONPath, the field manager on a schema, and fault targets naming custom resources."""

import pytest

from tests.kubesim.apiserver import fieldmanager
from tests.kubesim.apiserver.apiextensions import schema, schema_checks, types
from tests.kubesim.apiserver.apiextensions.validation import field_value, go_float, validate
from tests.kubesim.faults import FaultSpecError, parse_target
from tests.kubesim.machinery import jsonpath

SCHEMA = {
    'type': 'object',
    'properties': {
        'spec': {
            'type': 'object',
            'properties': {
                'replicas': {'type': 'integer', 'default': 1},
                'nested': {
                    'type': 'object',
                    'properties': {
                        'a': {'type': 'string', 'default': 'x'},
                        'b': {
                            'type': 'object',
                            'default': {},
                            'properties': {'c': {'type': 'integer', 'default': 7}},
                        },
                    },
                },
                'free': {
                    'type': 'object',
                    'x-kubernetes-preserve-unknown-fields': True,
                    'properties': {'known': {'type': 'object', 'properties': {'k': {'type': 'string'}}}},
                },
                'map': {
                    'type': 'object',
                    'additionalProperties': {
                        'type': 'object',
                        'properties': {'v': {'type': 'string', 'default': 'd'}},
                    },
                },
                'list': {
                    'type': 'array',
                    'items': {'type': 'object', 'properties': {'n': {'type': 'string'}}},
                },
                'embedded': {
                    'type': 'object',
                    'x-kubernetes-embedded-resource': True,
                    'x-kubernetes-preserve-unknown-fields': True,
                },
                'maybe': {'type': 'string', 'nullable': True},
                'never': {'type': 'string'},
            },
        }
    },
}


def test_pruning_reports_sorted_paths_and_keeps_meta_and_preserved_fields():
    obj = {
        'apiVersion': 'x/v1',
        'kind': 'K',
        'metadata': {'name': 'n'},
        'top': 1,
        'spec': {
            'zz': 1,
            'free': {'anything': [1], 'known': {'k': 'v', 'drop': 1}},
            'list': [{'n': 'a', 'x': 1}],
            'map': {'k1': {'v': 'a', 'y': 2}},
            'embedded': {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'p'}, 'spec': {}},
        },
    }
    pruned = schema.prune(obj, SCHEMA)
    assert pruned == ['spec.free.known.drop', 'spec.list[0].x', 'spec.map.k1.y', 'spec.zz', 'top']
    assert obj['spec']['free'] == {'anything': [1], 'known': {'k': 'v'}}
    assert obj['spec']['embedded']['metadata'] == {'name': 'p'} and obj['metadata'] == {'name': 'n'}


def test_defaults_apply_inside_objects_that_exist_and_inside_defaults():
    obj = {'spec': {'nested': {}, 'map': {'k': {}}, 'maybe': None, 'never': None}}
    schema.prune_nulls(obj, SCHEMA)
    schema.default(obj, SCHEMA)
    assert obj == {
        'spec': {'nested': {'a': 'x', 'b': {'c': 7}}, 'map': {'k': {'v': 'd'}}, 'maybe': None, 'replicas': 1}
    }
    empty = {}
    schema.default(empty, SCHEMA)
    assert empty == {}  # spec has no default: nothing below it is created


def test_structural_errors_in_the_api_servers_words():
    bad = {
        'type': 'object',
        'properties': {
            'spec': {'properties': {'x': {'type': 'string'}}},
            'list': {'type': 'array'},
            'metadata': {'type': 'object', 'properties': {'labels': {'type': 'object'}}},
            'odd': {'type': 'strnig'},
            'nested': {'type': 'object', 'anyOf': [{'type': 'string'}]},
        },
    }
    causes = schema_checks.validate_schema(bad, 'spec.versions[0].schema.openAPIV3Schema')
    texts = [f'{field}: {message}' for field, _reason, message in causes]
    root = 'spec.versions[0].schema.openAPIV3Schema'
    assert (
        f'{root}.properties[spec].type: Required value: must not be empty for specified object fields'
        in texts
    )
    assert f'{root}.properties[list].items: Required value: must be specified' in texts
    assert (
        f'{root}.properties[metadata]: Forbidden: must not specify anything other than name and '
        'generateName, but metadata is implicitly specified'
    ) in texts
    assert f'{root}.properties[nested].anyOf[0].type: Forbidden: must be empty to be structural' in texts
    assert (
        f'{root}.properties[odd].type: Unsupported value: "strnig": supported values: "array", "boolean", '
        '"integer", "number", "object", "string"'
    ) in texts
    assert schema_checks.validate_schema(SCHEMA, root) == []
    bad_default = {'type': 'object', 'properties': {'n': {'type': 'integer', 'default': 'x'}}}
    assert schema_checks.validate_schema(bad_default, root) == [
        (
            f'{root}.properties[n].default',
            'FieldValueTypeInvalid',
            'Invalid value: "string":  in body must be of type integer: "string"',
        )
    ]


def test_value_validation_messages_and_ratcheting():
    s = {
        'type': 'object',
        'required': ['a'],
        'properties': {
            'n': {'type': 'number', 'maximum': 1e6, 'exclusiveMinimum': True, 'minimum': 0},
            'i': {'type': 'integer', 'format': 'int32'},
            's': {'type': 'string', 'minLength': 2},
            'l': {'type': 'array', 'minItems': 1, 'items': {'type': 'string'}},
            'm': {'type': 'object', 'maxProperties': 1},
            'e': {'type': 'integer', 'enum': [1, 2]},
        },
    }
    errors = validate({'n': 2e6, 'i': 2**31, 's': 'x', 'l': [], 'm': {'a': 1, 'b': 2}, 'e': 3}, s)
    assert errors == [
        ('n', 'FieldValueInvalid', 'Invalid value: 2e+06: n in body should be less than or equal to 1e+06'),
        (
            '<nil>',
            'FieldValueInvalid',
            'Invalid value: "": Checked value must be of type integer with format int32 in i',
        ),
        ('s', 'FieldValueInvalid', 'Invalid value: "x": s in body should be at least 2 chars long'),
        ('l', 'FieldValueInvalid', 'Invalid value: 0: l in body should have at least 1 items'),
        ('m', 'FieldValueTooMany', 'Too many: 2: must have at most 1 item'),
        ('e', 'FieldValueNotSupported', 'Unsupported value: 3: supported values: "1", "2"'),
        ('a', 'FieldValueRequired', 'Required value'),
    ]
    assert validate({'n': 0}, s)[0] == (
        'n',
        'FieldValueInvalid',
        'Invalid value: 0: n in body should be greater than 0',
    )
    old = {'a': 1, 's': 'x'}
    assert validate({'a': 1, 's': 'x', 'e': 1}, s, old=old) == []  # the unchanged invalid `s` ratchets
    assert validate({'a': 1, 's': 'y'}, s, old=old)[0][0] == 's'


def test_go_renderings():
    assert [go_float(v) for v in (3.0, 2.5, 1e6, 123456.0, 1e-5, 0.0001)] == [
        '3',
        '2.5',
        '1e+06',
        '123456',
        '1e-05',
        '0.0001',
    ]
    assert field_value('a"b') == '"a\\"b"' and field_value({'b': 1, 'a': [True]}) == '{"a":[true],"b":1}'


def test_the_crds_types_round_trip_json_schema_props():
    crd = {
        'kind': 'CustomResourceDefinition',
        'apiVersion': 'apiextensions.k8s.io/v1',
        'metadata': {'name': 'a.b.c'},
        'spec': {
            'group': 'b.c',
            'names': {'plural': 'a', 'kind': 'A'},
            'scope': 'Cluster',
            'versions': [
                {
                    'name': 'v1',
                    'served': True,
                    'storage': True,
                    'schema': {
                        'openAPIV3Schema': {
                            'type': 'object',
                            'bogus': 1,
                            'maximum': 3.0,
                            'additionalProperties': False,
                            'items': {'type': 'string', 'ignored': 1},
                            'properties': {
                                'x': {'default': {'k': [1, 2.5]}, 'enum': [None, 'a'], 'unknown': True}
                            },
                        }
                    },
                }
            ],
        },
    }
    decoded, unknown = types.decode(crd)
    assert unknown == [
        'spec.versions[0].schema.openAPIV3Schema.bogus',
        'spec.versions[0].schema.openAPIV3Schema.properties.x.unknown',
    ]
    got = decoded['spec']['versions'][0]['schema']['openAPIV3Schema']
    assert got == {
        'type': 'object',
        'maximum': 3,
        'items': {'type': 'string'},
        'properties': {'x': {'default': {'k': [1, 2.5]}, 'enum': [None, 'a']}},
        'additionalProperties': False,
    }
    assert decoded['status'] == {
        'conditions': None,
        'acceptedNames': {'plural': '', 'kind': ''},
        'storedVersions': None,
    }
    with pytest.raises(
        types.DecodeError,
        match='json: cannot unmarshal string into Go struct field '
        'CustomResourceDefinitionVersion.spec.versions.served of type bool',
    ):
        types.decode({'spec': {'versions': [{'served': 'yes'}]}})


def test_jsonpath_of_printer_columns():
    obj = {
        'status': {'conditions': [{'type': 'A', 'status': 'False'}, {'type': 'Ready', 'status': 'True'}]},
        'metadata': {'labels': {'app.kubernetes.io/name': 'x'}},
        'spec': {'list': [1, 2]},
    }
    assert jsonpath.find('.status.conditions[?(@.type=="Ready")].status', obj) == ['True']
    assert jsonpath.find('.spec.list[*]', obj) == [1, 2] and jsonpath.find('.spec.list[1]', obj) == [2]
    assert jsonpath.find(".metadata.labels['app.kubernetes.io/name']", obj) == ['x']
    assert jsonpath.find('.spec.missing', obj) == []
    assert jsonpath.go_text({'b': 1, 'a': 'x'}) == 'map[a:x b:1]'


def test_the_field_manager_walks_a_schema():
    root = fieldmanager.SchemaType(
        {
            'type': 'object',
            'properties': {
                'spec': {
                    'type': 'object',
                    'properties': {
                        'ports': {
                            'type': 'array',
                            'x-kubernetes-list-type': 'map',
                            'x-kubernetes-list-map-keys': ['name'],
                            'items': {
                                'type': 'object',
                                'properties': {'name': {'type': 'string'}, 'port': {'type': 'integer'}},
                            },
                        },
                        'args': {'type': 'array', 'items': {'type': 'string'}},
                        'free': {'type': 'object', 'x-kubernetes-preserve-unknown-fields': True},
                    },
                }
            },
        },
        resource=True,
    )
    fields = fieldmanager.field_set(
        {
            'metadata': {'labels': {'a': 'b'}},
            'spec': {'ports': [{'name': 'http', 'port': 80}], 'args': ['x'], 'free': {'deep': {'x': 1}}},
        },
        root,
    )
    assert ('f:spec', 'f:ports', 'k:{"name":"http"}', 'f:port') in fields
    assert ('f:spec', 'f:args') in fields and ('f:spec', 'f:free', 'f:deep', 'f:x') in fields
    assert ('f:metadata', 'f:labels', 'f:a') in fields


def test_fault_targets_name_custom_resources_before_their_crd_exists():
    assert parse_target('example.com/widgets/default/w1') == ('example.com/widgets', 'default', 'w1')
    assert parse_target('example.com/clusterwidgets/w1') == ('example.com/clusterwidgets', '', 'w1')
    with pytest.raises(FaultSpecError):
        parse_target('nope/default/w1')
