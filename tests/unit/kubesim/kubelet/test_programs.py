"""Which container commands leave PID 1 without a SIGTERM handler, and what `echo` and `printf` print
(kubelet/programs.py)."""

import pytest

from tests.kubesim.kubelet.programs import ignores_sigterm, program


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


@pytest.mark.parametrize('command, output', [
    (['sh', '-c', 'echo one; sleep 2; printf "%s=%d\\n" a 1 b 2; exit 3'],
     [(0.0, 'one\n'), (2.0, 'a=1\nb=2\n')]),
    (['sh', '-c', 'echo -n x >&2; echo kept 2>&1; echo lost > /tmp/f; echo also >>/tmp/f'],
     [(0.0, 'x'), (0.0, 'kept\n')]),
    (['sh', '-c', 'echo -e "a\\tb"; echo "a\\tb"; printf "100%%\\n"; printf "%b" "c\\n"'],
     [(0.0, 'a\tb\n'), (0.0, 'a\\tb\n'), (0.0, '100%\n'), (0.0, 'c\n')]),
    (['echo', 'hi', 'there'], [(0.0, 'hi there\n')]),
    (['sh', '-c', 'true || echo skipped; false && echo skipped; echo $HOME'], [(0.0, '$HOME\n')]),
])
def test_what_echo_and_printf_print_is_the_output(command, output):
    assert list(program({'command': command}).output) == output
