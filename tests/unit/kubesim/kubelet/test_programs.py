"""Which container commands leave PID 1 without a SIGTERM handler (kubelet/programs.py)."""

import pytest

from tests.kubesim.kubelet.programs import ignores_sigterm


@pytest.mark.parametrize('container', [
    {'command': ['sleep', '600']},
    {'args': ['sleep', '10000']},  # an image without an entrypoint runs its args
    {'command': ['/bin/sh', '-c', 'while true; do sleep 1; done']},
    {'command': ['sh', '-c', 'echo started; sleep 3600']},
    {'command': ['sh', '-c', 'exec sleep 100']},
    {'command': ['tail', '-f', '/dev/null']},
])
def test_pid_1_without_a_handler_ignores_sigterm(container):
    assert ignores_sigterm(container) is True


@pytest.mark.parametrize('container', [
    {},  # the image's entrypoint: a server that stops on SIGTERM
    {'command': ['nginx', '-g', 'daemon off;']},
    {'command': ['sh', '-c', 'trap "exit 0" TERM; while true; do sleep 1; done']},
    {'command': ['sh', '-c', 'trap : SIGTERM\nsleep 100 & wait']},
    {'command': ['bash', '-c', 'trap cleanup 15; sleep 600']},
    {'command': ['sh', '-c', 'python app.py']},
    {'command': ['sh', '-c', 'exec nginx']},
])
def test_a_handler_or_an_unknown_program_stops_on_sigterm(container):
    assert ignores_sigterm(container) is False
