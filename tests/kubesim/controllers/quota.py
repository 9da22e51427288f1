"""The ResourceQuota controller: keeps each quota's `status.hard` and `status.used` current."""

from ..apiserver.fieldmanager import CONTROLLER_MANAGER, recorder
from ..quota import quota_status
from .common import name_of, ns_of


class ResourceQuotaController:
    resource = '/resourcequotas'

    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store

    def sync_all(self):
        for quota in self.mgr.index.list(self.resource):
            self.mgr.guard('ResourceQuota', quota, self.sync, quota)

    def sync(self, quota):
        status = quota_status(self.store, quota)
        if status != (quota.get('status') or {}):
            self.store.update(self.resource, {'metadata': {'name': name_of(quota), 'namespace': ns_of(quota)},
                                              'status': status}, subresource='status',
                              manager=recorder(self.resource, CONTROLLER_MANAGER, 'status'))
