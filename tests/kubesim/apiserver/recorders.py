"""The control plane's own writes, recorded as a cluster records them: the store hook
(Store.update's and Store.create's ``manager``) of a write a component makes itself. The field
manager's name is the first part of the component's User-Agent
(`kube-controller-manager/v1.37.0 (linux/amd64) kubernetes/...`, apiserver
endpoints/handlers/rest.go `managerOrUserAgent`)."""

import functools

from .fieldmanager import row_recorder
from .registry.resources import BY_KEY

CONTROLLER_MANAGER = 'kube-controller-manager'
KUBELET = 'kubelet'


@functools.lru_cache(maxsize=None)
def recorder(resource, manager, subresource=''):
    """The hook of a write by ``manager`` through ``subresource`` to the built-in ``resource``
    (a store key), in the storage version (None for kinds the type table does not know)."""
    row = BY_KEY.get(resource)
    return None if row is None else row_recorder(row, manager, subresource)
