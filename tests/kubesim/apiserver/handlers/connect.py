"""The pods' subresources that reach the kubelet (pkg/registry/core/pod/rest/log.go and
subresources.go, with pkg/registry/core/pod/strategy.go's LogLocation, ExecLocation,
AttachLocation, PortForwardLocation): `pods/log`, `pods/exec`, `pods/attach`, `pods/portforward`.

kubesim has no container runtime. A container's log is what its command prints (`echo`, `printf`:
kubelet/programs.py), kept by the kubelet stand-in for its current run and the one before:
`pods/log` answers it as text/plain once the container has started (the kubelet's 400 while it
waits to start), `previous=true` the run before (400 when there was none), `tailLines` its last
lines, `limitBytes` its first bytes; a container whose command kubesim cannot read printed nothing.
exec, attach and port-forward need a stream into a running process:
after the API server's own checks (the pod, the container, a node assigned, a pod not finished)
the API server dials the node's kubelet, and kubesim's kubelets listen nowhere, so the answer is
the one an API server gives when the kubelet port is unreachable: 500 `error dialing backend:
dial tcp <node IP>:10250: connect: connection refused`.
"""

from aiohttp import web

from ...machinery.errors import ApiError

CONNECT_SUBRESOURCES = ('attach', 'exec', 'log', 'portforward')
KUBELET_PORT = 10250


def _names(spec, key):
    return [c.get('name') for c in spec.get(key) or []]


class ConnectHandlers:
    async def _pod_connect(self, request, route):
        sub = route.subresource
        allowed = ('GET', 'HEAD') if sub == 'log' else ('GET', 'POST')
        if request.method not in allowed:
            raise ApiError.method_not_allowed()
        pod = self.store.must_get('/pods', route.namespace, route.name)
        spec, status = pod.get('spec') or {}, pod.get('status') or {}
        name = route.name
        container = request.query.get('container')
        if sub != 'portforward':
            regular = _names(spec, 'containers')
            if not container:
                if len(regular) == 1:
                    container = regular[0]
                else:
                    everything = ' '.join(_names(spec, 'initContainers') + regular
                                          + _names(spec, 'ephemeralContainers'))
                    raise ApiError.bad_request(f'a container name must be specified for pod {name}, '
                                               f'choose one of: [{everything}]')
            elif container not in (_names(spec, 'initContainers') + regular
                                   + _names(spec, 'ephemeralContainers')):
                raise ApiError.bad_request(f'container {container} is not valid for pod {name}')
        node = spec.get('nodeName')
        if sub == 'log':
            return self._pod_log(pod, container, node, request.query)
        phase = status.get('phase')
        if sub in ('exec', 'attach') and phase in ('Succeeded', 'Failed'):
            verb = 'exec into' if sub == 'exec' else 'attach to'
            raise ApiError.bad_request(f'cannot {verb} a container in a completed pod; '
                                       f'current phase is {phase}')
        if not node:
            raise ApiError.bad_request(f'pod {name} does not have a host assigned')
        address = self._node_address(node)
        # errors.NewInternalError is not used here: the proxy's responder writes the dial error as it
        # is, a 500 Status without a reason.
        raise ApiError(500, '', f'error dialing backend: dial tcp {address}:{KUBELET_PORT}: connect: '
                                'connection refused')

    def _node_address(self, node_name):
        node = self.store.get('/nodes', '', node_name) or {}
        for addr in (node.get('status') or {}).get('addresses') or []:
            if addr.get('type') == 'InternalIP':
                return addr.get('address')
        return node_name

    # The kubelet's log of a container: (pod, container, previous) -> text, or None without a previous
    # run (kubesim sets it to its kubelet stand-in's `log`).
    container_log = None

    def _pod_log(self, pod, container, node, query):
        numbers = {}
        for key in ('tailLines', 'limitBytes', 'sinceSeconds'):
            if key in query:
                try:
                    numbers[key] = int(query[key])
                except ValueError:
                    raise ApiError.bad_request(
                        f'strconv.ParseInt: parsing "{query[key]}": invalid syntax') from None
                if numbers[key] < (0 if key == 'tailLines' else 1):
                    least = 'greater than or equal to 0' if key == 'tailLines' else 'greater than 0'
                    raise ApiError.invalid('PodLogOptions', '', [
                        (key, 'FieldValueInvalid', f'Invalid value: {numbers[key]}: must be {least}')],
                        kind='PodLogOptions')
        previous = query.get('previous') in ('true', '1', 'True')
        name = pod['metadata']['name']
        if node:
            statuses = (pod.get('status') or {}).get('containerStatuses') or []
            statuses += (pod.get('status') or {}).get('initContainerStatuses') or []
            found = next((s for s in statuses if s.get('name') == container), None)
            waiting = ((found or {}).get('state') or {}).get('waiting')
            if found is None or (waiting is not None and not found.get('lastState', {}).get('terminated')):
                reason = (waiting or {}).get('reason') or 'ContainerCreating'
                raise ApiError.bad_request(f'container "{container}" in pod "{name}" is '
                                           f'waiting to start: {reason}')
        else:
            # LogLocation gives no location for a pod without a node: an empty log, as for a
            # container that wrote nothing.
            return web.Response(body=b'', content_type='text/plain')
        text = self.container_log(pod, container, previous) if self.container_log else ''
        if text is None:
            raise ApiError.bad_request(
                f'previous terminated container "{container}" in pod "{name}" not found')
        if 'tailLines' in numbers:
            lines = text.splitlines(keepends=True)
            text = ''.join(lines[len(lines) - numbers['tailLines']:] if numbers['tailLines'] else [])
        body = text.encode('utf-8')
        if 'limitBytes' in numbers:
            body = body[:numbers['limitBytes']]
        return web.Response(body=body, content_type='text/plain')
