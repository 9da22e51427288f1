# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""How an exec credential plugin's program is run: the same limits on both execution paths.

``exec_plugin.py`` is handed a runner by the module's runtime (``run_process``)::

    rc, stdout, stderr, problem = runner(argv, env, timeout, max_output)

It starts ``argv`` (``argv[0]`` a path) with exactly the environment ``env``, standard input on
the null device, in a session of its own, and reads stdout and stderr (bytes) with ``collect``.
``problem`` is None, or why the program was stopped (with everything in its session); ``rc`` is
negative for a signal, as in ``subprocess``. A program that cannot be started raises ``OSError``.

The controller path's runner is plugins/plugin_utils/process_runner.py. The module path's is
``run_with(module.run_command, ...)``: run_command starts the program through a Python trampoline
(``NEW_SESSION``: the session and standard input, which run_command does not set, then ``execv``),
and the callback it calls before it reads the pipes reads them itself with ``collect``, under the
time and size limits run_command does not have. It then leaves run_command the pipes at their end.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import selectors
import signal
import sys
import time
from subprocess import TimeoutExpired

# Run by the module's own interpreter between run_command's fork and the plugin: a session of its
# own (so the plugin and whatever it starts can be stopped together), standard input on the null
# device, the signals Python ignores back to their default (as Popen does for its child), then the
# plugin in its place. If the plugin cannot be started, stderr says why after START_FAILED.
START_FAILED = 'kubeops.rollout exec start failed: errno '
START_FAILED_RC = 127
NEW_SESSION = '\n'.join([
    'import os, signal, sys',
    'for name in ("SIGPIPE", "SIGXFZ", "SIGXFSZ"):',
    '    if hasattr(signal, name):',
    '        signal.signal(getattr(signal, name), signal.SIG_DFL)',
    'os.setsid()',
    'null = os.open(os.devnull, os.O_RDONLY)',
    'os.dup2(null, 0)',
    'os.close(null)',
    'try:',
    '    os.execv(sys.argv[1], sys.argv[1:])',
    'except OSError as e:',
    '    os.write(2, (%r + str(e.errno)).encode())' % START_FAILED,
    '    os._exit(%d)' % START_FAILED_RC,
])


def collect(process, timeout, max_output):
    """Both pipes of ``process`` (a ``subprocess.Popen``) read to their end and the process waited
    for, within ``timeout`` seconds and ``max_output`` bytes on each pipe; otherwise the process
    and everything in its session are killed. Returns (stdout, stderr, problem or None). The pipes
    are left open: closing them is the caller's."""
    deadline = time.monotonic() + timeout
    buffers = {process.stdout: bytearray(), process.stderr: bytearray()}
    problem = None
    with selectors.DefaultSelector() as selector:
        for pipe in buffers:
            selector.register(pipe, selectors.EVENT_READ)
        while selector.get_map() and problem is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                problem = 'did not finish within %g seconds and was stopped' % timeout
                break
            for key, _events in selector.select(remaining):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                buffers[key.fileobj].extend(chunk)
                if len(buffers[key.fileobj]) > max_output:
                    problem = 'wrote more than %d bytes to %s and was stopped' % (
                        max_output, 'stdout' if key.fileobj is process.stdout else 'stderr')
                    break
    if problem is None:
        try:
            process.wait(max(0.0, deadline - time.monotonic()))
        except TimeoutExpired:
            problem = 'did not exit within %g seconds and was stopped' % timeout
    if problem is not None:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # its own session: children die with it
        except OSError:
            process.kill()
        process.wait()
    return bytes(buffers[process.stdout]), bytes(buffers[process.stderr]), problem


def run_with(run_command, argv, env, timeout, max_output):
    """The runner of the module path: ``argv`` run by ``run_command`` (an AnsibleModule's) as the
    module docstring says. ``env`` is complete: the module process's environment plus the plugin's."""
    collected = []

    def communicate(process):
        collected.append(collect(process, timeout, max_output))
        # run_command reads the pipes after this: the null device gives it their end at once, even
        # when something the plugin started outside its session still holds them.
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            for pipe in (process.stdout, process.stderr):
                os.dup2(null, pipe.fileno())
        finally:
            os.close(null)

    rc, _stdout, _stderr = run_command(
        [sys.executable, '-I', '-S', '-c', NEW_SESSION] + list(argv), environ_update=env,
        expand_user_and_vars=False, encoding=None, handle_exceptions=False,
        before_communicate_callback=communicate)
    stdout, stderr, problem = collected[0]
    if rc == START_FAILED_RC and stderr.startswith(START_FAILED.encode()):
        code = stderr[len(START_FAILED):].strip()
        code = int(code) if code.isdigit() else errno.ENOEXEC
        raise OSError(code, os.strerror(code))
    return rc, stdout, stderr, problem
