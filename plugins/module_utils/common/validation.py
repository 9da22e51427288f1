# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Checks of option values made before the first request, as the API server would make them.

Each ``*_problem`` function returns None for a good value, else what is wrong with it (the
caller names the option and the object); nothing here sends a request.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# The API server's limits: object names are RFC 1123 subdomains (names of most kinds) and
# namespaces RFC 1123 labels; integers the API stores are int32 or int64.
SUBDOMAIN_MAX = 253
LABEL_MAX = 63
INT32_MAX = 2 ** 31 - 1
INT64_MAX = 2 ** 63 - 1
_LABEL = r'[a-z0-9]([-a-z0-9]*[a-z0-9])?'
_SUBDOMAIN_RE = re.compile(r'^%s(\.%s)*$' % (_LABEL, _LABEL))
_LABEL_RE = re.compile(r'^%s$' % _LABEL)

# Every option counted in seconds has this upper bound: a longer wait is a typo, and Python's
# sleeps and thread waits overflow long before 1e30.
MAX_SECONDS = 7 * 24 * 3600


def _shown(value):
    text = str(value)
    return text if len(text) <= 70 else text[:60] + '... (%d characters)' % len(text)


def _rfc1123_problem(value, article, what, limit, pattern, allowed, example):
    """What makes ``value`` no valid ``what`` (matching ``pattern``, at most ``limit`` characters), or
    None; ``allowed`` and ``example`` describe the rule in the message."""
    if not isinstance(value, str) or not value:
        return '%s %s must not be empty' % (article, what)
    if len(value) > limit:
        return '"%s" is longer than %d characters' % (_shown(value), limit)
    if not pattern.match(value):
        return ('"%s" is not a valid %s: %s, starting and ending with a letter or digit (%s)'
                % (_shown(value), what, allowed, example))
    return None


def subdomain_problem(value):
    """What makes ``value`` no valid object name (an RFC 1123 subdomain), or None."""
    return _rfc1123_problem(value, 'an', 'object name', SUBDOMAIN_MAX, _SUBDOMAIN_RE,
                            'lower case letters, digits, "-" and "."',
                            'an RFC 1123 subdomain, e.g. "web" or "web-v2"')


def label_problem(value):
    """What makes ``value`` no valid namespace name (an RFC 1123 label), or None."""
    return _rfc1123_problem(value, 'a', 'namespace name', LABEL_MAX, _LABEL_RE,
                            'lower case letters, digits and "-"',
                            'an RFC 1123 label, e.g. "shop" or "team-b"')


def image_problems(images):
    """What is wrong with an ``images`` mapping ({container: image}), as a list of texts."""
    out = []
    for container in sorted(images, key=str):
        image = images[container]
        if not isinstance(container, str) or not container.strip():
            out.append('a container name is empty')
            continue
        if image is None or isinstance(image, (dict, list, bool)):
            got = 'null' if image is None else type(image).__name__
            out.append('container "%s" has no image (got %s)' % (container, got))
        elif not str(image).strip():
            out.append('container "%s" has an empty image' % container)
        elif str(image) != str(image).strip():
            out.append('the image of container "%s" has leading or trailing whitespace' % container)
    return out


def listed_twice(items):
    """A problem text for each item (anything with ``label()``) whose label an earlier one has: the
    same workload or app named twice in one task."""
    seen, out = set(), []
    for item in items:
        if item.label() in seen:
            out.append('%s: listed twice' % item.label())
        seen.add(item.label())
    return out


__all__ = ['SUBDOMAIN_MAX', 'LABEL_MAX', 'subdomain_problem', 'label_problem', 'image_problems',
           'listed_twice', 'MAX_SECONDS', 'INT32_MAX', 'INT64_MAX']
