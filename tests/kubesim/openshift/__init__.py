"""OpenShift's Route in kubesim: the `route.openshift.io/v1` Route (crd.py), openshift-apiserver's
defaults and validation of it (validation.py) and a router stand-in, the ingress controller
`default`, with its simulated data plane (router.py). `install(store)` is what `--openshift` does at
start: the CRD created, the store's admission hook wrapped, the router attached."""

from . import crd, router, validation

CRDS = 'apiextensions.k8s.io/customresourcedefinitions'


def install(store, *, delay=0.0):
    store.create(CRDS, crd.crd())
    store.admission = validation.admission(store.admission)
    return router.RouterController(store, delay=delay).attach()
