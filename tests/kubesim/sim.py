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

from aiohttp import web

from .apiserver.admission import serviceaccount as serviceaccount_admission
from .apiserver.kubeconfig import write_kubeconfig
from .apiserver.registry import resources
from .apiserver.registry.store import Store
from .apiserver.server import ApiServer
from .apiserver.strategies import apiregistration, storage
from .controllers import resourcequota
from .controllers.manager import ControllerManager
from .controllers.namespace import NamespaceController
from .controllers.serviceaccount import ServiceAccountsController
from .faults import Faults

INITIAL_NAMESPACES = ('default', 'kube-system', 'kube-public')
START_TIMEOUT = 10
STOP_TIMEOUT = 10


class KubeSim:
    def __init__(self, *, host='127.0.0.1', port=0, tls=False, token=None, readonly_token=None, nodes=3,
                 ready_delay=0.2, fail_image=None, time_scale=1.0, request_log=None, faults=None,
                 crash_image=None, crash_after=1.0, token_file=None, basic_auth=None, client_certs=False,
                 max_watch_seconds=None, stop_delay=0.1):
        if client_certs and not tls:
            raise ValueError('client_certs needs tls')
        self.host = host
        self.port = port
        self.tls = tls
        self.token = token
        self.readonly_token = readonly_token
        self.auth_options = {'token_file': os.fspath(token_file) if token_file else None,
                             'basic_auth': basic_auth, 'client_certs': client_certs,
                             'max_watch_seconds': max_watch_seconds}
        self.controller_options = {'nodes': nodes, 'ready_delay': ready_delay, 'fail_image': fail_image,
                                   'time_scale': time_scale, 'crash_image': crash_image,
                                   'crash_after': crash_after, 'stop_delay': stop_delay}
        self.request_log_path = os.fspath(request_log) if request_log else None
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

    # ---- async core (runs on the loop) ---------------------------------------------------
    async def _astart(self):
        store = self.store = Store()
        store.admission = resources.admit
        store.encoder = resources.encode
        store.validating_admission.append(resourcequota.check)
        ssl_context = None
        if self.tls:
            from .apiserver.tls import Certificates  # cryptography is only imported when TLS is wanted

            self.certificates = Certificates()
            ssl_context = self.certificates.server_context(self.auth_options['client_certs'])
        store.mutating_admission.append(serviceaccount_admission.admit)
        self._start_volumes_and_apiservices(store)
        ServiceAccountsController(store, self.ca_pem).attach()
        NamespaceController(store).attach()
        for name in INITIAL_NAMESPACES:
            store.create('/namespaces', {'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': name}})
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
        self.controllers = ControllerManager(store, **self.controller_options)
        self.controllers.api_quiet = self.api.quiet_seconds  # API requests go first
        self._controller_task = asyncio.get_running_loop().create_task(self._run_controllers())

    @staticmethod
    def _start_volumes_and_apiservices(store):
        """The admission plugins of claims (DefaultStorageClass, StorageObjectInUseProtection), the
        default StorageClass `standard` and the APIServices of the served group-versions."""
        storage.bind_store(store)
        store.mutating_admission += [storage.admit_default_class, storage.admit_protection]
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

    async def _astop(self):
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

    def set_faults(self, spec):
        """Replace the fault configuration (SPEC syntax in faults.py); '' or None turns faults off."""
        if self._thread is None:
            self.faults.set(spec)
        else:
            self.call(self.faults.set, spec)
