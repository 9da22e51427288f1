# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Classes of named values (a task's options): each declares its fields once, in order, with their
defaults, and is built as a function with that signature would be called."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class _Required:
    def __repr__(self):
        return 'REQUIRED'


# The default of a field that must be given.
REQUIRED = _Required()


class Fields:
    """Named values, declared in ``FIELDS``: ``(name, default)`` pairs in order, ``REQUIRED`` for a
    field without a default. ``__init__`` takes the values positionally (in that order) and by name,
    and refuses what a signature would: more values than fields, an unknown name, a name given twice,
    a required field missing (``TypeError``). A default is shared by every instance: a mutable one
    is None here and made in the subclass's ``__init__``, after this one."""

    FIELDS = ()

    def __init__(self, *args, **kwargs):
        cls = type(self).__name__
        names = [name for name, _default in self.FIELDS]
        if len(args) > len(names):
            raise TypeError('%s() takes at most %d arguments (%d given)' % (cls, len(names), len(args)))
        values = dict(zip(names, args))
        for name in kwargs:
            if name not in names:
                raise TypeError("%s() got an unexpected keyword argument '%s'" % (cls, name))
            if name in values:
                raise TypeError("%s() got multiple values for argument '%s'" % (cls, name))
        values.update(kwargs)
        missing = [name for name, default in self.FIELDS if default is REQUIRED and name not in values]
        if missing:
            raise TypeError('%s() missing required arguments: %s' % (cls, ', '.join(missing)))
        for name, default in self.FIELDS:
            setattr(self, name, values.get(name, default))

    def __repr__(self):
        return '%s(%s)' % (
            type(self).__name__,
            ', '.join('%s=%r' % (name, getattr(self, name)) for name, _default in self.FIELDS),
        )
