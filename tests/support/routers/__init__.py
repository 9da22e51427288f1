"""The routers of the traffic canary as the table-driven suite (tests/integration/traffic/test_routers.py)
sets them up: one case per router, in a file of its own, listed in ``CASES``.

A case answers:

- ``router``: the traffic option's ``router``; ``kind``: the kind kubesim's ``route_shares`` and
  ``route_traffic`` take; ``sim_options``: what kubesim needs to serve it (its stand-in);
- ``header_route``: whether the router has header matches (a header route step);
- ``build(kube, ns, app)``: the Services and the routing objects of ``app`` (the stable Deployment
  ``app`` with pods labelled ``track: stable`` is made by the suite; the canary's Service or subset
  selects ``track: canary``); the route holds a destination and a part of its own that the canary
  does not own;
- ``traffic(app)``: the traffic option without its steps; ``path(ns, app)``: the route's API path;
- ``canary_share(shares)``: the canary's share of the managed part in one answer of ``route_shares``
  (a fraction; a 5xx string counts as an error);
- ``foreign_edit(route)``: a JSON patch of something the canary does not own, as a colleague with
  edit rights would make it between two runs;
- ``fault_target(ns, app)``: the route as kubesim's faults name it (``group/plural/ns/name``);
- ``reject(sim)`` / ``accept(sim)``: make the router's judge refuse the route, and accept it again
  (``reject = None`` for a router without a verdict), and ``refusal``: a part of the failure's message
  then;
- ``rbac_doc``: the page under docs/routers/ whose first ``yaml`` block after its ``## RBAC`` heading
  lists the rules the router needs beside the common ones of docs/rbac.md; ``stand_in``: whether the
  case needs kubesim's stand-in; ``id`` (optional): the test id, where a router has several cases
  (layouts).
"""

from tests.support.routers.grpcroute import GRPCRouteCase
from tests.support.routers.httproute import HTTPRouteCase
from tests.support.routers.mesh_httproute import MeshHTTPRouteCase
from tests.support.routers.openshift_route import OpenShiftRouteCase
from tests.support.routers.virtualservice import VirtualServiceCase, VirtualServiceSubsetCase

CASES = [HTTPRouteCase(), MeshHTTPRouteCase(), GRPCRouteCase(), VirtualServiceCase(),
         VirtualServiceSubsetCase(), OpenShiftRouteCase()]


def case_ids():
    return [getattr(case, 'id', case.router) for case in CASES]
