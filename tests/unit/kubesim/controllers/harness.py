"""Drive a Store and a ControllerManager on an asyncio loop, without HTTP."""

import asyncio
import contextlib
import copy
import time

from tests.kubesim.apiserver.registry import resources
from tests.kubesim.controllers.manager import ControllerManager
from tests.kubesim.apiserver.registry.store import Store
from tests.support import manifests


class Harness:
    def __init__(self, **options):
        self.store = Store()
        self.store.admission = resources.admit
        options.setdefault('ready_delay', 0.02)
        self.mgr = ControllerManager(self.store, **options)

    # ---- object helpers ------------------------------------------------------------------------
    def create(self, resource, obj):
        return self.store.create(resource, copy.deepcopy(obj))

    def get(self, resource, name, namespace='default'):
        return self.store.get(resource, namespace, name)

    def list(self, resource, namespace='default', selector=None):
        from tests.kubesim.machinery.selectors import parse_label_selector

        return self.store.list(resource, namespace, label_selector=parse_label_selector(selector))

    def mutate(self, resource, name, change, namespace='default'):
        """Read, change in place with ``change(obj)``, write back (a PUT)."""
        obj = self.store.must_get(resource, namespace, name)
        change(obj)
        return self.store.update(resource, obj)

    def delete(self, resource, name, namespace='default', propagation='Background'):
        return self.store.delete(resource, namespace, name, propagation=propagation)

    # ---- waiting -------------------------------------------------------------------------------
    async def wait_for(self, predicate, what, timeout=10.0):
        """Poll ``predicate()`` until it returns a truthy value; fail with ``what`` on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f'timed out after {timeout}s waiting for {what}')
            await asyncio.sleep(0.01)

    async def settle(self, seconds=0.1):
        await asyncio.sleep(seconds)


def simulate(scenario, **options):
    """Run ``await scenario(harness)`` with the controller manager running beside it."""

    async def main():
        harness = Harness(**options)
        task = asyncio.create_task(harness.mgr.run())
        try:
            await asyncio.sleep(0)
            return await scenario(harness)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            assert harness.mgr.errors == 0, 'a controller raised (see the log)'

    return asyncio.run(main())


def deployment(name='web', replicas=3, image='nginx:1.25', namespace='default', **spec):
    return manifests.workload('Deployment', name, image, replicas, namespace=namespace, **spec)


def statefulset(name='db', replicas=3, image='redis:7', namespace='default', **spec):
    return manifests.workload('StatefulSet', name, image, replicas, namespace=namespace, **spec)


def daemonset(name='agent', image='fluentd:1', namespace='default', **spec):
    return manifests.workload('DaemonSet', name, image, namespace=namespace, **spec)


def set_image(image, container=0):
    def change(obj):
        obj['spec']['template']['spec']['containers'][container]['image'] = image

    return change
