"""The NamespaceLifecycle admission plugin's refusal of deletes (plugin/pkg/admission/namespace/
lifecycle/admission.go): the namespaces the API server keeps (`default`, `kube-system`,
`kube-public`) may not be deleted, dry run or not. (Its refusal of new content in a namespace
being deleted is in the store's create.)"""

from ...machinery.errors import ApiError

IMMORTAL_NAMESPACES = frozenset({'default', 'kube-system', 'kube-public'})


def check_delete(name):
    """A 403 Forbidden for a DELETE of one of the immortal namespaces; nothing for the others."""
    if name in IMMORTAL_NAMESPACES:
        raise ApiError.forbidden_because('/namespaces', name, 'this namespace may not be deleted')
