#!/usr/bin/env python
"""How far one task travels through the collection's code before it writes: the files and the
cross-file calls of one `rollout_bluegreen state: switched` task (an app prepared before), from the
module's `main` to its first write to the API server.

Runs the module in this process against a kubesim (the module's arguments handed to AnsibleModule
as ansible-playbook would), follows every call with a profiler, and stops at the first request that
is not a GET. Prints the number of files of the collection that ran and of calls from one of its
files to another (each call counted, as the profiler sees it), and the files.

    .venv/bin/python scripts/call_paths.py [--show]

Run it from the repository root (the collection resolves through `.collections`).
"""

import argparse
import collections
import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / '.collections'), str(ROOT)]

from ansible.module_utils import basic  # noqa: E402

from tests.kubesim import KubeSim  # noqa: E402
from tests.integration.bluegreen.conftest import Apps  # noqa: E402

PLUGINS = str(ROOT / 'plugins') + os.sep
LINKED = str(ROOT / '.collections' / 'ansible_collections' / 'kubeops' / 'rollout' / 'plugins') + os.sep


class FirstWrite(Exception):
    pass


def ours(filename):
    for base in (PLUGINS, LINKED):
        if filename.startswith(base):
            return filename[len(base):]
    return None


def run_module(module, args):
    basic._ANSIBLE_ARGS = json.dumps({'ANSIBLE_MODULE_ARGS': args}).encode()
    if hasattr(basic, '_ANSIBLE_PROFILE'):  # ansible-core 2.19 and later
        basic._ANSIBLE_PROFILE = 'legacy'
    try:
        module.main()
    except SystemExit:
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--show', action='store_true', help='list the files and the calls between them')
    options = parser.parse_args()
    from ansible_collections.kubeops.rollout.plugins.module_utils.api import client as client_mod
    from ansible_collections.kubeops.rollout.plugins.modules import rollout_bluegreen

    sim = KubeSim(ready_delay=0.05).start()
    try:
        import tempfile
        config = sim.write_kubeconfig(pathlib.Path(tempfile.mkdtemp()) / 'kubeconfig')
        Apps(config).create_app(replicas=2)
        app = {'service': 'web', 'preview_service': 'web-preview',
               'deployments': {'blue': 'web-blue', 'green': 'web-green'}, 'images': {'app': 'nginx:1.26'}}
        args = {'kubeconfig': str(config), 'apps': [app], 'timeout': 30, 'soak_seconds': 0}
        run_module(rollout_bluegreen, dict(args, state='prepared'))

        real = client_mod.ApiClient.request

        def request(self, method, path, *a, **kw):
            if method != 'GET':
                raise FirstWrite('%s %s' % (method, path))
            return real(self, method, path, *a, **kw)

        client_mod.ApiClient.request = request
        basic._ANSIBLE_ARGS = json.dumps({'ANSIBLE_MODULE_ARGS': dict(args, state='switched')}).encode()
        files = collections.Counter()
        calls = collections.Counter()

        def profile(frame, event, _arg):
            if event != 'call':
                return
            callee = ours(frame.f_code.co_filename)
            if callee is None:
                return
            files[callee] += 1
            caller = frame.f_back
            while caller is not None and ours(caller.f_code.co_filename) is None:
                caller = caller.f_back  # through the standard library and ansible-core
            if caller is not None and ours(caller.f_code.co_filename) != callee:
                calls[(ours(caller.f_code.co_filename), callee)] += 1

        first = None
        sys.setprofile(profile)
        try:
            rollout_bluegreen.main()
        except FirstWrite as e:
            first = str(e)
        except SystemExit:
            pass
        finally:
            sys.setprofile(None)
            client_mod.ApiClient.request = real
    finally:
        sim.stop()
    print('first write: %s' % first)
    print('files: %d, cross-file calls: %d (distinct caller/callee file pairs: %d)'
          % (len(files), sum(calls.values()), len(calls)))
    if options.show:
        for name in sorted(files):
            print('  %s' % name)
        for (a, b), n in sorted(calls.items(), key=lambda kv: -kv[1]):
            print('  %4d  %s -> %s' % (n, a, b))


if __name__ == '__main__':
    main()
