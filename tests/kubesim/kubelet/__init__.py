"""The kubelet (kubelet.py; pkg/kubelet): the Nodes it registers (nodes.py), the pod statuses it
writes (status.py), what containers' commands do (programs.py), and the scheduler's node choice
(scheduler.py; pkg/scheduler), which kubesim runs in the kubelet's pass."""
