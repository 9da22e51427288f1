"""ControllerRevisions for StatefulSets and DaemonSets (pkg/controller/history in Kubernetes).

A revision's `.data` is the strategic merge patch that puts the whole pod template back:
`{"spec":{"template":{...,"$patch":"replace"}}}`, keys sorted the way Go serialises a map, which is
also what `kubectl rollout undo` sends and what kubectl compares byte for byte.
"""

import copy

from ..apiserver.recorders import CONTROLLER_MANAGER, recorder
from ..machinery.errors import ApiError
from ..machinery.selectors import selector_from_label_selector_object
from .common import claim, controller_ref, creation_key, name_of, ns_of, semantic_equal, sorted_json

RESOURCE = 'apps/controllerrevisions'
# Label kubesim and Kubernetes put on StatefulSet revisions (DaemonSets use POD_REVISION_LABEL).
REVISION_HASH_LABEL = 'controller.kubernetes.io/hash'
# Pod label naming the revision a pod was made from (StatefulSet: revision name; DaemonSet: hash).
POD_REVISION_LABEL = 'controller-revision-hash'


def template_patch(workload):
    template = copy.deepcopy((workload.get('spec') or {}).get('template') or {})
    template['$patch'] = 'replace'
    return sorted_json({'spec': {'template': template}})


def apply_revision(workload, revision):
    """The workload with its template replaced by the one stored in ``revision``."""
    clone = copy.deepcopy(workload)
    template = copy.deepcopy(((revision.get('data') or {}).get('spec') or {}).get('template') or {})
    template.pop('$patch', None)
    clone.setdefault('spec', {})['template'] = template
    return clone


def revision_number(cr):
    return cr.get('revision', 0) or 0


def sort_revisions(revisions):
    return sorted(revisions, key=lambda cr: (revision_number(cr), creation_key(cr)))


def equal_revision(a, b):
    return semantic_equal(a.get('data'), b.get('data'))


def next_revision(revisions):
    return revision_number(revisions[-1]) + 1 if revisions else 1


def owned_revisions(mgr, owner, kind):
    """Claim the ControllerRevisions selected by ``owner`` and return them sorted by revision."""
    selector = selector_from_label_selector_object((owner.get('spec') or {}).get('selector'))
    candidates = mgr.index.list(RESOURCE, ns_of(owner), selector, owner['metadata'].get('uid'))
    return sort_revisions(claim(mgr.store, RESOURCE, owner, 'apps/v1', kind, candidates, selector))


def new_revision(owner, kind, name, labels, revision):
    meta = {'name': name, 'namespace': ns_of(owner), 'labels': labels,
            'ownerReferences': [controller_ref(owner, 'apps/v1', kind)]}
    annotations = owner['metadata'].get('annotations')
    if annotations:
        meta['annotations'] = dict(annotations)
    return {'apiVersion': 'apps/v1', 'kind': 'ControllerRevision', 'metadata': meta,
            'data': template_patch(owner), 'revision': revision}


def set_revision(store, cr, revision):
    fresh = store.get(RESOURCE, ns_of(cr), name_of(cr))
    if fresh is None:
        raise ApiError.not_found(RESOURCE, name_of(cr))
    if fresh.get('revision') == revision:
        return fresh
    fresh['revision'] = revision
    return store.update(RESOURCE, fresh, manager=recorder(RESOURCE, CONTROLLER_MANAGER))


def delete_revision(store, cr):
    try:
        store.delete(RESOURCE, ns_of(cr), name_of(cr))
    except ApiError as err:
        if err.code != 404:
            raise
