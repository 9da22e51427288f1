"""The admission plugins the store runs on writes, after the strategies' defaults and validation:
ServiceAccount (serviceaccount.py, mutating), ResourceQuota (validating; it lives with the quota
controller in controllers/resourcequota.py, as both count the same usage) and NamespaceLifecycle
(no new objects in a namespace being deleted: in the store's create; the namespaces that may not be
deleted: namespacelifecycle.py, run by the DELETE handler)."""
