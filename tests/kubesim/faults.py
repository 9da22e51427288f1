"""Deterministic fault injection.

A SPEC is a `;`-separated list of `key=value` settings (whitespace ignored, empty SPEC = no faults):

    seed=1;429=0.1;500=0.05;503=0.05;drop=0.02;conflict=apps/deployments/default/web:2

- `429`, `500`, `503`, `drop`: the fraction (0..1) of eligible requests answered with that status
  (429 carries `Retry-After`) or, for `drop`, whose connection is closed without an answer. One
  pseudo-random draw per eligible request, from a generator seeded with `seed` (default 0): the same
  SPEC and the same sequence of requests give the same faults.
- `retry_after=S`: the `Retry-After` seconds of injected 429s (default 1).
- `methods=GET,PATCH`: only requests with these HTTP methods are eligible (default: all).
- `conflict=TARGET:N` (repeatable): the next N writes (PUT, PATCH, DELETE, including on subresources)
  to the object get 409 Conflict, before and regardless of the random faults. `persisting_conflict=
  TARGET:N` does the same to writes that would persist (dry runs, `dryRun=All`, pass): a write
  refused after its dry run succeeded. `drop_after_write=TARGET:N` and `500_after_write=TARGET:N`
  apply the next N writes that would persist to the object and then lose their answer: the
  connection is closed without one, or the answer is a 500 (the answer lost behind a proxy, or an
  error after the commit); a client cannot tell whether such a write happened. TARGET is
  `[group/]plural/namespace/name` for namespaced resources (`apps/deployments/default/web`,
  `pods/default/web-0`) and `[group/]plural/name` for cluster-scoped ones (`nodes/node-1`).

- `unready=pods/NAMESPACE/NAME:AFTER[:DURATION]` (repeatable): AFTER seconds after the SPEC is set
  (at start, or by `set_faults`), the pod's readiness probe starts failing: the kubelet writes its
  containers not ready and its Ready condition False; after DURATION seconds (when given) it
  passes again and the pod is Ready again. `delete=pods/NAMESPACE/NAME:AFTER` (repeatable): AFTER
  seconds after the SPEC is set the pod is deleted (gracefully, as a client's DELETE). These
  strike between a client's check and its next step; a pod that does not exist then is left
  alone (listed in `injected` as `missing`). They take no draw from the generator.

Never eligible for the random faults: watch requests (their stream would simply end), discovery
(`/api`, `/apis`, `/version`, `/openapi`) and health checks. Authentication runs first, so
unauthenticated requests get their 401, not a fault.
"""

import random

from .apiserver.registry import resources

ACTIONS = ('429', '500', '503', 'drop')
# setting -> what happens to the answer of a write that was applied
AFTER_WRITE = {'drop_after_write': 'drop', '500_after_write': '500'}
# Faults that strike at a time: a failing readiness probe, a deletion.
TIMED = ('unready', 'delete')


class FaultSpecError(ValueError):
    pass


def parse_target(text, registry=None):
    """'apps/deployments/default/web' -> ('apps/deployments', 'default', 'web').

    ``registry`` is the served resources (the store's: custom resources included; the built-in
    ones when None). A target whose first segment has a dot names a custom resource's group
    (`example.com/widgets/default/w1`, `example.com/clusterwidgets/w1`): accepted even before its
    CustomResourceDefinition exists, namespaced when it has a namespace segment."""
    registry = registry or resources.BUILTIN
    parts = text.strip().split('/')
    if any(not p for p in parts):
        raise FaultSpecError(f'bad conflict target {text!r}: empty path segment')
    groups = set(registry.groups())
    group = parts[0] if len(parts) > 2 and (parts[0] in groups or '.' in parts[0]) else ''
    rest = parts[1:] if group else parts
    resource = registry.by_key.get(f'{group}/{rest[0]}')
    if resource is None and '.' in group and len(rest) in (2, 3):
        return f'{group}/{rest[0]}', rest[1] if len(rest) == 3 else '', rest[-1]
    if resource is None:
        raise FaultSpecError(f'bad conflict target {text!r}: unknown resource {rest[0]!r}')
    want = 3 if resource.namespaced else 2
    if len(rest) != want:
        shape = 'plural/namespace/name' if resource.namespaced else 'plural/name'
        raise FaultSpecError(f'bad conflict target {text!r}: expected [group/]{shape}')
    namespace = rest[1] if resource.namespaced else ''
    return resource.key, namespace, rest[-1]


def parse_timed(key, value, registry=None):
    """`unready`/`delete` settings -> (action, (resource key, namespace, name), after, duration)."""
    target, *times = value.split(':')
    shape = 'pods/NAMESPACE/NAME:AFTER[:DURATION]' if key == 'unready' else 'pods/NAMESPACE/NAME:AFTER'
    if not times or len(times) > (2 if key == 'unready' else 1):
        raise FaultSpecError(f'bad {key} {value!r}: expected {shape}')
    resolved = parse_target(target, registry)
    if resolved[0] != '/pods':
        raise FaultSpecError(f'bad {key} {value!r}: only pods can be made unready or deleted')
    after = float(times[0])
    duration = float(times[1]) if len(times) > 1 else None
    if after < 0 or (duration is not None and duration < 0):
        raise FaultSpecError(f'bad {key} {value!r}: times must not be negative')
    return key, resolved, after, duration


def parse_spec(spec, registry=None):
    """SPEC text -> dict of settings; raises FaultSpecError with a readable message."""
    out = {'seed': 0, 'rates': {}, 'retry_after': 1, 'methods': None, 'conflicts': {}, 'persisting': {},
           'after_write': {}, 'timed': []}
    for item in (spec or '').split(';'):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition('=')
        key, value = key.strip(), value.strip()
        if not sep:
            raise FaultSpecError(f'bad fault setting {item!r}: expected key=value')
        try:
            if key == 'seed':
                out['seed'] = int(value)
            elif key in ACTIONS:
                rate = float(value)
                if not 0 <= rate <= 1:
                    raise FaultSpecError(f'fault rate {key}={value} is not between 0 and 1')
                out['rates'][key] = rate
            elif key == 'retry_after':
                out['retry_after'] = int(value)
            elif key == 'methods':
                out['methods'] = {m.strip().upper() for m in value.split(',') if m.strip()}
            elif key in ('conflict', 'persisting_conflict') or key in AFTER_WRITE:
                target, _, count = value.rpartition(':')
                if not target:
                    raise FaultSpecError(f'bad {key} {value!r}: expected TARGET:N')
                if key in AFTER_WRITE:
                    out['after_write'][parse_target(target, registry)] = [AFTER_WRITE[key], int(count)]
                else:
                    kind = 'conflicts' if key == 'conflict' else 'persisting'
                    out[kind][parse_target(target, registry)] = int(count)
            elif key in TIMED:
                out['timed'].append(parse_timed(key, value, registry))
            else:
                raise FaultSpecError(f'unknown fault setting {key!r} (known: seed, 429, 500, 503, drop, '
                                     'retry_after, methods, conflict, persisting_conflict, drop_after_write, '
                                     '500_after_write, unready, delete)')
        except ValueError as e:
            if isinstance(e, FaultSpecError):
                raise
            raise FaultSpecError(f'bad fault setting {item!r}: {e}')
    if sum(out['rates'].values()) > 1:
        raise FaultSpecError('fault rates add up to more than 1')
    return out


class Faults:
    """The live fault configuration; `decide` is called once per request, on the loop thread."""

    def __init__(self, spec=None):
        self.injected = []  # (method, path, action) of every fault injected, for tests
        self.registry = None  # the served resources (the store's), once there is a store
        self.set(spec)

    def set(self, spec):
        settings = parse_spec(spec, self.registry)
        self.spec = spec or ''
        self.rates = settings['rates']
        self.retry_after = settings['retry_after']
        self.methods = settings['methods']
        self.conflicts = settings['conflicts']
        self.persisting = settings['persisting']
        self.lost_answers = settings['after_write']
        self.timed = settings['timed']
        self._rng = random.Random(settings['seed'])

    def add_conflicts(self, target, count):
        self.conflicts[parse_target(target, self.registry)] = count

    def decide(self, method, path, *, eligible, target=None, write=False, dry_run=False):
        """The fault for this request: None, 'conflict', '429', '500', '503' or 'drop'.

        ``target`` is (resource key, namespace, name) when the request addresses one object.
        """
        action = None
        if write and target is not None and self.conflicts.get(target, 0) > 0:
            self.conflicts[target] -= 1
            action = 'conflict'
        elif write and not dry_run and target is not None and self.persisting.get(target, 0) > 0:
            self.persisting[target] -= 1
            action = 'conflict'
        elif eligible and self.rates and (self.methods is None or method in self.methods):
            draw, edge = self._rng.random(), 0.0
            for name in ACTIONS:
                edge += self.rates.get(name, 0.0)
                if draw < edge:
                    action = name
                    break
        if action:
            self.injected.append((method, path, action))
        return action

    def after_write(self, method, path, target, dry_run=False):
        """'drop', '500' or None: what becomes of the answer to a write that was just applied."""
        if dry_run or target is None:
            return None
        pending = self.lost_answers.get(target)
        if not pending or pending[1] <= 0:
            return None
        pending[1] -= 1
        self.injected.append((method, path, pending[0] + '_after_write'))
        return pending[0]
