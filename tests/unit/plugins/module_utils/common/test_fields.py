"""Fields: named values declared once, in order, with their defaults, taken as a signature takes them."""

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common.fields import REQUIRED, Fields


class Step(Fields):
    FIELDS = (
        ('route', REQUIRED),
        ('weight', REQUIRED),
        ('rule', None),
        ('timeout', 300),
    )


class Derived(Step):
    def __init__(self, *args, **kwargs):
        super(Derived, self).__init__(*args, **kwargs)
        self.rule = self.rule or []


def values(obj):
    return [getattr(obj, name) for name, _default in obj.FIELDS]


def test_positional_in_declared_order():
    assert values(Step('web', 10, 'main', 60)) == ['web', 10, 'main', 60]


def test_by_name_and_mixed():
    assert values(Step(weight=10, route='web', timeout=5)) == ['web', 10, None, 5]
    assert values(Step('web', 10, timeout=5)) == ['web', 10, None, 5]


def test_defaults():
    step = Step('web', 10)
    assert step.rule is None
    assert step.timeout == 300


def test_unknown_name_refused():
    with pytest.raises(TypeError, match="Step\\(\\) got an unexpected keyword argument 'weigth'"):
        Step('web', weigth=10)


def test_missing_required_refused():
    with pytest.raises(TypeError, match='Step\\(\\) missing required arguments: route, weight'):
        Step()
    with pytest.raises(TypeError, match='missing required arguments: weight'):
        Step('web', timeout=5)


def test_too_many_positional_refused():
    with pytest.raises(TypeError, match='Step\\(\\) takes at most 4 arguments \\(5 given\\)'):
        Step('web', 10, None, 60, 'extra')


def test_name_given_twice_refused():
    with pytest.raises(TypeError, match="Step\\(\\) got multiple values for argument 'route'"):
        Step('web', 10, route='api')


def test_subclass_completes_after_the_fields():
    assert Derived('web', 10).rule == []
    assert Derived('web', 10).rule is not Derived('web', 10).rule
    assert Derived('web', 10, rule=['main']).rule == ['main']


def test_repr_names_every_field_in_order():
    assert repr(Step('web', 10)) == "Step(route='web', weight=10, rule=None, timeout=300)"
    assert repr(REQUIRED) == 'REQUIRED'


def test_no_fields_takes_nothing():
    assert repr(Fields()) == 'Fields()'
    with pytest.raises(TypeError):
        Fields(1)
