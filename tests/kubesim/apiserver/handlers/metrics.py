"""metrics.k8s.io/v1beta1, as metrics-server serves it (sigs.k8s.io/metrics-server pkg/api: pod.go,
node.go): PodMetrics and NodeMetrics, get and list, never stored. A running pod's containers each
report the usage a test set (`KubeSim.set_usage`), else a small default (1m of CPU, 4Mi of memory);
a node reports the sum over its running pods. Pods that are not running have no metrics (a 404,
as metrics-server answers). Every answer is a 30 s window ending now; `kubectl top pod|node` read
these. `kubectl get podmetrics|nodemetrics` prints metrics-server's Table (pkg/api/table.go): Name,
one column per resource (a pod's summed over its containers), Window."""

from ...machinery.errors import ApiError
from ...machinery.quantity import format_quantity, parse_quantity
from ...machinery.selectors import matches_labels
from .. import tables
from ...machinery.clock import now_rfc3339
from .responsewriters import _json_response

GROUP = 'metrics.k8s.io'
GROUP_VERSION = 'metrics.k8s.io/v1beta1'
DEFAULT_USAGE = {'cpu': '1m', 'memory': '4Mi'}
WINDOW = '30s'


def usage_table(store):
    """(namespace, pod, container) -> {'cpu': ..., 'memory': ...}, kept on the store."""
    table = getattr(store, 'container_usage', None)
    if table is None:
        table = store.container_usage = {}
    return table


def _running(pod):
    phase = (pod.get('status') or {}).get('phase')
    return phase == 'Running' and not pod['metadata'].get('deletionTimestamp')


def _pod_metrics(store, pod, stamp):
    meta = pod['metadata']
    table = usage_table(store)
    containers = []
    for container in (pod.get('spec') or {}).get('containers') or []:
        usage = dict(DEFAULT_USAGE)
        usage.update(table.get((meta.get('namespace', ''), meta['name'], container['name']), {}))
        containers.append({'name': container['name'], 'usage': usage})
    return {'kind': 'PodMetrics', 'apiVersion': GROUP_VERSION,
            'metadata': {'name': meta['name'], 'namespace': meta.get('namespace', ''),
                         'creationTimestamp': stamp, 'labels': dict(meta.get('labels') or {})},
            'timestamp': stamp, 'window': WINDOW, 'containers': containers}


def _node_metrics(store, node, pods, stamp):
    name = node['metadata']['name']
    totals = {'cpu': parse_quantity('0'), 'memory': parse_quantity('0')}
    for pod in pods:
        if (pod.get('spec') or {}).get('nodeName') != name:
            continue
        for container in _pod_metrics(store, pod, stamp)['containers']:
            for key in totals:
                totals[key] = totals[key] + parse_quantity(container['usage'][key])
    return {'kind': 'NodeMetrics', 'apiVersion': GROUP_VERSION,
            'metadata': {'name': name, 'creationTimestamp': stamp,
                         'labels': dict(node['metadata'].get('labels') or {})},
            'timestamp': stamp, 'window': WINDOW,
            'usage': {'cpu': format_quantity(totals['cpu'].value),
                      'memory': format_quantity(totals['memory'].value, binary=True)}}


def _usage_cell(resource):
    def cell(item):
        if 'usage' in item:
            return item['usage'][resource]
        total = sum((parse_quantity(c['usage'][resource]).value for c in item['containers']), 0)
        return format_quantity(total, binary=resource == 'memory')
    return cell


COLUMNS = (('Name', 'string', 0, lambda i: i['metadata']['name']),
           ('cpu', 'string', 0, _usage_cell('cpu'), {'format': 'quantity', 'description': ''}),
           ('memory', 'string', 0, _usage_cell('memory'), {'format': 'quantity', 'description': ''}),
           ('Window', 'string', 0, lambda i: i['window'], {'format': 'duration', 'description': ''}))


def _answer(request, obj, items=None):
    if tables.wants_table(request.headers.get('Accept')):
        return _json_response(tables.table(COLUMNS, [obj] if items is None else items, {}))
    return _json_response(obj)


def answer(store, request, route, selectors):
    """GET of one PodMetrics/NodeMetrics or a list of them."""
    if request.method not in ('GET', 'HEAD') or route.subresource or route.watch:
        raise ApiError.method_not_allowed()
    labels = selectors[0]
    stamp = now_rfc3339()
    running = [p for p in store.list('/pods', route.namespace) if _running(p)]
    if route.resource.plural == 'pods':
        items = [_pod_metrics(store, p, stamp) for p in running]
    else:
        every_pod = [p for p in store.list('/pods') if _running(p)]
        items = [_node_metrics(store, n, every_pod, stamp) for n in store.list('/nodes')]
    if route.name is not None:
        found = next((i for i in items if i['metadata']['name'] == route.name), None)
        if found is None:
            raise ApiError.not_found(route.resource.key, route.name)
        return _answer(request, found)
    if labels is not None:
        items = [i for i in items if matches_labels(labels, i['metadata'].get('labels') or {})]
    return _answer(request, {'kind': f'{route.resource.kind}List', 'apiVersion': GROUP_VERSION,
                             'metadata': {}, 'items': items}, items)
