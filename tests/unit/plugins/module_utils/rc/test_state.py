"""Unit tests of module_utils/rc/state.py (the rolling update's state detection)."""

import copy

import pytest

from ansible_collections.kubeops.rollout.plugins.module_utils.common import errors
from ansible_collections.kubeops.rollout.plugins.module_utils.rc import objects
from ansible_collections.kubeops.rollout.plugins.module_utils.rc import state as rc_state
from tests.support.rc import DEFAULTS, KEY, NEXT, ORIGINAL, options, rc

pytestmark = pytest.mark.unit


# ---- options ------------------------------------------------------------------------------------
def test_options_rules():
    assert options().policy == rc_state.CLEANUP_RENAME
    assert options(new_name='web-2').policy == rc_state.CLEANUP_DELETE
    assert options(cleanup_policy='preserve').policy == rc_state.CLEANUP_PRESERVE
    with pytest.raises(errors.UpdateError, match="don't set image"):
        options(rollback=True)
    with pytest.raises(errors.UpdateError, match='set image'):
        options(image=None)
    with pytest.raises(errors.UpdateError, match='cannot both be 0'):
        options(max_surge=0, max_unavailable=0)
    with pytest.raises(errors.UpdateError, match='deployment_label_key cannot be empty'):
        options(deployment_label_key='')
    rc_state.Options(**dict(DEFAULTS, name='web', namespace='default', rollback=True))


# ---- state detection ------------------------------------------------------------------------------
def classify(opts, old, new=None, new_name='web-2', orphans=None):
    return rc_state.classify(opts, old, new, new_name, opts.target(old, 'default'), orphans)


def finished(old, image='nginx:1.26', value=None):
    """``old`` after an update to ``image`` renamed back: the target's template and selector."""
    target = objects.image_target(old, image, None, None, KEY, value)
    done = copy.deepcopy(old)
    done['spec']['template'] = target.template
    done['spec']['selector'] = target.selector
    return done


def in_progress(old, opts, replicas=1):
    target = opts.target(old, 'default')
    new = objects.new_controller_body(target, 'web-2', 'default', old, 3)
    new['metadata']['uid'] = 'uid-2'
    new['spec']['replicas'] = replicas
    return new


def test_classify_rollback():
    opts = options(image=None, rollback=True)
    plain = rc()
    assert rc_state.rollback_partial_name(opts, plain) is None
    assert rc_state.classify_rollback(opts, plain, None, None).phase == rc_state.NOTHING
    old = rc(annotations={NEXT: 'web-2', ORIGINAL: '3'}, replicas=2)
    assert rc_state.rollback_partial_name(opts, old) == 'web-2'
    decision = rc_state.classify_rollback(opts, old, 'web-2', in_progress(old, options()))
    assert decision == (rc_state.ROLL_BACK, 'web-2', 3)
    # The new RC is gone: leftover annotations are cleared, unless its pods wait for adoption.
    assert rc_state.classify_rollback(opts, old, 'web-2', None).phase == rc_state.LEFTOVERS
    emptied = rc(annotations={NEXT: 'web-2', ORIGINAL: '3'}, replicas=0)
    assert rc_state.rename_may_be_pending(emptied)
    with pytest.raises(errors.UpdateError, match='finishing its rename'):
        rc_state.classify_rollback(opts, emptied, 'web-2', None, released_pods=[{'metadata': {}}])
    with pytest.raises(errors.UpdateError, match='not the new controller of an update'):
        rc_state.classify_rollback(opts, rc(), 'web-2', rc('web-2', uid='uid-2'))


def test_classify_fresh_rc_starts():
    assert classify(options(), rc()).phase == rc_state.START


def test_classify_finished_update_is_complete():
    opts = options()
    assert classify(opts, finished(rc())).phase == rc_state.FINISHED


def test_classify_finished_by_kubectl_is_complete():
    # kubectl's label value is its own md5: recognised by the template, not the value.
    opts = options()
    assert classify(opts, finished(rc(), value='0123456789abcdef0123456789abcdef')).phase == rc_state.FINISHED


def test_classify_same_image_without_the_label_is_not_complete():
    opts = options(image='nginx:1.25')
    assert classify(opts, rc()).phase == rc_state.START  # and start() then asks for image_pull_policy


def test_classify_in_progress():
    opts = options()
    old = rc(annotations={objects.NEXT_CONTROLLER_ANNOTATION: 'web-2'})
    state = classify(opts, old, in_progress(old, opts))
    assert state.phase == rc_state.SCALING and state.new_name == 'web-2'


def test_classify_in_progress_to_another_image():
    opts = options()
    old = rc(annotations={objects.NEXT_CONTROLLER_ANNOTATION: 'web-2'})
    other = in_progress(old, options(image='nginx:9'))
    with pytest.raises(errors.UpdateError,
                       match=r'to image nginx:9 .*image: nginx:9, or roll it back with rollback: true'):
        classify(opts, old, other)


def test_classify_new_rc_of_another_source():
    opts = options()
    old = rc()
    new = in_progress(old, opts)
    new['metadata']['annotations'][objects.SOURCE_ID_ANNOTATION] = 'web:another-uid'
    with pytest.raises(errors.UpdateError, match='new controller of another update'):
        classify(opts, old, new)


def test_classify_cleanup_when_annotations_are_gone():
    opts = options()
    old = rc(replicas=0, annotations={objects.NEXT_CONTROLLER_ANNOTATION: 'web-2'})
    new = in_progress(old, opts, replicas=3)
    for key in (objects.SOURCE_ID_ANNOTATION, objects.DESIRED_REPLICAS_ANNOTATION):
        del new['metadata']['annotations'][key]
    assert classify(opts, old, new).phase == rc_state.CLEANUP


def test_classify_unrelated_existing_rc():
    opts = options()
    new = rc('web-2', image='nginx:1.26')
    with pytest.raises(errors.UpdateError, match='already exists and is not part of an update'):
        classify(opts, rc(), new)


def test_classify_interrupted_rename_adopts():
    opts = options()
    old = rc(replicas=0, annotations={NEXT: 'web-2', ORIGINAL: '3'})
    state = classify(opts, old, None, orphans=('h', [{'metadata': {'name': 'p'}}]))
    assert state.phase == rc_state.ADOPT and state.new_name == 'web-2'
