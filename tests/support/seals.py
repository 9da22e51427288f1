"""What the operator does when it writes a record (engine/records.py): the record's seal on the Lease
of its release. Tests that plant a record the operator would have written seal it here; a record left
unsealed is one the operator never wrote (a colleague's, or an earlier version's)."""

import json

from ansible_collections.kubeops.rollout.plugins.module_utils.engine import records

LEASES = '/apis/coordination.k8s.io/v1/namespaces/%s/leases'


class _Api:
    """get/create/replace over the collection's client or the tests' own (tests/integration Kube)."""

    def __init__(self, client):
        self.client = client
        self.ours = hasattr(client, 'replace')

    def get(self, path):
        try:
            return self.client.get(path) if self.ours else self.client.request('GET', path)
        except Exception as e:  # noqa: BLE001 - both clients' "not found"
            if '404' in str(e) or getattr(e, 'status', None) == 404 or getattr(e, 'code', None) == 404:
                return None
            raise

    def create(self, collection, body):
        if self.ours:
            return self.client.create(collection, body)
        return self.client.request('POST', collection, body)

    def replace(self, path, body):
        return self.client.replace(path, body) if self.ours else self.client.request('PUT', path, body)


def seal(client, namespace, release, obj, annotation):
    """Seal the record ``annotation`` of ``obj`` (as read, the record on it) on the Lease of
    ``release`` in ``namespace``, creating that Lease (without a holder) when needed."""
    api = _Api(client)
    text = obj['metadata']['annotations'][annotation]
    name = records.lease_name(release)
    path = '%s/%s' % (LEASES % namespace, name)
    lease = api.get(path)
    update = {records.seal_key(obj): records.digest(obj, annotation, text)}
    if lease is None:
        seals = records.with_seals({}, update)
        api.create(LEASES % namespace, {
            'apiVersion': 'coordination.k8s.io/v1', 'kind': 'Lease',
            'metadata': {'name': name, 'namespace': namespace,
                         'annotations': {records.SEALS_ANNOTATION: records.seals_text(seals)}},
            'spec': {'leaseDurationSeconds': 30}})
        return
    seals = records.with_seals(records.seals_of(lease), update)
    lease['metadata'].setdefault('annotations', {})[records.SEALS_ANNOTATION] = records.seals_text(seals)
    api.replace(path, lease)


def seals_on(client, namespace, release):
    """The seals kept on the Lease of ``release`` ({} without that Lease)."""
    lease = _Api(client).get('%s/%s' % (LEASES % namespace, records.lease_name(release)))
    return records.seals_of(lease) if lease is not None else {}


def record_of(obj, annotation):
    return json.loads(obj['metadata']['annotations'][annotation])
