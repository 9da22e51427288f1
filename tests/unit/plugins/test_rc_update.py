"""Unit tests of the rolling update's pure part (module_utils/rc): step math, objects, state detection."""

import copy
import itertools
import random

import pytest

from ansible_collections.kubeops.rollout.plugins.modules.rolling_update_rc import ARGUMENT_SPEC
from ansible_collections.kubeops.rollout.plugins.module_utils import errors, times
from ansible_collections.kubeops.rollout.plugins.module_utils.rc import objects
from ansible_collections.kubeops.rollout.plugins.module_utils.rc import state as rc_state
from ansible_collections.kubeops.rollout.plugins.module_utils.rc import steps as step_math

pytestmark = pytest.mark.unit

DEFAULTS = {name: spec.get('default') for name, spec in ARGUMENT_SPEC.items()}
KEY = DEFAULTS['deployment_label_key']
NEXT, ORIGINAL = objects.NEXT_CONTROLLER_ANNOTATION, objects.ORIGINAL_REPLICAS_ANNOTATION
SOURCE, DESIRED = objects.SOURCE_ID_ANNOTATION, objects.DESIRED_REPLICAS_ANNOTATION


def rc(name='web', image='nginx:1.25', replicas=3, containers=None, selector=None, labels=None,
       annotations=None, uid='uid-1'):
    labels = dict(labels or {'app': 'web'})
    obj = {'apiVersion': 'v1', 'kind': 'ReplicationController',
           'metadata': {'name': name, 'namespace': 'default', 'uid': uid, 'resourceVersion': '10',
                        'labels': {'app': 'web'}},
           'spec': {'replicas': replicas, 'selector': dict(selector or labels),
                    'template': {'metadata': {'labels': labels},
                                 'spec': {'containers': containers or [{'name': 'app', 'image': image}]}}},
           'status': {'replicas': replicas}}
    if annotations:
        obj['metadata']['annotations'] = dict(annotations)
    return obj


def options(**kw):
    base = dict(DEFAULTS, name='web', namespace='default', image='nginx:1.26')
    base.update(kw)
    return rc_state.Options(**base)


def steps(old, new, desired, surge, unavailable, **kw):
    lim = step_math.limits(surge, unavailable, desired, old)
    return [(s.action, s.to_replicas) for s in step_math.plan_steps(old, new, lim, **kw)]


# ---- fenceposts ----------------------------------------------------------------------------------
@pytest.mark.parametrize('surge, unavailable, desired, expected', [
    (1, 0, 3, (1, 0)),
    ('25%', '25%', 10, (3, 2)),  # surge rounds up, unavailable down
    ('10%', '10%', 3, (1, 0)),
    ('1%', '1%', 2, (1, 0)),
    ('0%', '1%', 2, (0, 1)),  # both resolve to 0: unavailable becomes 1
    (0, '30%', 10, (0, 3)),
    ('2', '1', 5, (2, 1)),  # digit strings (YAML) are numbers
    ('50%', 0, 0, (0, 1)),
])
def test_resolve_fenceposts(surge, unavailable, desired, expected):
    assert step_math.resolve_fenceposts(surge, unavailable, desired) == expected


@pytest.mark.parametrize('surge, unavailable, message', [
    (0, 0, 'cannot both be 0'),
    ('0%', '0', 'cannot both be 0'),
    ('abc', 1, 'max_surge must be an integer or a percentage'),
    (1, '-5%', 'max_unavailable must be an integer or a percentage'),
    (-1, 1, 'must not be negative'),
    (True, 1, 'max_surge must be an integer'),
])
def test_check_fenceposts_rejects(surge, unavailable, message):
    with pytest.raises(errors.UpdateError, match=message):
        step_math.check_fenceposts(surge, unavailable)


def test_limits_zero_desired_lets_everything_go():
    lim = step_math.limits(1, 0, 0, 4)
    assert (lim.desired, lim.unavailable, lim.min_available) == (0, 4, 0)


# ---- the step plan -------------------------------------------------------------------------------
def test_plan_defaults_one_pod_at_a_time():
    assert steps(3, 0, 3, 1, 0) == [('scale up', 1), ('scale down', 2), ('scale up', 2), ('scale down', 1),
                                    ('scale up', 3), ('scale down', 0)]


def test_plan_surge_0_unavailable_1_scales_down_first():
    assert steps(3, 0, 3, 0, 1) == [('scale down', 2), ('scale up', 1), ('scale down', 1), ('scale up', 2),
                                    ('scale down', 0), ('scale up', 3)]


def test_plan_percentages():
    assert steps(10, 0, 10, '25%', '25%') == [('scale up', 3), ('scale down', 5), ('scale up', 8),
                                              ('scale down', 0), ('scale up', 10)]


def test_plan_zero_desired_is_one_scale_down():
    assert steps(3, 0, 0, 1, 0) == [('scale down', 0)]
    assert steps(0, 0, 0, 1, 0) == []


def test_plan_from_zero_old_scales_new_all_the_way():
    assert steps(0, 0, 4, 1, 0) == [('scale up', 4)]


def test_plan_resumes_from_a_partial_state():
    # Killed after the new RC reached 2 of 3 and the old one 1: the rest of the same plan.
    assert steps(1, 2, 3, 1, 0) == [('scale up', 3), ('scale down', 0)]


def test_plan_grows_desired_count():
    # A definition may ask for more replicas than the old RC had.
    assert steps(2, 0, 5, 1, 0) == [('scale up', 4), ('scale down', 1), ('scale up', 5), ('scale down', 0)]


def test_step_records_both_counts():
    lim = step_math.limits(1, 0, 2, 2)
    first, second = step_math.plan_steps(2, 0, lim, 'web', 'web-2')[:2]
    assert step_math.step_dict(first) == {'action': 'scale up', 'controller': 'web-2', 'from': 0, 'to': 1,
                                   'old_replicas': 2, 'new_replicas': 1}
    assert step_math.step_dict(second) == {'action': 'scale down', 'controller': 'web', 'from': 2, 'to': 1,
                                    'old_replicas': 1, 'new_replicas': 1}


def test_scale_down_waits_for_new_pods():
    lim = step_math.limits(1, 0, 3, 3)
    assert step_math.scale_down_target(3, 1, 0, lim) is None  # the new pod is not ready: nothing may go
    assert step_math.scale_down_target(3, 1, 1, lim) == 2


def test_scale_down_all_the_way_once_new_is_available():
    lim = step_math.limits(3, 0, 3, 3)  # a large surge: old may still have 3 when new has 3
    assert step_math.scale_down_target(3, 3, 3, lim) == 0


def test_scale_up_respects_surge_and_desired():
    lim = step_math.limits(2, 0, 3, 3)
    assert step_math.scale_up_target(3, 0, lim) == 2
    assert step_math.scale_up_target(3, 2, lim) is None  # 5 = desired + surge already
    assert step_math.scale_up_target(0, 2, lim) == 3  # nothing old left: all the way
    assert step_math.scale_up_target(1, 3, lim) is None


def _check_invariants(old, new, desired, surge, unavailable, ready_model):
    """Simulate the loop with a readiness model; check both bounds after every step."""
    lim = step_math.limits(surge, unavailable, desired, old)
    available_new = [0]

    def ready(new_replicas, rnd):
        available_new[0] = min(new_replicas, ready_model(new_replicas, rnd, available_new[0]))
        return available_new[0]

    plan = step_math.plan_steps(old, new, lim, ready=ready, max_rounds=5000)
    cur_old, cur_new, avail = old, new, 0
    for step in plan:
        if step.action == 'scale up':
            cur_new = step.to_replicas
            assert cur_old + cur_new <= desired + lim.surge, (step, lim)
        else:
            cur_old = step.to_replicas
            avail = min(cur_new, available_new[0])
            # Old pods are all available; only new ones may lag.
            assert cur_old + avail >= lim.min_available, (step, lim, avail)
    assert (cur_old, cur_new) == (0, desired)
    return plan


@pytest.mark.parametrize('desired, surge, unavailable', [
    (3, 1, 0), (3, 0, 1), (5, 2, 1), (10, '25%', '25%'), (4, '50%', 0), (1, 1, 0), (1, 0, 1), (7, 3, 3),
    (0, 1, 0), (6, 0, '34%'), (2, '100%', 0),
])
def test_invariants_hold_at_every_step(desired, surge, unavailable):
    models = {
        'instant': lambda n, rnd, prev: n,
        'one round late': lambda n, rnd, prev: prev if rnd % 2 else n,
        'one pod per round': lambda n, rnd, prev: min(n, prev + 1),
    }
    for model in models.values():
        _check_invariants(desired, 0, desired, surge, unavailable, model)


def test_invariants_hold_with_random_readiness():
    rng = random.Random(7)
    for desired, surge, unavailable in itertools.product((1, 2, 5, 8), (0, 1, 3, '25%'), (0, 1, '50%')):
        if step_math._is_zero(surge) and step_math._is_zero(unavailable):
            continue
        _check_invariants(desired, 0, desired, surge, unavailable,
                          lambda n, rnd, prev: max(prev, min(n, prev + rng.randint(0, 2))))


def test_plan_stops_when_new_pods_never_become_ready():
    lim = step_math.limits(1, 0, 3, 3)
    with pytest.raises(errors.UpdateError, match='no progress'):
        step_math.plan_steps(3, 0, lim, ready=lambda n, rnd: 0, max_rounds=50)


# ---- hashes, labels, annotations -------------------------------------------------------------------
def test_template_hash_is_md5_hex_and_ignores_the_deployment_label():
    template = rc()['spec']['template']
    h = objects.template_hash(template, {'app': 'web'}, KEY)
    assert len(h) == 32 and int(h, 16) >= 0
    labelled = copy.deepcopy(template)
    labelled['metadata']['labels'][KEY] = 'abc-orig'
    assert objects.template_hash(labelled, {'app': 'web', KEY: 'abc-orig'}, KEY) == h
    other = copy.deepcopy(template)
    other['spec']['containers'][0]['image'] = 'nginx:1.26'
    assert objects.template_hash(other, {'app': 'web'}, KEY) != h


def test_orig_label_value():
    value = objects.orig_label_value(rc(), KEY)
    assert value.endswith('-orig') and len(value) == 32 + len('-orig')


def test_image_target_copies_the_old_rc():
    old = rc(annotations={'team': 'a', NEXT: 'x', ORIGINAL: '3'})
    target = objects.image_target(old, 'nginx:1.26', None, 'Always', KEY)
    container = target.template['spec']['containers'][0]
    assert container == {'name': 'app', 'image': 'nginx:1.26', 'imagePullPolicy': 'Always'}
    value = target.selector[KEY]
    assert target.template['metadata']['labels'] == {'app': 'web', KEY: value}
    assert target.selector == {'app': 'web', KEY: value}
    assert target.annotations == {'team': 'a'}  # update annotations are not copied
    assert target.replicas == 3
    assert old['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.25'  # not mutated


def test_image_target_same_for_old_rc_labelled_orig():
    old = rc()
    labelled = copy.deepcopy(old)
    labelled['spec']['selector'][KEY] = objects.orig_label_value(old, KEY)
    labelled['spec']['template']['metadata']['labels'][KEY] = labelled['spec']['selector'][KEY]
    a = objects.image_target(old, 'nginx:1.26', None, None, KEY)
    b = objects.image_target(labelled, 'nginx:1.26', None, None, KEY)
    assert a.template == b.template and a.selector == b.selector


def test_container_rules():
    two = rc(containers=[{'name': 'app', 'image': 'a:1'}, {'name': 'side', 'image': 'b:1'}])
    with pytest.raises(errors.UpdateError, match=r'has 2 containers \(app, side\): set container'):
        objects.image_target(two, 'a:2', None, None, KEY)
    with pytest.raises(errors.UpdateError, match=r'container "nope" not found .* \(containers: app, side\)'):
        objects.image_target(two, 'a:2', 'nope', None, KEY)
    target = objects.image_target(two, 'b:2', 'side', None, KEY)
    assert [c['image'] for c in target.template['spec']['containers']] == ['a:1', 'b:2']


def test_same_image_needs_pull_policy():
    opts = options(image='nginx:1.25')
    old = rc()
    with pytest.raises(errors.UpdateError, match='image_pull_policy .* must be given when image is the same'):
        opts.check_can_start(old, opts.target(old, 'default'))
    options(image='nginx:1.25', image_pull_policy='Always').check_can_start(old, None)


def test_new_controller_body_has_kubectls_annotations():
    old = rc()
    target = objects.image_target(old, 'nginx:1.26', None, None, KEY)
    body = objects.new_controller_body(target, 'web-2', 'default', old, 3)
    assert body['spec']['replicas'] == 0
    assert body['metadata']['annotations'] == {objects.DESIRED_REPLICAS_ANNOTATION: '3',
                                               objects.SOURCE_ID_ANNOTATION: 'web:uid-1'}
    assert 'uid' not in body['metadata'] and 'status' not in body
    # created at its first scale-up instead of 0 and then scaled
    first = objects.new_controller_body(target, 'web-2', 'default', old, 3, replicas=1)
    assert first['spec']['replicas'] == 1


def test_renamed_body_keeps_identity_and_drops_update_annotations():
    old = rc(annotations={NEXT: 'web-2', ORIGINAL: '3'})
    new = rc('web-2', image='nginx:1.26', selector={'app': 'web', KEY: 'h'}, labels={'app': 'web', KEY: 'h'},
             annotations={SOURCE: 'web:uid-1', DESIRED: '3', 'team': 'a'},
             uid='uid-2')
    body = objects.renamed_body(old, new, 3)
    assert body['metadata']['name'] == 'web' and body['metadata']['uid'] == 'uid-1'
    assert body['metadata']['resourceVersion'] == '10'  # the update is guarded
    assert body['metadata']['annotations'] == {'team': 'a'}
    assert body['spec']['selector'] == {'app': 'web', KEY: 'h'}
    assert body['spec']['template']['spec']['containers'][0]['image'] == 'nginx:1.26'
    assert 'status' not in body


def test_definition_target_validation():
    old = rc()
    good = {'metadata': {'name': 'web-v2'},
            'spec': {'selector': {'app': 'web', 'v': '2'},
                     'template': {'metadata': {'labels': {'app': 'web', 'v': '2'}},
                                  'spec': {'containers': [{'name': 'app', 'image': 'x:2'}]}}}}
    target = objects.definition_target(good, old, 'default')
    assert target.name == 'web-v2' and target.replicas == 3  # defaults to the old size
    with pytest.raises(errors.UpdateError, match='same namespace'):
        objects.definition_target(dict(good, metadata={'name': 'a', 'namespace': 'other'}), old, 'default')
    with pytest.raises(errors.UpdateError, match='not a ReplicationController'):
        objects.definition_target(dict(good, kind='Deployment'), old, 'default')
    with pytest.raises(errors.UpdateError, match='needs metadata.name'):
        objects.definition_target(dict(good, metadata={}), old, 'default')
    with pytest.raises(errors.UpdateError, match='differs from new_controller metadata.name'):
        objects.definition_target(good, old, 'default', new_name='other')
    with pytest.raises(errors.UpdateError, match='different value'):
        objects.check_distinct_selectors(old, objects.definition_target(
            dict(good, spec=dict(good['spec'], selector={'app': 'web'})), old, 'default'))


def test_subset_matches_ignores_server_defaults():
    wanted = {'spec': {'containers': [{'name': 'a', 'image': 'x'}]}}
    actual = {'spec': {'containers': [{'name': 'a', 'image': 'x', 'imagePullPolicy': 'IfNotPresent'}],
                       'restartPolicy': 'Always'}}
    assert objects.subset_matches(wanted, actual)
    assert not objects.subset_matches({'spec': {'containers': [{'name': 'a', 'image': 'y'}]}}, actual)
    assert not objects.subset_matches({'spec': {'containers': []}}, actual)


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
                       match=r'to image nginx:9 .*image: nginx:9, or abort it with rollback: true'):
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


def test_orphans_for_picks_released_pods():
    old = rc(selector={'app': 'web', KEY: 'x-orig'})

    def pod(name, value, owned=False, deleting=False):
        meta = {'name': name, 'labels': {'app': 'web', KEY: value} if value else {'app': 'web'}}
        if owned:
            meta['ownerReferences'] = [{'kind': 'ReplicationController', 'name': 'o', 'controller': True}]
        if deleting:
            meta['deletionTimestamp'] = '2026-01-01T00:00:00Z'
        return {'metadata': meta}
    pods = [pod('a', 'h1'), pod('b', 'h1'), pod('c', 'x-orig'), pod('d', 'h2', owned=True),
            pod('e', 'h1', deleting=True), pod('f', None)]
    value, found = objects.orphans_for(pods, old, KEY)
    assert value == 'h1' and [p['metadata']['name'] for p in found] == ['a', 'b']


def test_pod_available_honours_min_ready_seconds():
    pod = {'metadata': {}, 'status': {'conditions': [
        {'type': 'Ready', 'status': 'True', 'lastTransitionTime': '2026-01-01T00:00:00Z'}]}}
    t0 = times.parse('2026-01-01T00:00:00Z')
    assert objects.pod_available(pod, 0, t0)
    assert not objects.pod_available(pod, 10, t0 + 5)
    assert objects.pod_available(pod, 10, t0 + 10)
    pod['metadata']['deletionTimestamp'] = '2026-01-01T00:00:01Z'
    assert not objects.pod_available(pod, 0, t0)
    assert not objects.pod_available({'metadata': {}, 'status': {}}, 0, t0)


def test_desired_replicas_annotation_must_parse():
    assert objects.desired_replicas(rc(annotations={objects.DESIRED_REPLICAS_ANNOTATION: '4'})) == 4
    with pytest.raises(errors.UpdateError, match='unable to parse annotation'):
        objects.desired_replicas(rc(annotations={objects.DESIRED_REPLICAS_ANNOTATION: 'x'}))


# ---- fencing and the lease (pure parts) ------------------------------------------------------------
def test_fence_tests_guard_identity_replicas_selector_and_update_annotations():
    from ansible_collections.kubeops.rollout.plugins.module_utils.rc import requests as rc_requests
    old = rc(annotations={NEXT: 'web-2', ORIGINAL: '3', 'team': 'shop'}, selector={'app': 'web'})
    ops = rc_requests.fence_tests(old)
    assert all(op['op'] == 'test' for op in ops)
    tested = {op['path']: op['value'] for op in ops}
    assert tested == {'/metadata/uid': 'uid-1', '/spec/replicas': 3, '/spec/selector': {'app': 'web'},
                      '/metadata/annotations/kubectl.kubernetes.io~1next-controller-id': 'web-2',
                      '/metadata/annotations/kubectl.kubernetes.io~1original-replicas': '3'}
    renamed = copy.deepcopy(old)
    renamed['metadata']['annotations'] = {'team': 'shop'}
    assert rc_requests.fenced_fields(renamed) != rc_requests.fenced_fields(old)
    scaled = copy.deepcopy(old)
    scaled['spec']['replicas'] = 1
    scaled['metadata']['annotations']['team'] = 'other'  # not an update annotation: not fenced
    assert rc_requests.fenced_fields(scaled) == rc_requests.fenced_fields(old)


def test_lease_names_and_times():
    from ansible_collections.kubeops.rollout.plugins.module_utils.rc import lease as rc_lease
    assert rc_lease.lease_name('web') == 'rolling-update-rc-web'
    long_name = rc_lease.lease_name('x' * 253)
    assert len(long_name) <= 253 and long_name != rc_lease.lease_name('x' * 252)
    host, pid, random_part = rc_lease.holder_identity().split('/')
    assert host and int(pid) > 0 and len(random_part) == 8


@pytest.mark.parametrize('spec, seen_ago, expired', [
    ({'holderIdentity': 'h/1/a', 'renewTime': 'NOW-3'}, 3, False),
    ({'holderIdentity': 'h/1/a', 'renewTime': 'NOW-11'}, 0, True),  # not renewed
    ({'holderIdentity': 'h/1/a', 'renewTime': 'NOW+60'}, 11, True),  # skewed clock, unchanged for long
    ({'holderIdentity': '', 'renewTime': 'NOW-1'}, 0, True),  # released
])
def test_lease_expiry(spec, seen_ago, expired):
    from ansible_collections.kubeops.rollout.plugins.module_utils.rc import lease as rc_lease
    now = 1700000000.0
    spec = dict(spec, leaseDurationSeconds=10,
                renewTime=times.micro_time(now + float(spec['renewTime'][3:])))
    lease = rc_lease.UpdateLease(None, 'default', 'web', 10, clock=lambda: now)
    # unchanged for as long as this run has been looking at it counts too (holder clocks may differ)
    assert lease.expired({'spec': spec}, now - seen_ago) is expired


def test_pod_and_lease_paths_quote_every_segment():
    from ansible_collections.kubeops.rollout.plugins.module_utils.rc import lease as rc_lease
    from ansible_collections.kubeops.rollout.plugins.module_utils.rc import requests as rc_requests
    reqs = rc_requests.ControllerRequests(None, options(namespace='team a/b'))
    assert reqs._pods_path() == '/api/v1/namespaces/team%20a%2Fb/pods'
    assert reqs._pods_path('web-1?x') == '/api/v1/namespaces/team%20a%2Fb/pods/web-1%3Fx'
    assert reqs._rc_path('web').startswith('/api/v1/namespaces/team%20a%2Fb/')
    lease = rc_lease.UpdateLease(None, 'team a/b', 'web', 10)
    assert lease.path == '/apis/coordination.k8s.io/v1/namespaces/team%20a%2Fb/leases/rolling-update-rc-web'
