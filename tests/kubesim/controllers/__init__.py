"""The controller manager (manager.py: kube-controller-manager, which also runs kubesim's kubelet
and scheduler in its passes) and the controllers it runs, one module each as in
pkg/controller: deployment/, replicaset.py (with the ReplicationController), statefulset.py,
daemonset.py, history.py (ControllerRevisions), hpa.py, resourcequota.py; namespace.py and
serviceaccount.py run as store listeners. common.py, index.py and events.py serve them all."""
