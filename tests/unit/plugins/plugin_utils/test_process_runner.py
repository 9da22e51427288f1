"""process_runner.py, the controller path's runner: the program gets exactly the environment given
and no standard input, a limit stops it, and a program that cannot start raises OSError. Real
credential plugins on both paths: module_utils/api/connection/test_exec_plugin.py."""

import errno
import sys

import pytest

from ansible_collections.kubeops.rollout.plugins.plugin_utils.process_runner import run

pytestmark = pytest.mark.unit


def test_the_program_gets_exactly_the_environment_given_and_no_input(monkeypatch):
    monkeypatch.setenv('NOT_GIVEN', 'x')
    code = ('import os, sys\n'
            'print([os.environ.get(n, "-") for n in ("GIVEN", "NOT_GIVEN")], repr(sys.stdin.read()))')
    assert run([sys.executable, '-c', code], {'GIVEN': 'yes'}, 10, 1000) == (
        0, b"['yes', '-'] ''\n", b'', None)


def test_a_limit_stops_the_program():
    rc, stdout, _err, problem = run([sys.executable, '-c', 'while True: print("x" * 100)'], {}, 10, 1000)
    assert rc == -9 and problem == 'wrote more than 1000 bytes to stdout and was stopped'
    assert len(stdout) > 1000


def test_a_program_that_cannot_start_raises(tmp_path):
    with pytest.raises(OSError) as raised:
        run([str(tmp_path / 'gone')], {}, 10, 1000)
    assert raised.value.errno == errno.ENOENT
