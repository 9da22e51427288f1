"""The ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount/admission.go), which
gives every pod an identity, on pod creation: `serviceAccountName` defaults to `default`; the
ServiceAccount must exist (else 403, `error looking up service account NS/NAME: serviceaccount
"NAME" not found`); unless the pod's or else the ServiceAccount's
`automountServiceAccountToken` is false, a projected volume `kube-api-access-<5 chars>` (token
expiring in 3607 s, `ca.crt` from kube-root-ca.crt, the namespace from the downward API; mode 420)
is added and mounted read-only at /var/run/secrets/kubernetes.io/serviceaccount in every init and
regular container that has no mount there; a pod without `imagePullSecrets` takes the
ServiceAccount's. The `default` ServiceAccount and kube-root-ca.crt come from the controllers in
controllers/serviceaccount.py.

`admit` is a mutating admission plugin of the store (`Store.mutating_admission`).
"""

import copy

from ...controllers.common import random_suffix
from ...controllers.serviceaccount import DEFAULT, ROOT_CA
from ...machinery.errors import ApiError

TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount'
TOKEN_VOLUME_PREFIX = 'kube-api-access-'
# serviceaccount.WarnOnlyBoundTokenExpirationSeconds
TOKEN_EXPIRATION_SECONDS = 3607


def token_volume(name):
    """TokenVolumeSource(): the projected volume of the bound service account token."""
    return {'name': name, 'projected': {
        'sources': [
            {'serviceAccountToken': {'expirationSeconds': TOKEN_EXPIRATION_SECONDS, 'path': 'token'}},
            {'configMap': {'name': ROOT_CA, 'items': [{'key': 'ca.crt', 'path': 'ca.crt'}]}},
            {'downwardAPI': {'items': [{'path': 'namespace', 'fieldRef': {
                'apiVersion': 'v1', 'fieldPath': 'metadata.namespace'}}]}},
        ],
        'defaultMode': 420}}


def admit(store, resource, obj, old):
    if resource != '/pods' or old is not None:
        return
    meta, spec = obj['metadata'], obj.setdefault('spec', {})
    if 'kubernetes.io/config.mirror' in (meta.get('annotations') or {}):
        return
    # The deprecated `serviceAccount` stands for `serviceAccountName` when that is unset (the v1
    # conversion, pkg/apis/core/v1/conversion.go).
    name = spec.get('serviceAccountName') or spec.get('serviceAccount') or DEFAULT
    spec['serviceAccountName'] = spec['serviceAccount'] = name
    account = store.get('/serviceaccounts', meta.get('namespace', ''), name)
    if account is None:
        raise ApiError.forbidden_because(
            '/pods', meta.get('name') or meta.get('generateName', ''),
            f'error looking up service account {meta.get("namespace", "")}/{name}: serviceaccount '
            f'"{name}" not found')
    automount = spec.get('automountServiceAccountToken')
    if automount is None:
        automount = account.get('automountServiceAccountToken')
    if automount is not False:
        _mount_token(spec)
    if not spec.get('imagePullSecrets') and account.get('imagePullSecrets'):
        spec['imagePullSecrets'] = [{'name': ref.get('name', '')} for ref in account['imagePullSecrets']]


def _mount_token(spec):
    volumes = spec.get('volumes') or []
    existing = next((v.get('name') for v in volumes
                     if str(v.get('name', '')).startswith(TOKEN_VOLUME_PREFIX)), None)
    name = existing or TOKEN_VOLUME_PREFIX + random_suffix()
    mount = {'name': name, 'readOnly': True, 'mountPath': TOKEN_MOUNT_PATH}
    needed = False
    for key in ('initContainers', 'containers'):
        for container in spec.get(key) or []:
            mounts = container.setdefault('volumeMounts', [])
            if not any(m.get('mountPath') == TOKEN_MOUNT_PATH for m in mounts):
                mounts.append(copy.deepcopy(mount))
                needed = True
    if needed and existing is None:
        spec['volumes'] = volumes + [token_volume(name)]
