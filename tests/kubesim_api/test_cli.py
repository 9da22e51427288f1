"""`python -m tests.kubesim`: the ready line, the kubeconfig, and a clean exit on SIGTERM/SIGINT."""

import os
import pathlib
import selectors
import signal
import subprocess
import sys
import time

import pytest
import yaml

from .conftest import Http

pytestmark = pytest.mark.kubesim

ROOT = pathlib.Path(__file__).resolve().parents[2]


def start(*args):
    proc = subprocess.Popen([sys.executable, '-m', 'tests.kubesim', *map(str, args)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc


def ready_line(proc, timeout):
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    if not sel.select(timeout):
        return None
    return proc.stdout.readline()


def cpu_seconds(pid):
    """The CPU time (user + system) a running process has used so far (Linux /proc)."""
    fields = pathlib.Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def test_cli_starts_within_a_second(tmp_path):
    """Startup costs kubesim under a second: the CPU time it used until its ready line, which other
    work on the machine does not change (the wall-clock time it does: on an idle machine the two
    agree within a few hundredths of a second)."""
    began = time.monotonic()
    proc = start('--kubeconfig', tmp_path / 'kc', '--nodes', 1)
    try:
        line = ready_line(proc, 10)
        used = cpu_seconds(proc.pid)
        elapsed = time.monotonic() - began
        assert line and line.startswith('kubesim ready http://127.0.0.1:'), line
    finally:
        proc.terminate()
        proc.wait(10)
    assert used < 1.0, f'ready after {used:.2f} s of CPU time ({elapsed:.2f} s on the clock)'


@pytest.mark.parametrize('sig', [signal.SIGTERM, signal.SIGINT])
def test_cli_writes_kubeconfig_and_exits_zero(tmp_path, sig):
    kubeconfig = tmp_path / 'kc'
    proc = start('--kubeconfig', kubeconfig, '--nodes', 1)
    try:
        line = ready_line(proc, 10)
        assert line and line.startswith('kubesim ready http://127.0.0.1:'), line
        url = line.split()[-1]
        config = yaml.safe_load(kubeconfig.read_text())
        assert config['current-context'] == 'kubesim'
        assert config['clusters'] == [{'name': 'kubesim', 'cluster': {'server': url}}]
        assert config['contexts'][0]['context'] == {'cluster': 'kubesim', 'user': 'kubesim',
                                                    'namespace': 'default'}
        assert oct(os.stat(kubeconfig).st_mode & 0o777) == '0o600'
        assert Http(url).get('/version')[0] == 200
        proc.send_signal(sig)
        assert proc.wait(10) == 0
        assert proc.stdout.read() == '', 'exactly one line on stdout'
        assert 'Traceback' not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_cli_options_tls_token_port_and_request_log(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    log = tmp_path / 'log.jsonl'
    proc = start('--kubeconfig', tmp_path / 'kc', '--tls', '--token', 'tok', '--port', port,
                 '--request-log', log, '--faults', 'seed=1;conflict=configmaps/default/x:1')
    try:
        line = ready_line(proc, 5)
        assert line.strip() == f'kubesim ready https://127.0.0.1:{port}'
        config = yaml.safe_load((tmp_path / 'kc').read_text())
        assert config['users'][0]['user'] == {'token': 'tok'}
        assert 'certificate-authority-data' in config['clusters'][0]['cluster']
        proc.terminate()
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize('args, message', [
    (['--faults', '429=7'], 'between 0 and 1'),
    (['--time-scale', '0'], 'time-scale'),
    (['--stop-delay', '-1'], '--stop-delay must not be negative'),
    (['--endpoint-lag', '-1'], '--endpoint-lag must not be negative'),
    (['--faults', 'unready=pods/default/web-0'], 'expected pods/NAMESPACE/NAME:AFTER[:DURATION]'),
    ([], 'required: --kubeconfig'),
])
def test_cli_rejects_bad_options_with_a_message(tmp_path, args, message):
    if args:
        args = ['--kubeconfig', tmp_path / 'kc', *args]
    proc = subprocess.run([sys.executable, '-m', 'tests.kubesim', *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and message in proc.stderr and 'Traceback' not in proc.stderr


def test_cli_port_in_use_is_a_clear_error(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        s.listen()
        port = s.getsockname()[1]
        proc = subprocess.run([sys.executable, '-m', 'tests.kubesim', '--kubeconfig', tmp_path / 'kc',
                               '--port', str(port)], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1 and 'cannot serve' in proc.stderr and 'Traceback' not in proc.stderr
