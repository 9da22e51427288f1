"""kubectl with CustomResourceDefinitions and custom resources: apply a CRD and wait for it to be
established, apply custom resources (defaults applied, unknown fields pruned or refused), print
them with their printer columns, patch them (JSON and merge patches; strategic merge patch refused
as the API server refuses it), server-side apply, scale, and delete the CRD with its resources.
Meaningful against a real cluster too (each test uses its own API group)."""

import json

import pytest
import yaml

from .conftest import eventually

pytestmark = pytest.mark.conformance


def crd_manifest(group):
    return {
        'apiVersion': 'apiextensions.k8s.io/v1',
        'kind': 'CustomResourceDefinition',
        'metadata': {'name': f'widgets.{group}'},
        'spec': {
            'group': group,
            'scope': 'Namespaced',
            'names': {'plural': 'widgets', 'singular': 'widget', 'kind': 'Widget', 'shortNames': ['wdg']},
            'versions': [
                {
                    'name': 'v1',
                    'served': True,
                    'storage': True,
                    'subresources': {
                        'status': {},
                        'scale': {
                            'specReplicasPath': '.spec.replicas',
                            'statusReplicasPath': '.status.replicas',
                        },
                    },
                    'additionalPrinterColumns': [
                        {'name': 'Replicas', 'type': 'integer', 'jsonPath': '.spec.replicas'},
                        {'name': 'Size', 'type': 'string', 'jsonPath': '.spec.size'},
                        {'name': 'Mode', 'type': 'string', 'jsonPath': '.spec.options.mode', 'priority': 1},
                    ],
                    'schema': {
                        'openAPIV3Schema': {
                            'type': 'object',
                            'properties': {
                                'spec': {
                                    'type': 'object',
                                    'required': ['size'],
                                    'properties': {
                                        'replicas': {
                                            'type': 'integer',
                                            'minimum': 0,
                                            'maximum': 3,
                                            'default': 1,
                                        },
                                        'size': {'type': 'string', 'enum': ['small', 'large']},
                                        'options': {
                                            'type': 'object',
                                            'default': {},
                                            'properties': {'mode': {'type': 'string', 'default': 'fast'}},
                                        },
                                        'ports': {
                                            'type': 'array',
                                            'x-kubernetes-list-type': 'map',
                                            'x-kubernetes-list-map-keys': ['name'],
                                            'items': {
                                                'type': 'object',
                                                'required': ['name'],
                                                'properties': {
                                                    'name': {'type': 'string'},
                                                    'port': {'type': 'integer'},
                                                },
                                            },
                                        },
                                    },
                                },
                                'status': {'type': 'object', 'properties': {'replicas': {'type': 'integer'}}},
                            },
                        }
                    },
                }
            ],
        },
    }


@pytest.fixture
def widgets(kube):
    """A CRD of the test's own group, applied and established; yields (kube, group)."""
    group = f'{kube.namespace}.example.com'
    kube.apply(crd_manifest(group))
    kube('wait', '--for', 'condition=established', f'crd/widgets.{group}', '--timeout=30s')
    yield kube, group
    kube('delete', 'crd', f'widgets.{group}', '--ignore-not-found', '--wait=false', ok=None)


def widget(group, name, **spec):
    return {
        'apiVersion': f'{group}/v1',
        'kind': 'Widget',
        'metadata': {'name': name},
        'spec': {'size': 'small', **spec},
    }


def test_apply_a_crd_and_a_custom_resource_with_defaults_and_pruning(widgets):
    kube, group = widgets
    crd = kube.json('crd', f'widgets.{group}')
    assert crd['status']['acceptedNames']['kind'] == 'Widget'
    assert {c['type']: c['status'] for c in crd['status']['conditions']} == {
        'NamesAccepted': 'True',
        'Established': 'True',
    }
    proc = kube('apply', '-f', '-', input=yaml.safe_dump(widget(group, 'w1', bogus=1)), ok=False)
    assert (
        'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field '
        '"spec.bogus"'
    ) in proc.stderr
    proc = kube('apply', '--validate=warn', '-f', '-', input=yaml.safe_dump(widget(group, 'w1', bogus=1)))
    assert 'Warning: unknown field "spec.bogus"' in proc.stderr
    assert f'widget.{group}/w1 created' in proc.stdout
    got = yaml.safe_load(kube('get', f'widgets.{group}', 'w1', '-o', 'yaml').stdout)
    assert got['spec'] == {'options': {'mode': 'fast'}, 'replicas': 1, 'size': 'small'}
    assert got['metadata']['generation'] == 1
    proc = kube(
        'apply', '-f', '-', input=yaml.safe_dump(widget(group, 'w2', replicas=5, size='huge')), ok=False
    )
    assert (
        'spec.replicas: Invalid value: 5: spec.replicas in body should be less than or equal to 3'
        in proc.stderr
    )
    assert 'spec.size: Unsupported value: "huge": supported values: "small", "large"' in proc.stderr


def test_printer_columns_and_short_names(widgets):
    kube, group = widgets
    kube.apply(widget(group, 'w1', replicas=2))
    lines = kube('get', 'wdg').stdout.splitlines()
    assert lines[0].split() == ['NAME', 'REPLICAS', 'SIZE']
    assert lines[1].split() == ['w1', '2', 'small']
    wide = kube('get', f'widgets.{group}', '-o', 'wide').stdout.splitlines()
    assert wide[0].split() == ['NAME', 'REPLICAS', 'SIZE', 'MODE'] and wide[1].split()[-1] == 'fast'
    crds = kube('get', 'crd', f'widgets.{group}').stdout.splitlines()
    assert crds[0].split()[:3] == ['NAME', 'SCOPE', 'VERSIONS']
    assert crds[1].split()[:3] == [f'widgets.{group}', 'Namespaced', 'v1(storage)']


def test_json_and_merge_patches_work_and_strategic_merge_is_refused(widgets):
    kube, group = widgets
    kube.apply(widget(group, 'w1'))
    resource = f'widgets.{group}'
    kube('patch', resource, 'w1', '--type=merge', '-p', json.dumps({'spec': {'replicas': 2}}))
    kube(
        'patch',
        resource,
        'w1',
        '--type=json',
        '-p',
        json.dumps(
            [
                {'op': 'test', 'path': '/spec/replicas', 'value': 2},
                {'op': 'replace', 'path': '/spec/size', 'value': 'large'},
            ]
        ),
    )
    got = kube.json(resource, 'w1')
    assert (
        got['spec']['replicas'] == 2 and got['spec']['size'] == 'large' and got['metadata']['generation'] == 3
    )
    proc = kube(
        'patch',
        resource,
        'w1',
        '--type=json',
        '-p',
        json.dumps([{'op': 'test', 'path': '/spec/replicas', 'value': 3}]),
        ok=False,
    )
    assert 'The request is invalid' in proc.stderr  # the failed `test`: a 422
    for args in (['--type=strategic'], []):
        proc = kube('patch', resource, 'w1', *args, '-p', json.dumps({'spec': {'replicas': 3}}), ok=False)
        assert (
            'the body of the request was in an unknown format - accepted media types include: '
            'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml'
        ) in proc.stderr


def test_server_side_apply_and_scale(widgets):
    kube, group = widgets
    resource = f'widgets.{group}'
    first = widget(group, 'w1', ports=[{'name': 'http', 'port': 80}])
    kube('apply', '--server-side', '--field-manager=one', '-f', '-', input=yaml.safe_dump(first))
    second = widget(group, 'w1', ports=[{'name': 'https', 'port': 443}])
    kube('apply', '--server-side', '--field-manager=two', '-f', '-', input=yaml.safe_dump(second))
    got = json.loads(kube('get', resource, 'w1', '-o', 'json', '--show-managed-fields').stdout)
    assert [p['name'] for p in got['spec']['ports']] == ['http', 'https']
    managers = {m['manager']: m['operation'] for m in got['metadata']['managedFields']}
    assert managers == {'one': 'Apply', 'two': 'Apply'}
    clash = widget(group, 'w1', ports=[{'name': 'http', 'port': 8080}])
    proc = kube(
        'apply', '--server-side', '--field-manager=two', '-f', '-', input=yaml.safe_dump(clash), ok=False
    )
    assert 'conflict with "one"' in proc.stderr and '.spec.ports[name="http"].port' in proc.stderr
    kube('scale', resource, 'w1', '--replicas=3')
    assert kube.json(resource, 'w1')['spec']['replicas'] == 3
    proc = kube('scale', resource, 'w1', '--replicas=4', ok=False)
    assert 'spec.replicas in body should be less than or equal to 3' in proc.stderr


def test_deleting_the_crd_removes_its_resources(widgets):
    kube, group = widgets
    kube.apply(widget(group, 'w1'))
    kube.apply(widget(group, 'w2'))
    kube('delete', 'crd', f'widgets.{group}', '--timeout=60s')
    eventually(lambda: kube('get', 'crd', f'widgets.{group}', ok=None).returncode != 0, 'the CRD to go')
    proc = kube('get', f'widgets.{group}', ok=False)
    assert "the server doesn't have a resource type" in proc.stderr or 'NotFound' in proc.stderr


def test_kubectl_explain_reads_a_custom_resource_s_schema(widgets):
    """kubectl explain finds the kind's schema in the group-version's OpenAPI v3 document by its
    x-kubernetes-group-version-kind, as the CRD OpenAPI builder publishes it."""
    kube, group = widgets
    # The group has dots: the resource is named by --api-version (explain splits its argument at dots).
    out = kube('explain', 'widgets.spec', f'--api-version={group}/v1').stdout
    assert 'KIND:       Widget' in out and f'GROUP:      {group}' in out, out
    for field in ('replicas', 'size', 'options'):
        assert field in out, out
    out = kube('explain', 'widgets.spec.size', f'--api-version={group}/v1').stdout
    assert 'FIELD: size <string>' in out and 'ENUM' in out and 'small' in out, out
