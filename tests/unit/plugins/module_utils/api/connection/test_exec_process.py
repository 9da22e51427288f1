"""exec_process.py: the reading of a program's output under a time and size limit (``collect``) and
the module path's runner (``run_with``) on a real AnsibleModule's run_command. Both paths' runners
running real credential plugins are in test_exec_plugin.py."""

import errno
import os
import subprocess
import sys
import time

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import AnsibleRuntime
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.exec_process import (
    collect,
    run_with,
)

pytestmark = pytest.mark.unit


def collected(code, timeout=10, max_output=1000):
    process = subprocess.Popen([sys.executable, '-c', code], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    try:
        return collect(process, timeout, max_output) + (process.returncode,)
    finally:
        process.stdout.close()
        process.stderr.close()


def test_collect_reads_both_pipes_to_their_end():
    code = 'import sys; sys.stdout.write("out" * 300); sys.stderr.write("err"); sys.exit(4)'
    assert collected(code) == (b'out' * 300, b'err', None, 4)


def test_collect_stops_a_program_over_the_size_limit_on_either_pipe():
    _out, stderr, problem, rc = collected('import sys, time\nsys.stderr.write("e" * 1001)\n'
                                          'sys.stderr.flush()\ntime.sleep(30)')
    assert problem == 'wrote more than 1000 bytes to stderr and was stopped' and rc == -9
    assert len(stderr) > 1000


def test_collect_stops_a_program_that_runs_too_long():
    start = time.monotonic()
    _out, _err, problem, rc = collected('import time; time.sleep(30)', timeout=0.5)
    assert problem == 'did not finish within 0.5 seconds and was stopped' and rc == -9
    assert time.monotonic() - start < 5


@pytest.fixture
def run_command():
    with patch_module_args({}):
        return AnsibleRuntime(argument_spec={}).run_command


def test_run_with_passes_the_arguments_as_they_are_and_the_environment(run_command):
    code = 'import json, os, sys; print(json.dumps([sys.argv[1:], os.environ["GIVEN"]]))'
    result = run_with(run_command, [sys.executable, '-c', code, '$HOME', '~/x', 'a b'],
                      dict(os.environ, GIVEN='from-env'), 10, 1000)
    # run_command would expand $HOME and ~ unless told not to.
    assert result == (0, b'[["$HOME", "~/x", "a b"], "from-env"]\n', b'', None)


def test_run_with_reports_the_problem_and_the_signal(run_command):
    rc, _out, stderr, problem = run_with(
        run_command, [sys.executable, '-c', 'import sys, time; sys.stderr.write("slow"); time.sleep(30)'],
        dict(os.environ), 0.5, 1000)
    assert (rc, stderr, problem) == (-9, b'slow', 'did not finish within 0.5 seconds and was stopped')


def test_run_with_raises_when_the_program_cannot_be_started(run_command, tmp_path):
    with pytest.raises(OSError) as raised:
        run_with(run_command, [str(tmp_path / 'gone')], dict(os.environ), 10, 1000)
    assert (raised.value.errno, raised.value.strerror) == (errno.ENOENT, os.strerror(errno.ENOENT))


def test_a_program_failing_with_the_trampolines_exit_code_is_no_start_failure(run_command):
    rc, _out, stderr, problem = run_with(
        run_command, [sys.executable, '-c', 'import sys; sys.stderr.write("not found"); sys.exit(127)'],
        dict(os.environ), 10, 1000)
    assert (rc, stderr, problem) == (127, b'not found', None)
