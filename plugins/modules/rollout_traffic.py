#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: rollout_traffic
short_description: Set a canary's share of an HTTPRoute's traffic (Gateway API), checked by the gateway
version_added: 0.3.0
description:
  - Sets the weights of two backendRefs of a Gateway API C(HTTPRoute) (C(gateway.networking.k8s.io/v1))
    - the I(stable) and the I(canary) Service - to C(100 - weight) and I(weight), in the rule chosen by
    I(rule), or in every rule that holds both. Nothing else of the route changes - other backendRefs,
    other rules, filters, matches - so a route shared with other tools or teams keeps what they own.
  - One JSON patch, which tests each backendRef's name and current weight at its index before it
    replaces the weights; a change someone made since the read fails the test, the route is read
    again and the decision made again. A repeat after a lost answer finds the weights in place.
  - Before the write, the Service gaining a share must have enough ready endpoints for it (in its
    EndpointSlices, which is what a gateway sends requests to) - C(ceil(share x ready endpoints of the
    other Service / 100)), at least one; the task waits for them up to I(timeout). A canary with no
    ready endpoint is never given weight (its requests would get 503).
  - After the write, every parent (Gateway) of the route must report C(Accepted) and C(ResolvedRefs)
    True at the route's new generation in C(status.parents[]), and the Service must still have its
    endpoints; otherwise the task fails naming the route, the parent and the condition's reason.
    The gateway keeps serving the rules it accepted before, so a rejected step sends no request
    anywhere new; put the weight back (V(0)) to undo it.
  - An optional I(header_route) - a rule of its own, named, matching a header and sending all its
    requests to the canary (Argo Rollouts' C(setHeaderRoute)) - is added or removed in the same patch.
  - M(kubeops.rollout.rollout_release) with I(traffic) runs whole canaries of steps on this module's code.
author:
  - kubeops.rollout contributors (!UNKNOWN)
options:
  route:
    description:
      - The HTTPRoute.
    type: dict
    required: true
    suboptions:
      name:
        description: Name of the HTTPRoute.
        type: str
        required: true
      namespace:
        description:
          - Its namespace (also of the Services). Default - the I(namespace) option, else the
            kubeconfig context's, else C(default).
        type: str
  rule:
    description:
      - The rule whose weights are set - its C(name), or its index from 0. Unset, every rule holding
        backendRefs to both Services (the header route's rule excepted).
    type: str
  stable_service:
    description:
      - Name of the stable Service (a backendRef of the rule).
      - The alias I(stable) is its old name, deprecated and removed in version 3.0.0 of the collection.
    type: str
    required: true
    aliases: [stable]
  canary_service:
    description:
      - Name of the canary Service (a backendRef of the rule; add it with weight V(0) to start).
        Required but with I(destination_rule).
      - The alias I(canary) is its old name, deprecated and removed in version 3.0.0 of the collection.
    type: str
    aliases: [canary]
  router:
    description:
      - What splits the requests (see C(docs/routers/)) - a Gateway API C(HTTPRoute) at the edge
        (V(httproute)), an Istio C(VirtualService) (V(virtualservice)), an OpenShift C(Route)
        (V(openshift_route)), a Gateway API C(HTTPRoute) whose parent is a Service, for the mesh
        (V(mesh_httproute)), or a C(GRPCRoute) (V(grpcroute)). I(route) names its object.
      - For a VirtualService, I(rule) is an C(http[].name) and the judge is the written object and the
        endpoints (no acceptance condition); for an OpenShift Route, I(rule) and I(header_route) are
        refused and each router's C(Admitted) condition is the verdict.
    type: str
    choices: [httproute, virtualservice, openshift_route, mesh_httproute, grpcroute]
    default: httproute
  settle_seconds:
    description:
      - Seconds to wait after the judge accepted the write, for the router's data plane to serve it
        where the API cannot say when it does (an OpenShift router applies new weights at its next
        reload, within 5 s by default). Unset - the router's own (V(5) for V(openshift_route), V(1)
        for V(virtualservice), whose proxies take istiod's push unobserved, V(0) for the others).
    type: float
  destination_rule:
    description:
      - For a subset-level Istio VirtualService - the C(DestinationRule) of the I(stable_service)
        host whose two subsets tell the tracks apart by their labels (read, never written).
    type: dict
    suboptions:
      name:
        description: Name of the DestinationRule (in the route's namespace).
        type: str
        required: true
      stable_subset:
        description: The subset of the stable track.
        type: str
        default: stable
      canary_subset:
        description: The subset of the canary track.
        type: str
        default: canary
  weight:
    description:
      - The canary's percent of the rule's requests between the two Services. The stable Service gets
        C(100 - weight). V(0) sends everything back to the stable Service.
    type: int
    required: true
  header_route:
    description:
      - A rule of its own, named I(header_route.name), with the matches of the first rule chosen, each
        also matching the header, that sends all its requests to the canary. Added with
        I(header_route.state=present), removed with V(absent).
    type: dict
    suboptions:
      name:
        description: Name of the header route's rule.
        type: str
        required: true
      header:
        description: The HTTP header to match (required with I(header_route.state=present)).
        type: str
      value:
        description: The header's value (required with I(header_route.state=present)).
        type: str
      type:
        description: How the value matches.
        type: str
        choices: [Exact, RegularExpression]
        default: Exact
      state:
        description: Whether the header route is there after the task.
        type: str
        choices: [present, absent]
        default: present
  timeout:
    description:
      - Seconds to wait for the endpoints a share needs, then for the gateway's verdict on the route.
    type: int
    default: 300
  namespace:
    description:
      - Namespace of the route and the Services when I(route.namespace) is not given.
    type: str
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
  - kubeops.rollout.attributes
  - kubeops.rollout.connection
  - kubeops.rollout.option_names
attributes:
  check_mode:
    support: full
    details: The patch is sent with C(dryRun=All); the result shows the weights it would set. Nothing
      is waited for; a Service that lacks the endpoints its share needs is a warning; a parent that
      refuses the route as it is now fails the task, as the real run's verdict would.
  diff_mode:
    support: full
    details: Shows the pair's weights per rule (and whether the header route is there) before and after.
notes:
  - Needs C(get) and C(patch) on C(httproutes) (C(gateway.networking.k8s.io)) and C(list) on
    C(endpointslices) (C(discovery.k8s.io)); see C(docs/rbac.md).
  - The weights are written on a scale of 100 for the pair; other backendRefs of the rule keep
    theirs.
seealso:
  - name: Gateway API HTTPRoute
    description: The HTTPRoute's backendRefs and weights.
    link: https://gateway-api.sigs.k8s.io/api-types/httproute/
'''

EXAMPLES = r'''
- name: Send 10% of web's requests to the canary Service
  kubeops.rollout.rollout_traffic:
    route: {name: web, namespace: shop}
    stable_service: web-stable
    canary_service: web-canary
    weight: 10

- name: Let testers reach the canary with a header, without moving anyone else
  kubeops.rollout.rollout_traffic:
    route: {name: web, namespace: shop}
    stable_service: web-stable
    canary_service: web-canary
    weight: 0
    header_route: {name: canary-testers, header: X-Canary, value: "true"}

- name: Everything back to the stable Service, header route removed (one patch)
  kubeops.rollout.rollout_traffic:
    route: {name: web, namespace: shop}
    stable_service: web-stable
    canary_service: web-canary
    weight: 0
    header_route: {name: canary-testers, state: absent}
'''

RETURN = r'''
changed:
  description: Whether the route was changed (in check mode, would be).
  returned: always
  type: bool
route:
  description: The route (C(namespace), C(name)) and its C(generation) after the task.
  returned: always
  type: dict
  sample: {"namespace": "shop", "name": "web", "generation": 4}
weight:
  description: The canary's percent asked.
  returned: always
  type: int
  sample: 10
rules:
  description: The rules set, each with its C(index), C(name) and the pair's C(weights) (C(stable),
    C(canary)).
  returned: always
  type: list
  elements: dict
  sample: [{"index": 0, "name": null, "weights": {"stable": 90, "canary": 10}}]
header_route:
  description: The header route's C(name) and whether it is C(present) after the task.
  returned: when I(header_route) is given
  type: dict
  sample: {"name": "canary-testers", "present": true}
endpoints:
  description: Ready endpoints of the C(stable) and C(canary) Services after the task.
  returned: always
  type: dict
  sample: {"stable": 4, "canary": 1}
parents:
  description: Each parent of the route (C(parent)) and whether it C(accepted) the route's generation
    with its references resolved.
  returned: always
  type: list
  elements: dict
  sample: [{"parent": "Gateway shop/public", "accepted": true}]
diff:
  description: The pair's weights per rule before and after.
  returned: in diff mode
  type: dict
next_step:
  description:
    - When the step failed in a way that the same task run again can get past, that step as data
      (C(rerun)); otherwise absent, and the message says what to fix.
  returned: when the route kept changing while its weights were written
  type: str
  sample: rerun
'''

from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import KubeModule  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.common import vocabulary  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.common.errors import (  # noqa: E402
    ConnectionFailure,
    KubeError,
    describe_error,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.common.validation import (  # noqa: E402
    subdomain_problem,
)
from ansible_collections.kubeops.rollout.plugins.module_utils.kinds.routers import table as routers  # noqa: E402
from ansible_collections.kubeops.rollout.plugins.module_utils.usecases.traffic import (  # noqa: E402
    step as traffic,
)

ARGUMENT_SPEC = {
    'route': {'type': 'dict', 'required': True, 'options': {
        'name': {'type': 'str', 'required': True},
        'namespace': {'type': 'str'},
    }},
    'rule': {'type': 'str'},
    'stable_service': {'type': 'str', 'required': True, 'aliases': ['stable'],
                       'deprecated_aliases': [vocabulary.deprecated_alias('stable')]},
    'canary_service': {'type': 'str', 'aliases': ['canary'],
                       'deprecated_aliases': [vocabulary.deprecated_alias('canary')]},
    'router': routers.OPTION_SPEC['router'],
    'settle_seconds': routers.OPTION_SPEC['settle_seconds'],
    'destination_rule': routers.OPTION_SPEC['destination_rule'],
    'weight': {'type': 'int', 'required': True},
    'header_route': {'type': 'dict', 'options': {
        'name': {'type': 'str', 'required': True},
        'header': {'type': 'str'},
        'value': {'type': 'str'},
        'type': {'type': 'str', 'choices': ['Exact', 'RegularExpression'], 'default': 'Exact'},
        'state': {'type': 'str', 'choices': ['present', 'absent'], 'default': 'present'},
    }, 'required_if': [('state', 'present', ('header', 'value'))]},
    'timeout': {'type': 'int', 'default': 300},
    'namespace': {'type': 'str'},
}


def main(runtime=None):
    module = KubeModule(ARGUMENT_SPEC, runtime)
    params = module.params
    if not 0 <= params['weight'] <= 100:
        module.fail('weight is the canary\'s percent: 0 to 100 (got %d)' % params['weight'])
    problems = routers.problems(params)
    if problems:
        module.fail('; '.join(problems))
    for option, value in (('route.name', params['route']['name']),
                          ('stable_service', params['stable_service']),
                          ('canary_service', params['canary_service'])):
        problem = value is not None and subdomain_problem(value)
        if problem:
            module.fail('%s: %s' % (option, problem))
    namespace = params['route'].get('namespace') or module.namespace
    options = traffic.TrafficOptions(namespace, params['route']['name'], params['stable_service'],
                                     params['canary_service'] or params['stable_service'], params['weight'],
                                     params['rule'], params['header_route'], params['timeout'],
                                     module.module.check_mode, params['router'], params['destination_rule'],
                                     params['settle_seconds'])
    shift = traffic.Shift(module.client, options, progress=module.module.progress)
    try:
        out = shift.run()
    except traffic.TrafficFailed as e:
        fields = {k: v for k, v in e.fields.items() if k != 'changed'}
        module.fail(e.message, changed=bool(e.fields.get('changed')), **fields)
    except ConnectionFailure as e:
        module.fail(e.message)
    except KubeError as e:
        module.fail(describe_error(e, 'traffic step on %s' % options.label, module._connection))
    for warning in shift.warnings:
        module.module.warn(warning)
    diff = out.pop('diff')
    if module.module.diff and out['changed']:
        out['diff'] = diff
    module.module.exit_json(msg='%s: %s at %d%%' % (options.label, shift.pair[1], options.weight), **out)


if __name__ == '__main__':
    main()
