"""The Gateway API in kubesim: its CRDs (crds.py, gateway-api.yaml), a gateway controller and a
mesh (GAMMA) stand-in (controller.py, routes.py) with their simulated data plane (dataplane.py).
`install(store)` is what `--gateway-api` does at start: the CRDs created as a client's `kubectl
apply` would, the controller attached, the GatewayClass `kubesim` created."""

from . import controller, crds

CRDS = 'apiextensions.k8s.io/customresourcedefinitions'


def install(store, *, delay=0.0, reject=None):
    for crd in crds.crds():
        store.create(CRDS, crd)
    gateway = controller.GatewayController(store, delay=delay, reject=reject)
    gateway.attach()
    gateway.install_class()
    return gateway
