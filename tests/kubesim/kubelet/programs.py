"""What a container's process does, read from its `command` and `args` (kubesim runs no images).

`program(container)` gives a `Program` when the command says how the process ends, or None for a
process that keeps running (a server: every image without a command, and any command kubesim does
not know). A program runs `seconds` (on the controller clock) and exits with `code`:

- `sh -c SCRIPT` (also bash, ash, dash; `/bin/sh` ...): the script's statements in order, split at
  `;`, `&&`, `||` and newlines. `exit N` ends it with N; `sleep N` (s, m, h suffixes) adds N
  seconds; `true` and `:` succeed, `false` fails; `echo`, `printf`, `cat`, `date`, `env`, `ls`,
  `test`/`[` and variable assignments succeed at once; `&&` and `||` skip the next statement by
  the last status. What `echo` (`-n`, `-e`) and `printf` (`%s`, `%d`, `%b`, `%%`, the escapes `\n`,
  `\t`, `\\`) print is the program's `output`, each piece at the second it is printed (to stdout
  or `>&2`, as the container log keeps both; redirected to a file it is not printed). Variables
  are not expanded: `$X` prints as written. `sleep infinity`, `while`/`until` loops, `tail -f`,
  `exec` of anything and any other command make it a process that keeps running. The last status
  is the exit code.
- a bare `sleep N`, `true`, `false`, `echo ...` likewise; anything else keeps running.

Without `command`, `args` stand for the whole command line (as for images without an entrypoint,
such as busybox).

`ignores_sigterm(container)` says whether the container's PID 1 ignores SIGTERM: the kernel
delivers no signal to a PID 1 that has no handler for it, so `sleep`, `tail -f` and a shell script
without `trap ... TERM` (its loops and sleeps included) keep running after the kubelet's SIGTERM
until the grace period ends and SIGKILL comes (exit 137). A script that traps TERM, and any
command kubesim does not know (a server's entrypoint), stop at once; so does a container without
a command (the image's entrypoint).
"""

import os
import re
import shlex

SHELLS = ('sh', 'bash', 'ash', 'dash')
_QUICK = ('echo', 'printf', 'cat', 'date', 'env', 'ls', 'test', '[', 'pwd', 'hostname', 'id', 'whoami',
          'mkdir', 'touch', 'cp', 'mv', 'rm', 'chmod', 'export', 'set', 'cd', 'uname', 'wc', 'head')
_DURATION = re.compile(r'^([0-9]+(?:\.[0-9]+)?)([smhd]?)$')
_UNITS = {'': 1, 's': 1, 'm': 60, 'h': 3600, 'd': 86400}
_ASSIGNMENT = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*=')


class Program:
    __slots__ = ('seconds', 'code', 'scaled', 'output')

    def __init__(self, seconds, code, scaled=True, output=()):
        self.seconds = seconds  # how long it runs
        self.code = code  # its exit code
        self.scaled = scaled  # seconds on the controller clock (False: real seconds)
        self.output = tuple(output)  # (seconds after the start, text printed then)

    def __eq__(self, other):
        return isinstance(other, Program) and (self.seconds, self.code, self.scaled) == (
            other.seconds, other.code, other.scaled)

    def __repr__(self):
        return f'Program({self.seconds!r}, {self.code!r})'


class _Forever(Exception):
    """The process keeps running."""


def _sleep(words):
    if len(words) < 2:
        return 0.0
    match = _DURATION.match(words[1])
    if not match:
        raise _Forever()  # sleep infinity, or anything kubesim cannot read
    return float(match.group(1)) * _UNITS[match.group(2)]


_ESCAPES = {'n': '\n', 't': '\t', '\\': '\\', 'r': '\r', 'a': '\a', 'b': '\b', 'f': '\f', 'v': '\v',
            '"': '"', "'": "'"}
_ESCAPE = re.compile(r'\\(.)', re.S)
_CONVERSION = re.compile(r'%([-+ #0]*[0-9]*(?:\.[0-9]+)?)([sdib%])')
# Redirections that keep the text in the container's log (stdout and stderr both go there).
_TO_LOG = ('>&2', '1>&2', '2>&1', '>&1', '2>/dev/null', '2>&-')


def _unescaped(text):
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), '\\' + m.group(1)), text)


def _printf(args):
    """What ``printf FORMAT ARGS...`` prints: the format is used again while arguments are left."""
    if not args:
        return ''
    fmt, left = _unescaped(args[0]), list(args[1:])
    out = []
    while True:
        taken = []

        def convert(match, values=left, taken=taken):
            flags, kind = match.group(1), match.group(2)
            if kind == '%':
                return '%'
            value = values[len(taken)] if len(taken) < len(values) else ''
            taken.append(value)
            if kind in 'di':
                try:
                    return ('%' + flags + 'd') % int(value or 0)
                except ValueError:
                    return '0'
            if kind == 'b':
                value = _unescaped(value)
            return ('%' + flags + 's') % value
        out.append(_CONVERSION.sub(convert, fmt))
        left = left[len(taken):]
        if not left or not taken:
            return ''.join(out)


def _printed(name, words):
    """What ``echo`` or ``printf`` (``name``) prints with the arguments ``words``, or None when it
    is redirected to a file."""
    kept = []
    rest = iter(words)
    for word in rest:
        if word in _TO_LOG:
            continue
        if word in ('>', '>>', '1>', '1>>') or word.startswith(('>', '1>')):
            return None
        kept.append(word)
    if name == 'printf':
        return _printf(kept)
    newline, escapes = True, False
    while kept and kept[0] in ('-n', '-e', '-en', '-ne', '-E'):
        flag = kept.pop(0)
        newline = newline and 'n' not in flag
        escapes = 'e' in flag
    text = ' '.join(kept)
    return (_unescaped(text) if escapes else text) + ('\n' if newline else '')


def _statement(words):
    """(seconds, status, printed text or None) of one simple command; _Forever when it does not end."""
    if not words:
        return 0.0, 0, None
    while words and _ASSIGNMENT.match(words[0]):
        words = words[1:]
    if not words:
        return 0.0, 0, None
    name = os.path.basename(words[0])
    if name == 'sleep':
        return _sleep(words), 0, None
    if name in ('true', ':'):
        return 0.0, 0, None
    if name == 'false':
        return 0.0, 1, None
    if name in ('echo', 'printf'):
        return 0.0, 0, _printed(name, words[1:])
    if name in _QUICK:
        return 0.0, 0, None
    raise _Forever()


_SEPARATORS = re.compile(r'(;|&&|\|\||\n)')


def _script(text):
    """(seconds, exit status, output) of a shell script."""
    seconds, status, skip, output = 0.0, 0, None, []
    for piece in _SEPARATORS.split(text):
        piece = piece.strip()
        if piece in (';', '\n', ''):
            skip = None
            continue
        if piece in ('&&', '||'):
            skip = (piece == '&&' and status != 0) or (piece == '||' and status == 0)
            continue
        if skip:
            skip = None
            continue
        try:
            words = shlex.split(piece)
        except ValueError:
            raise _Forever() from None
        if words and words[0] in ('while', 'until', 'for', 'do', 'done', 'exec', 'tail', 'wait'):
            raise _Forever()
        if words and words[0] == 'exit':
            code = int(words[1]) if len(words) > 1 and words[1].lstrip('-').isdigit() else status
            return seconds, code % 256, output
        spent, status, printed = _statement(words)
        if printed:
            output.append((seconds, printed))
        seconds += spent
    return seconds, status, output


def program(container):
    """The container's `Program`, or None when its process keeps running."""
    command = list(container.get('command') or [])
    args = list(container.get('args') or [])
    argv = command + args if command else args
    if not argv or not all(isinstance(a, str) for a in argv):
        return None
    try:
        name = os.path.basename(argv[0])
        if name in SHELLS and '-c' in argv[1:]:
            at = argv.index('-c', 1)
            if at + 1 >= len(argv):
                return None
            seconds, code, output = _script(argv[at + 1])
        else:
            seconds, code, printed = _statement(argv)
            output = [(0.0, printed)] if printed else []
    except _Forever:
        return None
    return Program(seconds, code, output=output)


# Commands that install no SIGTERM handler: as PID 1 they ignore the kubelet's SIGTERM.
_NO_HANDLER = frozenset(('sleep', 'tail', 'true', 'false', 'cat', 'yes') + SHELLS)
_TRAP_TERM = re.compile(r'(^|[;&|\n(]|\bthen|\bdo)\s*trap\s+[^;&|\n]*\b(TERM|SIGTERM|15|EXIT|0)\b')
_SHELL_WORDS = frozenset(('while', 'until', 'for', 'do', 'done', 'if', 'then', 'else', 'elif', 'fi', 'wait',
                          'exit', 'break', 'continue', '{', '}', '(', ')'))


def _script_ignores_term(text):
    if _TRAP_TERM.search(text):
        return False
    for piece in _SEPARATORS.split(text):
        if piece.strip() in (';', '&&', '||', ''):
            continue
        try:
            words = shlex.split(piece.strip())
        except ValueError:
            return False
        while words and (words[0] in _SHELL_WORDS or _ASSIGNMENT.match(words[0])):
            words = words[1:]
        if not words:
            continue
        if words[0] == 'exec':
            return len(words) > 1 and os.path.basename(words[1]) in _NO_HANDLER - set(SHELLS)
        name = os.path.basename(words[0])
        if name not in _NO_HANDLER and name not in _QUICK:
            return False
    return True


def ignores_sigterm(container):
    """Whether the container's PID 1 ignores SIGTERM (see the module's text)."""
    command = list(container.get('command') or [])
    args = list(container.get('args') or [])
    argv = command + args if command else args
    if not argv or not all(isinstance(a, str) for a in argv):
        return False
    name = os.path.basename(argv[0])
    if name in SHELLS:
        if '-c' in argv[1:] and argv.index('-c', 1) + 1 < len(argv):
            return _script_ignores_term(argv[argv.index('-c', 1) + 1])
        return False
    return name in _NO_HANDLER
