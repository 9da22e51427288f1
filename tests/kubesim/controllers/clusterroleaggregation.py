"""The ClusterRole aggregation controller (pkg/controller/clusterroleaggregation/
clusterroleaggregation_controller.go): a ClusterRole with an `aggregationRule` gets as its rules
those of every other ClusterRole one of its `clusterRoleSelectors` selects (taken selector by
selector, the selected roles in name order, each rule once), written when they differ. So the
bootstrap `view` collects `system:aggregate-to-view`, `edit` collects `view` and
`system:aggregate-to-edit`, `admin` collects `edit` and `system:aggregate-to-admin`, and a
ClusterRole labelled `rbac.authorization.k8s.io/aggregate-to-view: "true"` extends all three.

kubesim runs it as a store listener, so a change is aggregated at once (on a cluster, within a
moment).
"""

import copy

from ..apiserver.rbac import escalation
from ..machinery.selectors import matches_labels, selector_from_label_selector_object

CLUSTER_ROLES = 'rbac.authorization.k8s.io/clusterroles'


class ClusterRoleAggregationController:
    def __init__(self, store):
        self.store = store

    def attach(self):
        self.store.listeners.append(self.observe)
        self.sync_all()
        return self

    def observe(self, event_type, resource, obj):
        if resource == CLUSTER_ROLES:
            self.store.defer(self.sync_all)

    def _roles(self):
        return {key[2]: obj for key, obj in self.store.objects.items() if key[0] == CLUSTER_ROLES}

    def sync_all(self):
        # The controller writes as itself, not as the request whose change it reacts to.
        token = escalation.REQUEST.set(None)
        try:
            for name, role in sorted(self._roles().items()):
                if role.get('aggregationRule') is not None:
                    self.sync(name)
        finally:
            escalation.REQUEST.reset(token)

    def sync(self, name):
        roles = self._roles()
        role = roles.get(name)
        if role is None or role.get('aggregationRule') is None:
            return
        rules = []
        for selector in role['aggregationRule'].get('clusterRoleSelectors') or []:
            wanted = selector_from_label_selector_object(selector)
            for other_name in sorted(roles):
                other = roles[other_name]
                if other_name == name or not matches_labels(wanted, other['metadata'].get('labels') or {}):
                    continue
                for rule in other.get('rules') or []:
                    if rule not in rules:
                        rules.append(rule)
        if rules == (role.get('rules') or []):
            return
        updated = copy.deepcopy(role)
        updated['rules'] = copy.deepcopy(rules)
        self.store.update(CLUSTER_ROLES, updated)
