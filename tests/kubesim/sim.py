"""KubeSim: one simulated control plane (store, API server, controllers) and its lifecycle.

In-process use runs the event loop in a daemon thread::

    sim = KubeSim(nodes=2).start()
    sim.write_kubeconfig('/tmp/kc')
    ...
    sim.stop()

`python -m tests.kubesim` runs the same thing on the main thread (see __main__.py).
"""

import asyncio
import concurrent.futures
import inspect
import os
import sys
import threading
import time

from aiohttp import web

from .apiserver.admission import serviceaccount as serviceaccount_admission
from .apiserver.apiextensions.controllers import CustomResourceDefinitionControllers
from .apiserver.kubeconfig import write_kubeconfig
from .apiserver.recorders import recorder
from .apiserver.registry import resources
from .apiserver.registry.ipallocator import ServiceAllocator
from .apiserver.registry.store import Store
from .apiserver.server import ApiServer
from . import timeline
from .apiserver.handlers import metrics
from .apiserver.strategies import apiregistration, limitrange, networking, storage
from .controllers import resourcequota
from .controllers.endpointqueue import EndpointControllers
from .controllers.manager import ControllerManager
from .controllers.namespace import NamespaceController
from .controllers.serviceaccount import ServiceAccountsController
from .controllers.clusterroleaggregation import ClusterRoleAggregationController
from .apiserver.authentication import READONLY_USER
from .apiserver.rbac import bootstrappolicy
from .faults import Faults
from .machinery.errors import ApiError
from . import gateway

INITIAL_NAMESPACES = ('default', 'kube-system', 'kube-public')
START_TIMEOUT = 10
STOP_TIMEOUT = 10


class KubeSim:
    def __init__(self, *, host='127.0.0.1', port=0, tls=False, token=None, readonly_token=None, nodes=3,
                 ready_delay=0.2, fail_image=None, time_scale=1.0, request_log=None, faults=None,
                 crash_image=None, crash_after=1.0, token_file=None, basic_auth=None, client_certs=False,
                 max_watch_seconds=None, stop_delay=0.1, endpoint_lag=0.0, gateway_api=False,
                 gateway_delay=0.0, gateway_reject=None, authorization_mode=None, default_storage_class=True,
                 istio=False, istio_delay=0.0, istio_reconciled=False, openshift=False, openshift_delay=0.0):
        if client_certs and not tls:
            raise ValueError('client_certs needs tls')
        self.host = host
        self.port = port
        self.tls = tls
        self.token = token
        self.readonly_token = readonly_token
        self.auth_options = {'token_file': os.fspath(token_file) if token_file else None,
                             'basic_auth': basic_auth, 'client_certs': client_certs,
                             'max_watch_seconds': max_watch_seconds, 'authorization_mode': authorization_mode}
        self.controller_options = {'nodes': nodes, 'ready_delay': ready_delay, 'fail_image': fail_image,
                                   'time_scale': time_scale, 'crash_image': crash_image,
                                   'crash_after': crash_after, 'stop_delay': stop_delay}
        if endpoint_lag < 0:
            raise ValueError('endpoint_lag must not be negative')
        self.endpoint_lag = float(endpoint_lag)
        self.request_log_path = os.fspath(request_log) if request_log else None
        self.gateway_options = {'delay': gateway_delay, 'reject': gateway_reject} if gateway_api else None
        self.gateway = None  # the gateway controller, with gateway_api
        if istio_delay < 0:
            raise ValueError('istio_delay must not be negative')
        self.istio_options = {'delay': istio_delay, 'reconciled': istio_reconciled} if istio else None
        self.istio = None  # the istiod stand-in, with istio
        self.openshift_options = {'delay': openshift_delay} if openshift else None
        self.openshift = None  # the OpenShift router stand-in, with openshift
        # kind's cluster has the default StorageClass `standard`; a bare API server has none.
        self.default_storage_class = default_storage_class
        self.faults = Faults(faults)  # parses now: a bad SPEC fails before anything starts
        self.certificates = None
        self.store = None
        self.api = None
        self.controllers = None
        self.url = None
        self.kubeconfig = None  # the last kubeconfig written
        self.loop = None
        self._thread = None
        self._runner = None
        self._controller_task = None
        self._log_file = None
        self.endpoint_controllers = None
        self.endpoints_tracker = None
        self._timed = []  # asyncio handles of the timed faults armed

    # ---- async core (runs on the loop) ---------------------------------------------------
    async def _astart(self):
        store = self.store = Store(resources.Registry())
        store.admission = store.registry.admit
        store.encoder = store.registry.encode
        store.validating_admission.append(resourcequota.check)
        self.faults.registry = store.registry  # fault targets may name custom resources
        CustomResourceDefinitionControllers(store).attach()
        ssl_context = None
        if self.tls:
            from .apiserver.tls import Certificates  # cryptography is only imported when TLS is wanted

            self.certificates = Certificates()
            ssl_context = self.certificates.server_context(self.auth_options['client_certs'])
        store.mutating_admission += [serviceaccount_admission.admit, limitrange.admit,
                                     networking.admit_default_class]
        self._start_volumes_and_apiservices(store, self.default_storage_class)
        ServiceAccountsController(store, self.ca_pem).attach()
        NamespaceController(store).attach()
        for name in INITIAL_NAMESPACES:
            store.create('/namespaces', {'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': name}})
        ServiceAllocator(store).attach()
        self.endpoints_tracker = timeline.EndpointsTracker(store, clock=time.monotonic)
        store.listeners.append(self.endpoints_tracker.observe)
        if self.gateway_options is not None:
            self.gateway = gateway.install(store, **self.gateway_options)
        if self.istio_options is not None:
            from . import istio  # only when asked for: nothing more to import at start

            self.istio = istio.install(store, **self.istio_options)
        if self.openshift_options is not None:
            from . import openshift  # only when asked for: nothing more to import at start

            self.openshift = openshift.install(store, **self.openshift_options)
        ClusterRoleAggregationController(store).attach()
        if self.auth_options['authorization_mode'] == 'RBAC':
            # The RBAC bootstrap policy (apiserver/rbac/bootstrappolicy.py), as the API server's
            # post-start hook writes it.
            for role in bootstrappolicy.cluster_roles():
                store.create('rbac.authorization.k8s.io/clusterroles', role)
            for binding in bootstrappolicy.cluster_role_bindings(READONLY_USER):
                store.create('rbac.authorization.k8s.io/clusterrolebindings', binding)
        if self.request_log_path:
            self._log_file = open(self.request_log_path, 'a', encoding='utf-8')  # noqa: SIM115
        self.api = ApiServer(store, token=self.token, readonly_token=self.readonly_token,
                             request_log=self._log_file, faults=self.faults, **self.auth_options)
        self._runner = web.AppRunner(self.api.make_app(), access_log=None, handle_signals=False,
                                     shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, ssl_context=ssl_context)
        await site.start()
        port = self._runner.addresses[0][1]
        self.api.server_address = f'{self.host}:{port}'
        self.url = f'{"https" if self.tls else "http"}://{self.host}:{port}'
        self._kubernetes_service(port)
        self.controllers = ControllerManager(store, **self.controller_options)
        self.controllers.api_quiet = self.api.quiet_seconds  # API requests go first
        self.api.container_log = self.controllers.kubelet.log  # pods/log reads the kubelet's
        self.endpoint_controllers = EndpointControllers(store, lag=self.endpoint_lag).attach()
        self._arm_timed_faults()
        self._controller_task = asyncio.get_running_loop().create_task(self._run_controllers())

    @staticmethod
    def _start_volumes_and_apiservices(store, default_storage_class):
        """The admission plugins of claims (DefaultStorageClass, StorageObjectInUseProtection), the
        default StorageClass `standard` (as kind installs it; not with `default_storage_class=False`,
        as a bare API server) and the APIServices of the served group-versions."""
        storage.bind_store(store)
        store.mutating_admission += [storage.admit_default_class, storage.admit_protection]
        if default_storage_class:
            store.create(storage.STORAGE_CLASSES, storage.DEFAULT_CLASS)
        apiregistration.register_builtin(store, sorted({(r.group, r.version) for r in resources.RESOURCES}))

    async def _run_controllers(self):
        try:
            await self.controllers.run()
        except asyncio.CancelledError:
            raise
        except Exception:
            import traceback

            print('kubesim: the controller manager stopped with an error:', file=sys.stderr)
            traceback.print_exc(file=sys.stderr)

    def _kubernetes_service(self, port):
        """The `default/kubernetes` Service the API server keeps (pkg/controlplane/controller/
        kubernetesservice), its first cluster IP, and its Endpoints and EndpointSlice naming the
        API server itself (pkg/controlplane/reconcilers), as a cluster's API server writes them."""
        store = self.store
        write = recorder('/services', 'kube-apiserver')
        store.create('/services', {
            'apiVersion': 'v1', 'kind': 'Service',
            'metadata': {'name': 'kubernetes', 'namespace': 'default',
                         'labels': {'component': 'apiserver', 'provider': 'kubernetes'}},
            'spec': {'clusterIP': '10.96.0.1',
                     'ports': [{'name': 'https', 'port': 443, 'targetPort': port}]}},
            manager=write)
        ports = [{'name': 'https', 'port': port, 'protocol': 'TCP'}]
        store.create('/endpoints', {
            'apiVersion': 'v1', 'kind': 'Endpoints',
            'metadata': {'name': 'kubernetes', 'namespace': 'default',
                         'labels': {'endpointslice.kubernetes.io/skip-mirror': 'true'}},
            'subsets': [{'addresses': [{'ip': self.host}], 'ports': ports}]},
            manager=recorder('/endpoints', 'kube-apiserver'))
        store.create('discovery.k8s.io/endpointslices', {
            'apiVersion': 'discovery.k8s.io/v1', 'kind': 'EndpointSlice',
            'metadata': {'name': 'kubernetes', 'namespace': 'default',
                         'labels': {'kubernetes.io/service-name': 'kubernetes'}},
            'addressType': 'IPv4',
            'endpoints': [{'addresses': [self.host], 'conditions': {'ready': True}}], 'ports': ports},
            manager=recorder('discovery.k8s.io/endpointslices', 'kube-apiserver'))

    # ---- timed faults (faults.py: unready=, delete=) ---------------------------------------
    def _arm_timed_faults(self):
        for handle in self._timed:
            handle.cancel()
        self._timed = []
        for action, (_resource, namespace, name), after, duration in self.faults.timed:
            if action == 'unready':
                self._schedule(after, self._probe, namespace, name, False)
                if duration is not None:
                    self._schedule(after + duration, self._probe, namespace, name, True)
            else:
                self._schedule(after, self._delete_pod, namespace, name)

    def _schedule(self, after, fn, *args):
        self._timed.append(asyncio.get_running_loop().call_later(max(0.0, after), fn, *args))

    def _probe(self, namespace, name, ready):
        path = f'/api/v1/namespaces/{namespace}/pods/{name}'
        found = self.controllers.kubelet.set_probe_result(namespace, name, ready)
        self.faults.injected.append(('-', path, ('ready' if ready else 'unready') if found else 'missing'))

    def _delete_pod(self, namespace, name):
        path = f'/api/v1/namespaces/{namespace}/pods/{name}'
        try:
            self.store.delete('/pods', namespace, name)
            self.faults.injected.append(('DELETE', path, 'delete'))
        except ApiError:
            self.faults.injected.append(('DELETE', path, 'missing'))

    async def _astop(self):
        for handle in self._timed:
            handle.cancel()
        if self.endpoint_controllers is not None:
            self.endpoint_controllers.detach()
        if self.api is not None:
            self.api.close_watches()
        if self._controller_task is not None:
            self._controller_task.cancel()
            try:
                await self._controller_task
            except asyncio.CancelledError:
                pass
        if self._runner is not None:
            await self._runner.cleanup()
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    # ---- thread lifecycle ----------------------------------------------------------------
    def start(self):
        """Start serving on a daemon thread; returns self once the server accepts connections."""
        if self._thread is not None:
            raise RuntimeError('this KubeSim is already started')
        started = concurrent.futures.Future()
        self.loop = asyncio.new_event_loop()

        def run():
            asyncio.set_event_loop(self.loop)
            try:
                self.loop.run_until_complete(self._astart())
            except BaseException as e:  # report any startup failure to start()
                try:
                    self.loop.run_until_complete(self._astop())
                finally:
                    started.set_exception(e)
                    self.loop.close()
                return
            started.set_result(None)
            self.loop.run_forever()
            self.loop.run_until_complete(self.loop.shutdown_default_executor())
            self.loop.close()

        self._thread = threading.Thread(target=run, name='kubesim', daemon=True)
        self._thread.start()
        try:
            started.result(START_TIMEOUT)
        except BaseException:
            self._thread.join(STOP_TIMEOUT)
            self._thread = None
            raise
        return self

    def stop(self):
        """Close watches, stop the controllers and the server, end the thread. Idempotent."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        if self.loop.is_running():
            future = asyncio.run_coroutine_threadsafe(self._astop(), self.loop)
            try:
                future.result(STOP_TIMEOUT)
            finally:
                self.loop.call_soon_threadsafe(self.loop.stop)
        thread.join(STOP_TIMEOUT)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ---- helpers for tests ---------------------------------------------------------------
    def call(self, fn, *args, timeout=30):
        """Run ``fn(*args)`` on the loop thread (awaiting it if it returns an awaitable); return its
        result. The only safe way for another thread to look at or change ``self.store``."""

        async def run():
            result = fn(*args)
            if inspect.isawaitable(result):
                result = await result
            return result

        if self._thread is None:
            raise RuntimeError('KubeSim is not running')
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout)

    @property
    def readiness_log(self):
        return self.controllers.readiness_log if self.controllers is not None else []

    @property
    def ca_pem(self):
        return self.certificates.ca_pem if self.certificates else None

    def write_kubeconfig(self, path, *, token=None, readonly=False, namespace='default'):
        """Write a kubeconfig for this server; it authenticates with the full token unless
        ``readonly`` (the read-only token) or an explicit ``token`` is given."""
        if token is None:
            token = self.readonly_token if readonly else self.token
        self.kubeconfig = write_kubeconfig(path, self.url, ca_pem=self.ca_pem, token=token,
                                           namespace=namespace)
        return self.kubeconfig

    def route_shares(self, namespace, name, kind='HTTPRoute'):
        """What the simulated data plane of ``kind`` would do with a route's requests: per managed
        part, the fraction each destination gets. HTTPRoute and GRPCRoute: the gateway's or the mesh's,
        gateway_api only (`gateway.dataplane.DataPlane.shares`); VirtualService: istio only, one entry
        per http route (`istio.controller.IstioController.shares`); an OpenShift Route (openshift
        only): one entry named None (`openshift.router.RouterController.shares`)."""
        if kind == 'VirtualService':
            return self.call(self.istio.shares, namespace, name)
        if kind == 'Route':
            return self.call(self.openshift.shares, namespace, name)
        if kind not in gateway.routes.KINDS:
            raise ValueError(f'no simulated data plane serves {kind}')
        return self.call(self.gateway.shares, namespace, name, kind)

    def route_traffic(self, namespace, name, kind='HTTPRoute'):
        """Every change of a route's shares so far: [(monotonic t, generation, shares), ...]."""
        if kind == 'VirtualService':
            from .istio import controller

            return self.call(lambda: controller.traffic_log(self.istio.log, namespace, name))
        if kind == 'Route':
            from .openshift import router

            return self.call(lambda: router.traffic_log(self.openshift.log, namespace, name))
        if kind not in gateway.routes.KINDS:
            raise ValueError(f'no simulated data plane serves {kind}')
        return self.call(lambda: gateway.dataplane.traffic_log(self.gateway.log, namespace, name, kind))

    def set_usage(self, namespace, pod, container, *, cpu=None, memory=None):
        """What metrics.k8s.io reports for a container (`kubectl top`): its CPU and memory usage
        as quantities ('250m', '64Mi'); an unset one keeps the default (apiserver/handlers/metrics.py)."""
        usage = {k: v for k, v in (('cpu', cpu), ('memory', memory)) if v is not None}
        key = (namespace, pod, container)
        self.call(lambda: metrics.usage_table(self.store).setdefault(key, {}).update(usage))

    def set_gateway(self, *, reject=None, delay=None):
        """Make the gateway accept routes (reject=None) or refuse them with that reason; change its
        delay. Routes are judged again at once."""
        def change():
            self.gateway.reject = reject
            if delay is not None:
                self.gateway.delay = float(delay)
            self.gateway.resync()
        self.call(change)

    def set_faults(self, spec):
        """Replace the fault configuration (SPEC syntax in faults.py); '' or None turns faults off.
        Timed faults (`unready=`, `delete=`) count their times from now."""
        if self._thread is None:
            self.faults.set(spec)
        else:
            def replace():
                self.faults.set(spec)
                self._arm_timed_faults()
            self.call(replace)

    # ---- traffic: faults between a check and a switch, and what clients would reach -----------
    def make_unready(self, namespace, pod, after=0.0, for_=None):
        """In ``after`` seconds the pod's readiness probe starts failing (the kubelet writes it
        not Ready, its containers running); after ``for_`` more seconds, when given, it passes
        again. Returns at once."""
        def arm():
            self._schedule(after, self._probe, namespace, pod, False)
            if for_ is not None:
                self._schedule(after + for_, self._probe, namespace, pod, True)
        self.call(arm)

    def make_ready(self, namespace, pod, after=0.0):
        """In ``after`` seconds the pod's readiness probe passes again (ends `make_unready`)."""
        self.call(lambda: self._schedule(after, self._probe, namespace, pod, True))

    def delete_pod_at(self, namespace, pod, after=0.0):
        """In ``after`` seconds the pod is deleted (gracefully, as a client's DELETE)."""
        self.call(lambda: self._schedule(after, self._delete_pod, namespace, pod))

    @staticmethod
    def clock():
        """The time base of the readiness log and the endpoints timeline (time.monotonic)."""
        return time.monotonic()

    def endpoints_timeline(self, namespace, service):
        """[(t, frozenset of pod names)]: which pods the Service's EndpointSlices had as ready
        endpoints, from each slice write on (timeline.EndpointsTracker)."""
        return self.call(lambda: list(self.endpoints_tracker.log.get((namespace, service), [])))

    def endpoint_gaps(self, namespace, service, since=None, until=None, tolerance=0.0):
        """timeline.endpoint_gaps of the Service: [] when it never had zero ready endpoints."""
        return timeline.endpoint_gaps(self.endpoints_timeline(namespace, service), since, until, tolerance)

    def unready_routes(self, namespace, service, since=None, until=None, tolerance=0.0):
        """timeline.unready_routes of the Service: [] when it never routed to a pod that was not
        Ready."""
        log = self.call(lambda: list(self.readiness_log))
        return timeline.unready_routes(self.endpoints_timeline(namespace, service), log, namespace,
                                       since, until, tolerance)
