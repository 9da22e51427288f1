"""Istio's traffic management in kubesim: the CRDs VirtualService and DestinationRule of
`networking.istio.io` (crds.py), istiod's validating webhook (validation.py) and a stand-in for
istiod and its proxies' data plane (controller.py). `install(store)` is what `--istio` does at
start: the CRDs created as Istio's base chart creates them, the webhook and the controller attached."""

from . import controller, crds, validation

CRDS = 'apiextensions.k8s.io/customresourcedefinitions'


def install(store, *, delay=0.0, reconciled=False):
    for crd in crds.crds():
        store.create(CRDS, crd)
    store.webhooks.append(validation.admit)
    istiod = controller.IstioController(store, delay=delay, reconciled=reconciled)
    istiod.attach()
    return istiod
