"""kubesim's istio: the webhook's checks (istio/istio pkg/config/validation) and how a destination's
host resolves (pilot/pkg/model/config.go ResolveShortnameToFQDN), without a server."""

import pytest

from tests.kubesim.istio import controller, validation

pytestmark = pytest.mark.unit


def dest(host, weight=None, subset=None):
    out = {'destination': {'host': host}}
    if subset is not None:
        out['destination']['subset'] = subset
    if weight is not None:
        out['weight'] = weight
    return out


@pytest.mark.parametrize(
    'route, errors',
    [
        ([dest('a', 90), dest('b', 10)], []),
        ([dest('a', 7), dest('b', 500)], []),  # totals other than 100 are fine
        ([dest('a')], []),  # one destination: its weight does not matter
        ([dest('a'), dest('b')], ['total destination weight = 0']),
        ([dest('a', -1), dest('b', 1)], ['weight -1 < 0', 'total destination weight = 0']),
        (
            [dest('a', 1, 'v1'), dest('b', 1, 'V2'), dest('c', 1, '')],
            ['subset name is invalid: V2', 'subset name cannot be empty'],
        ),
        ([dest('*', 1), dest('b.c', 1)], ['invalid destination host *']),
        ([{'weight': 1}], ['destination is required']),
    ],
)
def test_route_destinations(route, errors):
    assert [e for e in validation.route_destinations(route) if e] == errors


def test_a_virtual_service_s_own_checks():
    def errors(spec):
        return [e for e in validation.virtual_service(spec) if e]

    ok = {'hosts': ['web'], 'http': [{'route': [dest('web')]}]}
    assert errors(ok) == []
    assert errors({'hosts': ['web']}) == ['http, tcp or tls must be provided in virtual service']
    assert errors({'hosts': ['web', 'web'], 'http': ok['http']}) == [
        'duplicate hosts in virtual service: web & web'
    ]
    assert errors({'hosts': ['*'], 'http': ok['http']}) == [
        'wildcard host * is not allowed for virtual services bound to the mesh gateway'
    ]
    assert errors({'hosts': ['*'], 'gateways': ['public'], 'http': ok['http']}) == []
    assert errors({'hosts': ['web'], 'http': [{'name': 'x'}]}) == [
        'HTTP route, redirect or direct_response is required'
    ]
    assert errors({'hosts': ['web'], 'http': [{'redirect': {'uri': '/'}, 'route': [dest('web')]}]}) == [
        'HTTP route cannot contain both route and redirect'
    ]
    headers = {
        'hosts': ['web'],
        'http': [
            {'match': [{'headers': {'x': {'prefix': ''}, 'y z': {'exact': 'a'}}}], 'route': [dest('web')]}
        ],
    }
    assert errors(headers) == [
        '"headers": prefix string match should not be empty',
        'header name y z is not a valid header name',
    ]
    assert validation.message(['a']) == 'a'
    assert validation.message(['a', 'b']) == '2 errors occurred:\n\t* a\n\t* b\n'


def test_a_destination_rule_s_checks():
    rule = {'host': 'web', 'subsets': [{'name': 'stable'}, {'name': 'stable'}, {'name': 'Canary'}]}
    assert [e for e in validation.destination_rule(rule) if e] == [
        'duplicate subset names: stable',
        'subset name is invalid: Canary',
    ]
    assert [e for e in validation.destination_rule({'host': ''}) if e] == ['empty domain name not allowed']


@pytest.mark.parametrize(
    'host, expected',
    [
        ('web', ('shop', 'web')),
        ('web.other.svc.cluster.local', ('other', 'web')),
        ('web.other', None),  # a name with a dot is taken as written: no Service's
        ('web.other.svc', None),
        ('example.com', None),
        ('', None),
    ],
)
def test_hosts_resolve_as_istiod_resolves_them(host, expected):
    assert controller.resolve(host, 'shop') == expected
