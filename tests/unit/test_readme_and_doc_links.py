"""What the README promises a newcomer (short, the install line, the two make commands) and that
every relative link of README.md and docs/*.md leads to a file that exists, and to a heading of it
when the link names one."""

import pathlib
import re

import pytest

pytestmark = pytest.mark.unit

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / 'README.md'
MAX_README_LINES = 250

FENCE = re.compile(r'^(```|~~~).*?^\1[^\n]*$', re.M | re.S)
CODE_SPAN = re.compile(r'(`+)(?:(?!\1).)+?\1', re.S)
LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
HEADING = re.compile(r'^#{1,6}\s+(.*?)\s*#*\s*$', re.M)


def _documents():
    return [README] + sorted((ROOT / 'docs').glob('*.md'))


def _prose(text):
    """The text without its code blocks and code spans, where a link is not a link."""
    return CODE_SPAN.sub('', FENCE.sub('', text))


def slug(heading):
    """The anchor GitHub gives a heading: lower case, markup and punctuation dropped (but - and _),
    spaces made hyphens."""
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', heading)  # a link in a heading keeps its text
    text = text.replace('`', '').replace('*', '').lower().strip()
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def anchors(path):
    out, seen = set(), {}
    for heading in HEADING.findall(FENCE.sub('', path.read_text())):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else '%s-%d' % (base, n))
    return out


def links(path):
    for target in LINK.findall(_prose(path.read_text())):
        if re.match(r'^[a-z][a-z0-9+.-]*:', target):  # https:, mailto: ...
            continue
        yield target


def test_slug_follows_github():
    assert slug('Blue/green: a preview, a switch verified on the endpoints') == \
        'bluegreen-a-preview-a-switch-verified-on-the-endpoints'
    assert slug('rollout_bluegreen (Services, EndpointSlices, HPAs)') == \
        'rollout_bluegreen-services-endpointslices-hpas'
    assert slug('Canary phases: `canary: start`, `promote`, `rollback`') == \
        'canary-phases-canary-start-promote-rollback'


def test_the_link_checker_finds_links_and_ignores_code():
    text = ('See [a](docs/a.md#x), ![img](b.png) and [c](https://example.com).\n'
            '`[not](a link)`\n```yaml\n[not](either)\n```\n')
    found = [t for t in LINK.findall(_prose(text)) if not t.startswith('https:')]
    assert found == ['docs/a.md#x', 'b.png']


def test_readme_is_what_a_newcomer_reads_first():
    text = README.read_text()
    lines = text.count('\n')
    assert lines <= MAX_README_LINES, 'README.md has %d lines, at most %d' % (lines, MAX_README_LINES)
    for needed in ('ansible-galaxy collection install kubeops.rollout', 'make demo', 'make test',
                   'docs/decisions.md#supported-versions'):
        assert needed in text, 'README.md lacks %r' % needed


@pytest.mark.parametrize('document', _documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(document):
    broken = []
    for target in links(document):
        path, _, anchor = target.partition('#')
        dest = (document.parent / path).resolve() if path else document
        if not dest.exists():
            shown = dest.relative_to(ROOT) if ROOT in dest.parents else dest
            broken.append('%s (no file %s)' % (target, shown))
        elif anchor and dest.suffix == '.md' and anchor not in anchors(dest):
            broken.append('%s (no heading with the anchor #%s in %s)' % (target, anchor, dest.name))
    assert broken == [], '%s: broken links: %s' % (document.relative_to(ROOT), '; '.join(broken))
