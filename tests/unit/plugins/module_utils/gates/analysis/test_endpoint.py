"""``open_endpoint`` against a real local server: every status is an answer, redirects are not
followed, bodies are read up to ``MAX_BODY``, only a lost connection raises."""

import socket

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis import endpoint as endpoint_mod
from ansible_collections.kubeops.rollout.plugins.module_utils.gates.analysis.endpoint import open_endpoint

pytestmark = pytest.mark.unit


def test_any_status_is_an_answer_with_its_body(endpoint):
    endpoint.answer('/ok', 200, 'fine')
    endpoint.answer('/down', 503, 'maintenance')
    assert open_endpoint(endpoint.url + '/ok') == (200, b'fine')
    assert open_endpoint(endpoint.url + '/down', method='POST', headers={'X-A': 'b'}) == (503, b'maintenance')
    sent = [(m, p, h.get('X-A')) for m, p, h in endpoint.requests]
    assert sent == [('GET', '/ok', None), ('POST', '/down', 'b')]


def test_a_redirect_is_not_followed(endpoint):
    endpoint.answer('/old', 301, 'moved', headers={'Location': '/new'})
    endpoint.answer('/new', 200, 'new')
    assert open_endpoint(endpoint.url + '/old') == (301, b'moved')
    assert [p for _m, p, _h in endpoint.requests] == ['/old']


def test_a_body_is_read_up_to_max_body(endpoint, monkeypatch):
    monkeypatch.setattr(endpoint_mod, 'MAX_BODY', 4)
    endpoint.answer('/big', 200, 'abcdefgh')
    endpoint.answer('/bigerr', 500, 'ijklmnop')
    assert open_endpoint(endpoint.url + '/big') == (200, b'abcd')
    assert open_endpoint(endpoint.url + '/bigerr') == (500, b'ijkl')


def test_a_closed_port_raises():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        url = 'http://127.0.0.1:%d/' % s.getsockname()[1]
    with pytest.raises(Exception):  # noqa: B017 - whatever urllib raises, the provider reports it
        open_endpoint(url, timeout=2)
