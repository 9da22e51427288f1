"""The verb markers (tests/conftest.py): a test is tied to a verb by its path, name or code."""

import pathlib

from tests.conftest import _verb_markers


class _Item:
    def __init__(self, path, name, function):
        self.path, self.name, self.function = pathlib.Path(path), name, function


def _calls_undo():
    return {'kubeops.rollout.rollout_undo': {'name': 'web'}}


def _reads_the_lease():
    return 'rolling_update_rc'


def test_a_test_is_marked_by_what_it_calls_and_where_it_lives():
    assert _verb_markers(_Item('tests/integration/test_x.py', 'test_a', _calls_undo)) == ['undo']
    assert {'rolling_update', 'rc'} <= set(_verb_markers(
        _Item('tests/unit/plugins/module_utils/rc/test_lease.py', 'test_b', _reads_the_lease)))
    assert _verb_markers(_Item('tests/integration/rc/test_z.py', 'test_d', lambda: None)) == [
        'rolling_update', 'rc']
    assert _verb_markers(_Item('tests/unit/test_y.py', 'test_c', lambda: None)) == []
