#!/usr/bin/env python3
"""The return-value documentation several modules share has one source: docs/return_blocks.yml.

A module's RETURN holds a shared block between two comment lines, at the block's indentation:

    # shared: diagnosis
    ...the block, as docs/return_blocks.yml has it, indented to the comment...
    # end: diagnosis

ansible-doc cannot include documentation into RETURN (doc fragments extend DOCUMENTATION only), so
the text is copied into the modules by this script, and `make test` checks that every copy is the
source's (tests/unit/test_return_docs.py).

    scripts/return_docs.py          rewrite the copies from the source
    scripts/return_docs.py --check  list the copies that differ; exit 1 if any
"""

import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT / 'docs' / 'return_blocks.yml'
MODULES = ROOT / 'plugins' / 'modules'
BEGIN = re.compile(r'^(?P<indent> *)# shared: (?P<name>[a-z_]+)$')


def blocks():
    """{name: text} from the source: each block's text at indentation 0, ending with a newline.

    A block may hold another between its own "# shared:"/"# end:" lines (left empty in the
    source); it is written out there, so the text each module holds is whole."""
    data = yaml.safe_load(SOURCE.read_text())
    raw = {name: text if text.endswith('\n') else text + '\n' for name, text in data.items()}
    out = {}

    def expand(name, seen):
        if name in seen:
            raise ValueError('shared block %r includes itself' % name)
        if name not in out:
            inner = {other: expand(other, seen + (name,)) for other in _included(raw[name]) if other in raw}
            out[name] = synced(raw[name], inner)[0]
        return out[name]

    for name in raw:
        expand(name, ())
    return out


def _included(text):
    """The names of the blocks ``text`` includes, in order."""
    return [m.group('name') for m in map(BEGIN.match, text.splitlines()) if m]


def _indented(text, indent):
    return ''.join((indent + line if line.strip() else line) for line in text.splitlines(True))


def synced(source, shared):
    """``source`` (a module's text) with every shared region rewritten from ``shared``; (text, names)."""
    lines = source.splitlines(True)
    out, used, i = [], [], 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        match = BEGIN.match(line.rstrip('\n'))
        i += 1
        if not match:
            continue
        name, indent = match.group('name'), match.group('indent')
        if name not in shared:
            raise ValueError('unknown shared block %r (not in %s)' % (name, SOURCE.name))
        end = '%s# end: %s\n' % (indent, name)
        try:
            stop = lines.index(end, i)
        except ValueError:
            raise ValueError('shared block %r has no end line %r' % (name, end.strip()))
        out.append(_indented(shared[name], indent))
        out.append(end)
        used += [name] + _included(shared[name])
        i = stop + 1
    return ''.join(out), used


def modules():
    return sorted(MODULES.glob('*.py'))


def stale():
    """The modules whose shared regions differ from the source."""
    shared = blocks()
    return [path.name for path in modules() if synced(path.read_text(), shared)[0] != path.read_text()]


def usage():
    """{block name: [modules using it]}."""
    shared = blocks()
    out = {name: [] for name in shared}
    for path in modules():
        for name in synced(path.read_text(), shared)[1]:
            out[name].append(path.stem)
    return out


def main(argv):
    if argv[1:] == ['--check']:
        differ = stale()
        for name in differ:
            print('%s: a shared return block differs from %s; run scripts/return_docs.py'
                  % (name, SOURCE.relative_to(ROOT)))
        return 1 if differ else 0
    shared = blocks()
    for path in modules():
        text, _ = synced(path.read_text(), shared)
        if text != path.read_text():
            path.write_text(text)
            print('updated %s' % path.relative_to(ROOT))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
