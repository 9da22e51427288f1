"""Server-side printing of Services and their endpoints (Service, Endpoints, EndpointSlice), after
pkg/printers/internalversion/printers.go (printService, printEndpoints, printEndpointSlice): the
column lists `resources.RESOURCES` names for them, built on tables.py's shared columns."""

from .tables import _AGE, _NAME, _spec, _status


def _service_external_ip(svc):
    """getServiceExternalIP."""
    spec = _spec(svc)
    external = ','.join(spec.get('externalIPs') or [])
    stype = spec.get('type')
    if stype in ('ClusterIP', 'NodePort'):
        return external or '<none>'
    if stype == 'ExternalName':
        return spec.get('externalName', '')
    if stype == 'LoadBalancer':
        ingress = [i.get('ip') or i.get('hostname') or ''
                   for i in ((_status(svc).get('loadBalancer') or {}).get('ingress') or [])]
        addresses = [a for a in ingress + (spec.get('externalIPs') or []) if a]
        return ','.join(addresses) or '<pending>'
    return '<unknown>'


def _service_ports(svc):
    """makePortString: `port[:nodePort]/protocol`, comma-separated."""
    parts = []
    for port in _spec(svc).get('ports') or []:
        text = f'{port.get("port", 0)}'
        if port.get('nodePort'):
            text += f':{port["nodePort"]}'
        parts.append(f'{text}/{port.get("protocol", "")}')
    return ','.join(parts) or '<none>'


def _map_selector(obj):
    """labels.FormatLabels of a map selector."""
    return ','.join(f'{k}={v}' for k, v in sorted((_spec(obj).get('selector') or {}).items())) or '<none>'


def _with_more(items, total, limit=3, empty='<unset>'):
    """listWithMoreString: the first `limit`, then ` + N more...`."""
    text = ','.join(items[:limit])
    if total > limit:
        return f'{text} + {total - limit} more...'
    return text or empty


def _endpoints(ep):
    """formatEndpoints: `ip:port` of the ready addresses, three at most; `<none>` without subsets."""
    subsets = ep.get('subsets') or []
    if not subsets:
        return '<none>'
    shown, count = [], 0
    for subset in subsets:
        addresses = [a.get('ip', '') for a in subset.get('addresses') or []]
        for port in subset.get('ports') or [None]:
            count += len(addresses)
            for ip in addresses:
                if port is None:
                    shown.append(ip)
                else:
                    host = f'[{ip}]' if ':' in ip else ip
                    shown.append(f'{host}:{port.get("port", 0)}')
    return _with_more(shown, count, empty='')


def _slice_ports(es):
    ports = es.get('ports') or []
    shown = [str(p['port']) if p.get('port') is not None else (p.get('name') if p.get('name') is not None
                                                                else '*') for p in ports]
    return _with_more(shown, len(ports))


def _slice_endpoints(es):
    shown = [a for endpoint in es.get('endpoints') or [] for a in endpoint.get('addresses') or []]
    return _with_more(shown, len(shown))


SERVICE = [
    _NAME, ('Type', 'string', 0, lambda o: _spec(o).get('type', '')),
    ('Cluster-IP', 'string', 0, lambda o: (_spec(o).get('clusterIPs') or ['<none>'])[0]),
    ('External-IP', 'string', 0, _service_external_ip), ('Port(s)', 'string', 0, _service_ports), _AGE,
    ('Selector', 'string', 1, _map_selector)]
ENDPOINTS = [_NAME, ('Endpoints', 'string', 0, _endpoints), _AGE]
ENDPOINT_SLICE = [
    _NAME, ('AddressType', 'string', 0, lambda o: o.get('addressType', '')),
    ('Ports', 'string', 0, _slice_ports), ('Endpoints', 'string', 0, _slice_endpoints), _AGE]
