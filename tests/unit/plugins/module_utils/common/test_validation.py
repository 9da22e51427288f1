import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import UpdateError
from ansible_collections.kubeops.rollout.plugins.module_utils.rc.state import Options
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.release.targets import (
    PreflightFailed,
    build_targets,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common.validation import (
    image_problems,
    label_problem,
    listed_twice,
    subdomain_problem,
)


@pytest.mark.parametrize('name', ['web', 'web-v2', 'a', 'web.example', '0web9', 'a' * 253])
def test_valid_object_names(name):
    assert subdomain_problem(name) is None


@pytest.mark.parametrize('name, words', [
    ('', 'must not be empty'),
    ('..', 'not a valid object name'),
    ('.', 'not a valid object name'),
    ('team-b/', 'not a valid object name'),
    ('Web', 'not a valid object name'),
    ('-web', 'not a valid object name'),
    ('web-', 'not a valid object name'),
    ('web..v2', 'not a valid object name'),
    ('web v2', 'not a valid object name'),
    ('a' * 254, 'longer than 253 characters'),
    (None, 'must not be empty'),
    (5, 'must not be empty'),
])
def test_invalid_object_names(name, words):
    assert words in subdomain_problem(name)


def test_namespaces_are_labels():
    assert label_problem('team-b') is None and label_problem('a' * 63) is None
    assert 'longer than 63' in label_problem('a' * 64)
    assert 'not a valid namespace name' in label_problem('team.b')
    assert 'not a valid namespace name' in label_problem('Shop')
    shown = label_problem('x/' * 200)
    assert 'characters' in shown and len(shown) < 300  # a long value is shortened in the message


def test_name_messages_word_for_word():
    assert subdomain_problem('') == 'an object name must not be empty'
    assert label_problem(None) == 'a namespace name must not be empty'
    assert subdomain_problem('Web') == (
        '"Web" is not a valid object name: lower case letters, digits, "-" and ".", starting and ending '
        'with a letter or digit (an RFC 1123 subdomain, e.g. "web" or "web-v2")')
    assert label_problem('team.b') == (
        '"team.b" is not a valid namespace name: lower case letters, digits and "-", starting and ending '
        'with a letter or digit (an RFC 1123 label, e.g. "shop" or "team-b")')
    assert label_problem('a' * 64) == '"%s" is longer than 63 characters' % ('a' * 64)


def test_image_problems():
    assert image_problems({'app': 'nginx:1.27', 'side': 5}) == []
    assert image_problems({'app': None, 'b': '', 'c': '  ', 'd': ' x', 'e': [], '': 'x'}) == [
        'a container name is empty',
        'container "app" has no image (got null)',
        'container "b" has an empty image',
        'container "c" has an empty image',
        'the image of container "d" has leading or trailing whitespace',
        'container "e" has no image (got list)',
    ]


RC = {'name': 'web', 'image': 'app:2', 'deployment_label_key': 'deployment', 'max_surge': 1,
      'max_unavailable': 0, 'update_period': 1.0, 'poll_interval': 1.0, 'timeout': 10.0, 'lease_duration': 30}


@pytest.mark.parametrize('changes, words', [
    ({'new_name': 'Web_v2'}, 'new_name "Web_v2" is not a valid object name'),
    ({'name': 'a/b'}, 'name "a/b" is not a valid object name'),
    ({'image': None, 'new_controller': {'metadata': {'name': 'x..y'}}},
     'new_controller.metadata.name "x..y" is not a valid object name'),
    ({'image': None, 'new_controller': {'metadata': 'web'}}, 'new_controller.metadata must be a mapping'),
    ({'name': 'a' * 230}, 'give new_name'),
    ({'image': ' '}, 'empty or has leading or trailing whitespace'),
])
def test_rolling_update_options_check_every_name(changes, words):
    with pytest.raises(UpdateError) as err:
        Options(**dict(RC, **changes))
    assert words in err.value.message


def test_rolling_update_long_name_with_new_name_is_fine():
    Options(**dict(RC, name='a' * 230, new_name='web-v2'))


def test_release_targets_check_names_and_namespaces():
    entries = [{'kind': 'Deployment', 'name': 'Web', 'images': {'app': 'x'}},
               {'kind': 'Deployment', 'name': 'db', 'namespace': 'team-b/', 'images': {'app': 'x'}},
               {'kind': 'Deployment', 'name': 'ok', 'images': {'app': 'x'}}]
    with pytest.raises(PreflightFailed) as err:
        build_targets(entries, 'shop')
    problems = err.value.args[0]
    assert len(problems) == 2
    assert 'workloads[0]: name "Web" is not a valid object name' in problems[0]
    assert 'workloads[1]: namespace "team-b/" is not a valid namespace name' in problems[1]


class _Named:
    def __init__(self, text):
        self.text = text

    def label(self):
        return self.text


def test_listed_twice_names_each_repeat_after_the_first():
    items = [_Named('Deployment shop/web'), _Named('Deployment shop/api'), _Named('Deployment shop/web'),
             _Named('Deployment shop/web')]
    assert listed_twice(items) == ['Deployment shop/web: listed twice'] * 2
    assert listed_twice(items[:2]) == []
