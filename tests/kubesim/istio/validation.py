"""istiod's validating admission webhook (`validation.istio.io`) for the kinds kubesim serves:
the checks of istio/istio `pkg/config/validation` (validation.go `ValidateVirtualService`,
`ValidateDestinationRule`, `validateHTTPRouteDestinations`, `validateDestination`,
`validateWeight`, `validateSubset`; virtualservice.go `validateHTTPRoute`, its conflicts and match
requests; agent/validation.go `ValidateWildcardDomain`, `ValidatePort`) that a traffic split
meets, in their words.

The webhook (istio/istio `pkg/webhooks/validation/server/server.go`) answers a refusal with a
Status holding only the message "configuration is invalid: <errors>", several errors in istio's
multierror format (`pkg/util/istiomultierror`); the API server's webhook admission makes it a 400
with no reason, its message prefixed "admission webhook "validation.istio.io" denied the request: "
(k8s.io/apiserver `pkg/admission/plugin/webhook/errors/statuserror.go` ToStatusErr). The webhook
runs on CREATE and UPDATE of the main resource (not `status`), after defaulting and the schema,
as the API server calls validating webhooks last.

Istio's weight rules: a weight below 0 is refused; with more than one destination in a route, a
total of 0 is refused; totals other than 100 are accepted (releases before 1.21 demanded 100); an
omitted weight is 0.
"""

import re

from ..machinery.errors import ApiError

WEBHOOK = 'validation.istio.io'
VIRTUAL_SERVICES = 'networking.istio.io/virtualservices'
DESTINATION_RULES = 'networking.istio.io/destinationrules'

_DNS1123_LABEL = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')
_WILDCARD_LABEL = re.compile(r'^(\*|\*?[a-z0-9]([-a-z0-9]*[a-z0-9])?)$')
_HEADER_NAME = re.compile(r"^[!#$%&'*+\-.^_`|~A-Za-z0-9]+$")
_PSEUDO_HEADERS = (':method', ':scheme', ':authority', ':path', ':status')


def header_name(name):
    """ValidateHTTPHeaderNameOrJwtClaimRoute (a JWT claim's form `@request.auth.claims.` passes)."""
    if name == '':
        return 'header name cannot be empty'
    if name.startswith('@request.auth.claims.') or name in _PSEUDO_HEADERS or _HEADER_NAME.match(name):
        return None
    return f'header name {name} is not a valid header name'


def _label(text):
    return len(text) <= 63 and bool(_DNS1123_LABEL.match(text))


def wildcard_domain(domain):
    """agent.ValidateWildcardDomain: None or the error text."""
    if len(domain) > 255:
        return f'domain name "{domain}" too long (max 255)'
    if not domain:
        return 'empty domain name not allowed'
    first, _, rest = domain.partition('.')
    if not (len(first) <= 63 and _WILDCARD_LABEL.match(first)):
        return f'domain name "{domain}" invalid (label "{first}" invalid)'
    if not rest and '.' not in domain:
        return None
    parts = rest.split('.')
    if parts[-1].isdigit():
        return f'domain name "{rest}" invalid (top level domain "{parts[-1]}" cannot be all-numeric)'
    for i, part in enumerate(parts):
        if i == len(parts) - 1 and part == '':
            return None
        if not _label(part):
            return f'domain name "{rest}" invalid (label "{part}" invalid)'
    return None


def _port(number):
    if not 1 <= number <= 65535:
        return f'port number {number} must be in the range 1..65535'
    return None


def _destination(destination):
    errs = []
    host = destination.get('host', '')
    if host == '*':
        errs.append(f'invalid destination host {host}')
    else:
        errs.append(wildcard_domain(host))
    if 'subset' in destination and destination['subset'] is not None:
        subset = destination['subset']
        if subset == '':
            errs.append('subset name cannot be empty')
        elif not _label(subset):
            errs.append(f'subset name is invalid: {subset}')
    port = destination.get('port')
    if isinstance(port, dict):
        errs.append(_port(int(port.get('number') or 0)))
    return errs


def route_destinations(route):
    """validateHTTPRouteDestinations: each destination, each weight, the total."""
    errs, total = [], 0
    for item in route or []:
        if not isinstance(item, dict):
            errs.append('weight may not be nil')
            continue
        if item.get('destination') is None:
            errs.append('destination is required')
        else:
            errs += _destination(item['destination'])
        weight = int(item.get('weight') or 0)
        if weight < 0:
            errs.append(f'weight {weight} < 0')
        total += weight
    if len(route or []) > 1 and total == 0:
        errs.append('total destination weight = 0')
    return errs


def _string_match(match, where):
    if not isinstance(match, dict):
        return []
    if 'prefix' in match and match['prefix'] == '':
        return [f'"{where}": prefix string match should not be empty']
    if 'regex' in match:
        regex = match['regex']
        if regex == '':
            return [f'"{where}": regex string match should not be empty']
        if len(regex) > 1024:
            return [f'"{where}": regex is too large, max length allowed is 1024']
        try:
            re.compile(regex)
        except re.error as e:
            return [f'"{where}": invalid regex "{regex}": {e}']
    return []


def http_route(route):
    """validateHTTPRoute for an independent route (no delegation): its conflicts, match requests
    and destinations."""
    errs = []
    has = {key: route.get(key) is not None for key in ('redirect', 'directResponse', 'fault', 'rewrite')}
    destinations = route.get('route') or []
    if has['redirect']:
        if destinations:
            errs.append('HTTP route cannot contain both route and redirect')
        if has['fault']:
            errs.append('HTTP route cannot contain both fault and redirect')
        if has['rewrite']:
            errs.append('HTTP route rule cannot contain both rewrite and redirect')
        if has['directResponse']:
            errs.append('HTTP route rule cannot contain both direct_response and redirect')
    elif has['directResponse']:
        if destinations:
            errs.append('HTTP route cannot contain both route and direct_response')
        if has['fault']:
            errs.append('HTTP route cannot contain both fault and direct_response')
        if has['rewrite']:
            errs.append('HTTP route rule cannot contain both rewrite and direct_response')
    elif not destinations and route.get('delegate') is None:
        errs.append('HTTP route, redirect or direct_response is required')
    if route.get('mirror') is not None and route.get('mirrors'):
        errs.append('HTTP route cannot contain both mirror and mirrors')
    for match in route.get('match') or []:
        if not isinstance(match, dict):
            continue
        for name, header in sorted((match.get('headers') or {}).items()):
            if header is None:
                errs.append(f'header match {name} cannot be null')
            errs.append(header_name(name))
            errs += _string_match(header, 'headers')
        errs += _string_match(match.get('uri'), 'uri')
        for where in ('scheme', 'method', 'authority'):
            found = match.get(where)
            if isinstance(found, dict) and 'exact' in found and found['exact'] == '':
                errs.append(f'"{where}": exact string match should not be empty')
            errs += _string_match(found, where)
        if match.get('port'):
            errs.append(_port(int(match['port'])))
    errs += route_destinations(destinations)
    return errs


def virtual_service(spec):
    errs = []
    hosts = spec.get('hosts') or []
    gateways = spec.get('gateways') or []
    if not hosts:
        if gateways:
            errs.append('delegate virtual service must have no gateways specified')
        if spec.get('tls'):
            errs.append('delegate virtual service must have no tls route specified')
        if spec.get('tcp'):
            errs.append('delegate virtual service must have no tcp route specified')
    to_mesh = not gateways or 'mesh' in gateways
    valid = True
    for host in hosts:
        problem = wildcard_domain(host)
        if problem:
            errs.append(problem)
            valid = False
        elif to_mesh and host == '*':
            errs.append('wildcard host * is not allowed for virtual services bound to the mesh gateway')
            valid = False
    if valid:
        for i, first in enumerate(hosts):
            for second in hosts[i + 1 :]:
                if first == second:
                    errs.append(f'duplicate hosts in virtual service: {first} & {second}')
    if not spec.get('http') and not spec.get('tcp') and not spec.get('tls'):
        errs.append('http, tcp or tls must be provided in virtual service')
    for route in spec.get('http') or []:
        if route is None:
            errs.append('http route may not be null')
            continue
        errs += http_route(route)
    for route in (spec.get('tcp') or []) + (spec.get('tls') or []):
        if isinstance(route, dict):
            errs += route_destinations(route.get('route'))
    return errs


def destination_rule(spec):
    errs = [wildcard_domain(spec.get('host') or '')]
    seen = set()
    for subset in spec.get('subsets') or []:
        if subset is None:
            errs.append('subset may not be null')
            continue
        name = subset.get('name', '')
        if name in seen:
            errs.append(f'duplicate subset names: {name}')
        seen.add(name)
        if name == '':
            errs.append('subset name cannot be empty')
        elif not _label(name):
            errs.append(f'subset name is invalid: {name}')
    return errs


def message(errs):
    """istiomultierror's format: one error as itself, several as a list."""
    if len(errs) == 1:
        return errs[0]
    points = '\n\t'.join(f'* {e}' for e in errs)
    return f'{len(errs)} errors occurred:\n\t{points}\n'


def admit(store, resource, obj, old):
    """The webhook as the store calls it (`Store.webhooks`): raises the API server's 400."""
    del store, old
    if resource == VIRTUAL_SERVICES:
        errs = virtual_service(obj.get('spec') or {})
    elif resource == DESTINATION_RULES:
        errs = destination_rule(obj.get('spec') or {})
    else:
        return
    errs = [e for e in errs if e]
    if errs:
        raise ApiError(
            400,
            '',
            f'admission webhook "{WEBHOOK}" denied the request: configuration is invalid: {message(errs)}',
        )
