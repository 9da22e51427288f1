"""How the API server writes its answers and what a bare one has, over a socket: JSON
pretty-printed for a client that asks (`?pretty=`, a curl/Wget/browser User-Agent), the Table's
`includeObject` option, and a server without the default StorageClass (`default_storage_class=False`,
`python -m tests.kubesim --upstream-like`)."""

import json
import time
import urllib.error
import urllib.request

import pytest

from .conftest import Http
from .test_cli import ready_line, start

pytestmark = pytest.mark.kubesim

TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io'


def raw_get(url, path, agent='Python-urllib', accept=None):
    """(status, Content-Type, body text) of a GET with the given User-Agent."""
    headers = {'User-Agent': agent, **({'Accept': accept} if accept else {})}
    try:
        with urllib.request.urlopen(urllib.request.Request(url + path, headers=headers), timeout=10) as resp:
            return resp.status, resp.headers['Content-Type'], resp.read().decode('utf-8', 'replace')
    except urllib.error.HTTPError as e:
        return e.code, e.headers['Content-Type'], e.read().decode('utf-8', 'replace')


def go_indented(text):
    """The indented form of a JSON text as Go's json.MarshalIndent(v, "", "  ") writes it."""
    out = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    for char, escaped in (('<', '\\u003c'), ('>', '\\u003e'), ('&', '\\u0026')):
        out = out.replace(char, escaped)
    return out


@pytest.fixture
def configmap(kubesim, http):
    body = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'pretty'},
            'data': {'html': '<a href="x">&</a>', 'empty': ''}}
    assert http.post('/api/v1/namespaces/default/configmaps', body)[0] == 201
    return '/api/v1/namespaces/default/configmaps/pretty'


def test_api_clients_get_compact_json(kubesim, configmap):
    status, ctype, text = raw_get(kubesim.url, configmap)
    assert (status, ctype) == (200, 'application/json')
    assert text.endswith('}\n') and text.count('\n') == 1 and '\\u003c' in text


@pytest.mark.parametrize('agent', ['curl/8.5.0', 'Wget/1.21.4', 'Mozilla/5.0 (X11; Linux x86_64)'])
def test_curl_wget_and_browsers_get_indented_json(kubesim, configmap, agent):
    compact = raw_get(kubesim.url, configmap)[2]
    status, ctype, text = raw_get(kubesim.url, configmap, agent=agent)
    assert (status, ctype) == (200, 'application/json')
    assert text == go_indented(compact)  # two spaces, ": ", HTML escaped, no final newline
    assert text.startswith('{\n  "kind": "ConfigMap",\n  "apiVersion": "v1",\n  "metadata": {\n    "name"')
    assert '"html": "\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c/a\\u003e"' in text


@pytest.mark.parametrize('query, agent, pretty', [
    ('?pretty=true', 'Python-urllib', True),
    ('?pretty=1', 'kubectl/v1.37.0', True),
    ('?pretty=false', 'curl/8.5.0', False),
    ('?pretty=0', 'curl/8.5.0', False),
    ('?pretty=yes', 'curl/8.5.0', False),  # not a boolean strconv.ParseBool knows: false
    ('?pretty=', 'curl/8.5.0', True),  # no value: the User-Agent decides
])
def test_the_pretty_parameter_decides_over_the_user_agent(kubesim, configmap, query, agent, pretty):
    text = raw_get(kubesim.url, configmap + query, agent=agent)[2]
    assert (text == go_indented(text)) is pretty
    assert text.endswith('\n') is not pretty


def test_lists_errors_tables_and_discovery_are_indented_too(kubesim, configmap):
    for path, accept, status in [
        ('/api/v1/namespaces/default/configmaps', None, 200),
        ('/api/v1/namespaces/default/configmaps/missing', None, 404),
        ('/api/v1/namespaces/default/configmaps', TABLE, 200),
        ('/apis/apps/v1', None, 200),
        ('/api', None, 200),
    ]:
        code, _ctype, text = raw_get(kubesim.url, path, agent='curl/8.5.0', accept=accept)
        assert code == status, path
        assert text == go_indented(text) and '\n  "' in text, path
    status_text = raw_get(kubesim.url, '/api/v1/namespaces/default/configmaps/missing', agent='curl/8.5.0')[2]
    assert '\n  "reason": "NotFound",\n' in status_text
    # /version is raw JSON: indented whoever asks.
    assert raw_get(kubesim.url, '/version')[2].startswith('{\n  "major": "1",')


def test_protobuf_answers_are_not_touched(kubesim, configmap):
    protobuf = 'application/vnd.kubernetes.protobuf'
    status, ctype, text = raw_get(kubesim.url, configmap + '?pretty=true', accept=protobuf)
    assert (status, ctype) == (200, protobuf) and text.startswith('k8s\x00')


def test_table_include_object(kubesim, configmap, http):
    rows = {}
    for include in ('', 'None', 'Metadata', 'Object'):
        query = f'?includeObject={include}' if include else ''
        path = '/api/v1/namespaces/default/configmaps' + query
        status, _h, table = http.get(path, headers={'Accept': TABLE})
        assert status == 200 and table['kind'] == 'Table'
        rows[include] = next(r for r in table['rows'] if r['cells'][0] == 'pretty')
    assert rows['']['object']['kind'] == rows['Metadata']['object']['kind'] == 'PartialObjectMetadata'
    assert 'data' not in rows['Metadata']['object']
    assert rows['None']['object'] is None
    obj = rows['Object']['object']
    assert (obj['kind'], obj['apiVersion'], obj['data']['empty']) == ('ConfigMap', 'v1', '')
    status, _h, one = http.get(configmap + '?includeObject=Object', headers={'Accept': TABLE})
    assert status == 200 and one['rows'][0]['object']['data']['html'] == '<a href="x">&</a>'
    status, _h, err = http.get(configmap + '?includeObject=All', headers={'Accept': TABLE})
    assert status == 400 and err['message'] == 'unrecognized includeObject value: "All"'


def test_status_subresource_prints_the_resources_columns(kubesim, http):
    pod = {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'p'},
           'spec': {'containers': [{'name': 'c', 'image': 'nginx:1.25'}]}}
    assert http.post('/api/v1/namespaces/default/pods', pod)[0] == 201
    status, _h, table = http.get('/api/v1/namespaces/default/pods/p/status', headers={'Accept': TABLE})
    assert status == 200 and table['kind'] == 'Table'
    names = [c['name'] for c in table['columnDefinitions']]
    assert names[:5] == ['Name', 'Ready', 'Status', 'Restarts', 'Age']
    assert table['rows'][0]['cells'][0] == 'p'


def test_the_default_storage_class_is_kinds(kubesim, http):
    _s, _h, classes = http.get('/apis/storage.k8s.io/v1/storageclasses')
    assert [c['metadata']['name'] for c in classes['items']] == ['standard']


def _pending_claim_without_class(http):
    claim = {'apiVersion': 'v1', 'kind': 'PersistentVolumeClaim', 'metadata': {'name': 'data'},
             'spec': {'accessModes': ['ReadWriteOnce'], 'resources': {'requests': {'storage': '1Gi'}}}}
    status, _h, created = http.post('/api/v1/namespaces/default/persistentvolumeclaims', claim)
    assert status == 201
    return created


@pytest.mark.kubesim_options(default_storage_class=False)
def test_a_bare_server_has_no_storage_class(kubesim, http):
    _s, _h, classes = http.get('/apis/storage.k8s.io/v1/storageclasses')
    assert classes['items'] == []
    created = _pending_claim_without_class(http)
    assert 'storageClassName' not in created['spec']  # DefaultStorageClass found no default
    time.sleep(0.5)
    _s, _h, claim = http.get('/api/v1/namespaces/default/persistentvolumeclaims/data')
    assert claim['status']['phase'] == 'Pending' and 'volumeName' not in claim['spec']
    assert http.get('/api/v1/persistentvolumes')[2]['items'] == []


def test_cli_upstream_like_has_no_nodes_and_no_storage_class(tmp_path):
    proc = start('--kubeconfig', tmp_path / 'kc', '--upstream-like')
    try:
        line = ready_line(proc, 10)
        assert line and line.startswith('kubesim ready '), line
        http = Http(line.split()[-1])
        assert http.get('/api/v1/nodes')[2]['items'] == []
        assert http.get('/apis/storage.k8s.io/v1/storageclasses')[2]['items'] == []
        assert [n['metadata']['name'] for n in http.get('/api/v1/namespaces')[2]['items']] == [
            'default', 'kube-public', 'kube-system']
        proc.terminate()
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
