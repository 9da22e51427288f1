"""The kubeconfig kubesim writes: one cluster, user and context, all named `kubesim`."""

import base64
import os

import yaml

NAME = 'kubesim'


def kubeconfig(url, *, ca_pem=None, token=None, namespace='default'):
    cluster = {'server': url}
    if ca_pem:
        cluster['certificate-authority-data'] = base64.b64encode(ca_pem).decode()
    user = {'token': token} if token else {}
    return {
        'apiVersion': 'v1',
        'kind': 'Config',
        'clusters': [{'name': NAME, 'cluster': cluster}],
        'users': [{'name': NAME, 'user': user}],
        'contexts': [{'name': NAME, 'context': {'cluster': NAME, 'user': NAME, 'namespace': namespace}}],
        'current-context': NAME,
        'preferences': {},
    }


def write_kubeconfig(path, url, **kwargs):
    """Write the kubeconfig to ``path`` (mode 0600: it may hold a token) and return the path."""
    path = os.fspath(path)
    text = yaml.safe_dump(kubeconfig(url, **kwargs), sort_keys=False)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as f:
        f.write(text)
    return path
