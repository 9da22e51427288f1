"""What every benchmark suite shares: one kubesim, its API client, kubectl and ansible-playbook runners."""

import dataclasses
import os
import secrets
import shutil
import subprocess
import time

from . import ansible_run, fixtures
from .kube import KubeSim, describe, is_discovery

KUBECTL = os.path.join(ansible_run.VENV_BIN, 'kubectl')
# Pods become Ready this fast: the rollouts the writes start finish in well under a second.
READY_DELAY = 0.05


def request_summary(requests):
    """What a measurement keeps of its requests: count, discovery count, and what they were."""
    return {'count': len(requests), 'discovery': sum(1 for r in requests if is_discovery(r['path'])),
            'writes': sum(1 for r in requests if r['method'] in ('POST', 'PUT', 'PATCH', 'DELETE')),
            'sequence': [describe(r) for r in requests],
            'paths': [r['method'] + ' ' + r['path'] + ('?' + r['query'] if r.get('query') else '')
                      for r in requests]}


@dataclasses.dataclass
class KubectlRun:
    returncode: int
    seconds: float
    requests: list
    stderr: str


class Context:
    kubectl_path = KUBECTL

    def __init__(self, workdir, quick=False, log=print):
        self.workdir = workdir
        self.quick = quick
        self.log = log
        self.sim = None
        self.counter = 0

    def start(self):
        shutil.rmtree(self.workdir, ignore_errors=True)
        os.makedirs(self.workdir)
        # TLS and a bearer token, as a real cluster: every tool pays for the handshake.
        self.sim = KubeSim(os.path.join(self.workdir, 'kubesim'), ready_delay=READY_DELAY,
                           extra_args=['--tls', '--token', secrets.token_hex(16)]).start()
        fixtures.namespace(self.api, fixtures.NAMESPACE)
        fixtures.namespace(self.api, fixtures.CORE_NAMESPACE)
        return self

    def stop(self):
        if self.sim:
            self.sim.stop()

    @property
    def api(self):
        return self.sim.client

    @property
    def kubeconfig(self):
        return self.sim.kubeconfig

    def path(self, *parts):
        out = os.path.join(self.workdir, *parts)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        return out

    def fresh_dir(self, *parts):
        out = os.path.join(self.workdir, *parts)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        return out

    def kubectl(self, args, cache_dir, timeout=180, sim=None):
        """kubectl against ``sim`` (default: this context's kubesim), timed, with its requests."""
        sim = sim or self.sim
        start = sim.log.offset()
        t0 = time.monotonic()
        proc = subprocess.run([KUBECTL, '--kubeconfig', sim.kubeconfig, '--cache-dir', cache_dir, *args],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
        seconds = time.monotonic() - t0
        return KubectlRun(proc.returncode, seconds, sim.log.between(start), proc.stderr.strip())

    def playbook(self, tasks, label, environment=None, require_tasks=True, extra_env=None):
        """Run one play of ``tasks`` on localhost; tasks' requests come from kubesim's log."""
        self.counter += 1
        run = ansible_run.run_playbook([ansible_run.play(tasks, name=label, environment=environment)],
                                       os.path.join(self.workdir, 'playbooks'),
                                       f'{self.counter:03d}-{label}', request_log=self.sim.request_log_path,
                                       extra_env=extra_env)
        if require_tasks and not run.tasks:
            raise RuntimeError(f'ansible-playbook ran no task ({label}):\n{run.output[-3000:]}')
        return run
