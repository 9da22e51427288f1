"""Helpers the controllers share: owner references, claiming, pod state, hashes, int-or-percent."""

import copy
import functools
import json
import math
import random

from ..apiserver.recorders import CONTROLLER_MANAGER, recorder
from ..machinery import spew
from ..machinery.errors import ApiError
from ..machinery.gojson import canonical_json, go_json  # noqa: F401 (the controllers read them here)
from ..machinery.selectors import matches_labels

# Kubernetes' alphabet for generated name suffixes and encoded hashes (no vowels, no look-alikes).
SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789'

_rng = random.Random()


def name_of(obj):
    return obj['metadata']['name']


def ns_of(obj):
    return obj['metadata'].get('namespace', '')


def uid_of(obj):
    return obj['metadata'].get('uid')


def labels_of(obj):
    return obj['metadata'].get('labels') or {}


def is_deleting(obj):
    return bool(obj['metadata'].get('deletionTimestamp'))


def random_suffix(length=5):
    return ''.join(_rng.choice(SAFE_ALPHABET) for _ in range(length))


# ---- hashing -------------------------------------------------------------------------------
def fnv32a(data):
    h = 0x811C9DC5
    for byte in data:
        h ^= byte
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def safe_encode(text):
    """Map every character onto SAFE_ALPHABET, as Kubernetes encodes hashes into label values."""
    return ''.join(SAFE_ALPHABET[ord(ch) % len(SAFE_ALPHABET)] for ch in text)


def fnv32(data):
    """FNV-1 (not 1a), 32 bits: hash/fnv's New32."""
    h = 0x811C9DC5
    for byte in data:
        h = (h * 0x01000193) & 0xFFFFFFFF
        h ^= byte
    return h


def controller_revision_hash(data, collision_count=0):
    """A ControllerRevision's hash as history.HashControllerRevision computes it: FNV-1 over the
    revision's raw data bytes, then the decimal collision count, safe-encoded."""
    raw = go_json(data)
    if collision_count is not None:
        raw += str(int(collision_count)).encode()
    return safe_encode(str(fnv32(raw)))


def compute_hash(template, collision_count=None):
    """A pod template's hash as controller.ComputeHash computes it (controller_utils.go): FNV-1a,
    32 bits, over the template's Go value as `dump.ForHash` prints it (machinery/spew.py), then,
    when the status has a collision count (0 included, a pointer in Go), 8 bytes holding it as a
    little-endian uint32 and 4 zero bytes; the decimal of the sum, safe-encoded (at most 10
    characters of "4-9bcdf")."""
    return _template_hash(canonical_json(template or {}), collision_count)


@functools.lru_cache(maxsize=4096)
def _template_hash(template_json, collision_count):
    data = spew.pod_template(json.loads(template_json)).encode()
    if collision_count is not None:
        data += (int(collision_count) & 0xFFFFFFFF).to_bytes(4, 'little') + bytes(4)
    return safe_encode(str(fnv32a(data)))


def sorted_json(value):
    """A deep copy with every mapping's keys in sorted order, so it serialises like Go's maps."""
    if isinstance(value, dict):
        return {k: sorted_json(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sorted_json(v) for v in value]
    return value


def _prune(value):
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            v = _prune(v)
            if v is None or v == {} or v == []:
                continue
            out[k] = v
        return out
    if isinstance(value, list):
        return [_prune(v) for v in value]
    return value


def semantic_equal(a, b):
    """Equality the way apimachinery's Semantic.DeepEqual sees JSON: unset, null, {} and [] agree."""
    return _prune(a) == _prune(b)


# ---- int-or-percent ------------------------------------------------------------------------
def scaled_value(value, total, round_up):
    """Resolve an IntOrString ('25%' or 3) against ``total``."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    text = str(value)
    if text.endswith('%'):
        scaled = int(text[:-1]) * total / 100
        return int(math.ceil(scaled)) if round_up else int(math.floor(scaled))
    return int(text)


# ---- owner references and claiming ---------------------------------------------------------
def controller_ref(owner, api_version, kind):
    return {'apiVersion': api_version, 'kind': kind, 'name': name_of(owner), 'uid': uid_of(owner),
            'controller': True, 'blockOwnerDeletion': True}


def controller_of(obj):
    for ref in obj['metadata'].get('ownerReferences') or []:
        if ref.get('controller'):
            return ref
    return None


def is_controlled_by(obj, owner):
    ref = controller_of(obj)
    return ref is not None and ref.get('uid') == uid_of(owner)


def claim(store, resource, owner, api_version, kind, candidates, selector, extra_match=None):
    """Adopt matching orphans and release non-matching dependents, as ControllerRefManager does.

    Returns the candidates ``owner`` controls afterwards (fresh copies of the ones it changed).
    """
    owned = []
    owner_uid = uid_of(owner)

    def matches(obj):
        if not selector:
            return False  # an empty selector selects nothing for a controller
        if not matches_labels(selector, labels_of(obj)):
            return False
        return extra_match(obj) if extra_match else True

    for obj in candidates:
        ref = controller_of(obj)
        if ref is not None:
            if ref.get('uid') != owner_uid:
                continue
            if matches(obj) or is_deleting(owner):
                owned.append(obj)
                continue
            others = [r for r in obj['metadata']['ownerReferences'] if r.get('uid') != owner_uid]
            released = _write_refs(store, resource, obj, others)
            if released is None:
                owned.append(obj)
            continue
        if is_deleting(owner) or is_deleting(obj) or not matches(obj):
            continue
        refs = list(obj['metadata'].get('ownerReferences') or [])
        refs.append(controller_ref(owner, api_version, kind))
        adopted = _write_refs(store, resource, obj, refs)
        if adopted is not None:
            owned.append(adopted)
    return owned


def _write_refs(store, resource, obj, refs):
    fresh = store.get(resource, ns_of(obj), name_of(obj))
    if fresh is None:
        return None
    if refs:
        fresh['metadata']['ownerReferences'] = refs
    else:
        fresh['metadata'].pop('ownerReferences', None)
    try:
        return store.update(resource, fresh, manager=_controller_recorder(resource))
    except ApiError:
        return None


def _controller_recorder(resource):
    """The field manager of a controller's own write to ``resource`` (None for keys the
    table of served resources does not know, as unit tests use)."""
    try:
        return recorder(resource, CONTROLLER_MANAGER)
    except KeyError:
        return None


# ---- pods ------------------------------------------------------------------------------------
def pod_condition(pod, cond_type):
    for cond in (pod.get('status') or {}).get('conditions') or []:
        if cond.get('type') == cond_type:
            return cond
    return None


def is_pod_ready(pod):
    cond = pod_condition(pod, 'Ready')
    return cond is not None and cond.get('status') == 'True'


def pod_phase(pod):
    return (pod.get('status') or {}).get('phase', '')


def is_pod_active(pod):
    return pod_phase(pod) not in ('Succeeded', 'Failed') and not is_deleting(pod)


def pod_from_template(template, owner, api_version, kind, name, generate_name=None):
    tmeta = template.get('metadata') or {}
    pod_meta = {'name': name, 'namespace': ns_of(owner),
                'ownerReferences': [controller_ref(owner, api_version, kind)]}
    if generate_name:
        pod_meta['generateName'] = generate_name
    if tmeta.get('labels'):
        pod_meta['labels'] = dict(tmeta['labels'])
    if tmeta.get('annotations'):
        pod_meta['annotations'] = dict(tmeta['annotations'])
    if tmeta.get('finalizers'):
        pod_meta['finalizers'] = list(tmeta['finalizers'])
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': pod_meta,
            'spec': copy.deepcopy(template.get('spec') or {})}


def create_with_random_name(store, pod, prefix):
    """Create a pod with `generateName: <prefix>`: the API server names it ``<prefix><5 random
    chars>`` (after mutating admission, whose refusals name the prefix, as on a real cluster)."""
    pod['metadata'].pop('name', None)
    pod['metadata']['generateName'] = prefix
    return store.create('/pods', pod, manager=recorder('/pods', CONTROLLER_MANAGER))


def template_labels_match(template, obj):
    """True when every template label is present on ``obj`` with the same value."""
    want = (template.get('metadata') or {}).get('labels') or {}
    have = labels_of(obj)
    return all(have.get(k) == v for k, v in want.items())


def creation_key(obj):
    """Sort key of Kubernetes' ByCreationTimestamp orderings (ties broken by name)."""
    return (obj['metadata'].get('creationTimestamp', ''), name_of(obj))


def omit_zero(mapping):
    """Drop zero/empty values, as Go's `omitempty` does when a status is serialised."""
    return {k: v for k, v in mapping.items() if v not in (0, None, '', [], {})}
