"""`python -m tests.kubesim --kubeconfig FILE [options]`: run kubesim until SIGTERM or SIGINT."""

import argparse
import asyncio
import re
import signal
import sys

from .faults import FaultSpecError, parse_spec


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog='python -m tests.kubesim',
                                description='Run a simulated Kubernetes control plane on 127.0.0.1.')
    p.add_argument('--kubeconfig', required=True, metavar='FILE',
                   help='write a kubeconfig (context, cluster and user "kubesim") to FILE')
    p.add_argument('--port', type=int, default=0, help='port to listen on (default: a free one)')
    p.add_argument('--tls', action='store_true', help='serve HTTPS with a CA generated at startup')
    p.add_argument('--token', help='require "Authorization: Bearer TOKEN" on every request')
    p.add_argument('--readonly-token', metavar='TOKEN', help='a token that may read but not write')
    p.add_argument('--token-file', metavar='FILE',
                   help='also accept the tokens listed in FILE (re-read on every request): one "TOKEN '
                        '[EXPIRES]" a line, EXPIRES in seconds since the epoch')
    p.add_argument('--basic-auth', metavar='USER:PASSWORD', help='also accept this HTTP Basic credential')
    p.add_argument('--client-certs', action='store_true',
                   help='with --tls: also accept client certificates signed by the CA (CN = user)')
    p.add_argument('--max-watch-seconds', type=float, metavar='SECONDS',
                   help='end every watch after at most SECONDS, as a proxy in front of a server may')
    p.add_argument('--authorization-mode', choices=('AlwaysAllow', 'RBAC'), default='AlwaysAllow',
                   help='RBAC: authorize every request with Roles, ClusterRoles and their bindings, as '
                        'kube-apiserver --authorization-mode RBAC (default AlwaysAllow)')
    p.add_argument('--nodes', type=int, default=3, help='number of Nodes (default 3)')
    p.add_argument('--no-default-storage-class', dest='default_storage_class', action='store_false',
                   help='install no StorageClass, as a bare API server (default: the default class '
                        '"standard", as kind installs it)')
    p.add_argument('--upstream-like', action='store_true',
                   help='the cluster of Kubernetes\' own kubectl command tests: a bare API server and '
                        'controller manager (--nodes 0 --no-default-storage-class)')
    p.add_argument('--ready-delay', type=float, default=0.2, metavar='SECONDS',
                   help='seconds from pod creation to Ready (default 0.2)')
    p.add_argument('--fail-image', metavar='REGEX', help='pods whose image matches never become Ready')
    p.add_argument('--crash-image', metavar='REGEX',
                   help='containers whose image matches exit with code 1 after --crash-after seconds and '
                        'are restarted with the kubelet\'s back-off (CrashLoopBackOff)')
    p.add_argument('--crash-after', type=float, default=1.0, metavar='SECONDS',
                   help='how long a crashing container runs before it exits (default 1)')
    p.add_argument('--stop-delay', type=float, default=0.1, metavar='SECONDS',
                   help='seconds a deleted pod\'s containers take to stop after SIGTERM (default 0.1; the '
                        'grace period caps it)')
    p.add_argument('--endpoint-lag', type=float, default=0.0, metavar='SECONDS',
                   help='seconds the endpoint controllers wait before writing a change to EndpointSlices '
                        'and Endpoints (default 0; changes meanwhile join that write)')
    p.add_argument('--time-scale', type=float, default=1.0, metavar='X',
                   help='speed factor for the controllers\' clocks (default 1)')
    p.add_argument('--request-log', metavar='FILE', help='append one JSON line per request to FILE')
    p.add_argument('--faults', metavar='SPEC', help='fault injection, e.g. "seed=1;429=0.1;conflict='
                   'apps/deployments/default/web:2" (see tests/kubesim/README.md)')
    p.add_argument('--gateway-api', action='store_true',
                   help='install the Gateway API CRDs (GatewayClass, Gateway, HTTPRoute, GRPCRoute) and run'
                        ' a gateway controller of the class "kubesim" and a mesh (routes on Services)')
    p.add_argument('--gateway-delay', type=float, default=0.0, metavar='SECONDS',
                   help='with --gateway-api: seconds the gateway takes to judge and program a route '
                        '(default 0)')
    p.add_argument('--gateway-reject', metavar='REASON',
                   help='with --gateway-api: refuse every route (Accepted False with this reason, e.g. '
                        'NotAllowedByListeners)')
    p.add_argument('--istio', action='store_true',
                   help='install Istio\'s VirtualService and DestinationRule CRDs, its validating webhook '
                        'and a stand-in for istiod and its proxies')
    p.add_argument('--istio-delay', type=float, default=0.0, metavar='SECONDS',
                   help='with --istio: seconds istiod takes to program a change of a VirtualService or a '
                        'DestinationRule (default 0)')
    p.add_argument('--istio-reconciled', action='store_true',
                   help='with --istio: write the Reconciled condition of istiod\'s status feature')
    p.add_argument('--openshift', action='store_true',
                   help='serve the OpenShift Route (route.openshift.io/v1) and run a router stand-in, the '
                        'ingress controller "default"')
    p.add_argument('--openshift-delay', type=float, default=0.0, metavar='SECONDS',
                   help='with --openshift: seconds the router takes to judge and serve a changed route '
                        '(default 0)')
    args = p.parse_args(argv)
    if args.faults:
        try:
            parse_spec(args.faults)
        except FaultSpecError as e:
            p.error(f'--faults: {e}')
    for flag, pattern in (('--fail-image', args.fail_image), ('--crash-image', args.crash_image)):
        try:
            re.compile(pattern or '')
        except re.error as e:
            p.error(f'{flag}: not a regular expression: {e}')
    if args.client_certs and not args.tls:
        p.error('--client-certs needs --tls')
    if args.basic_auth is not None and ':' not in args.basic_auth:
        p.error('--basic-auth must be USER:PASSWORD')
    if args.max_watch_seconds is not None and not args.max_watch_seconds > 0:
        p.error('--max-watch-seconds must be positive')
    if args.upstream_like:
        args.nodes, args.default_storage_class = 0, False
    if args.nodes < 0:
        p.error('--nodes must not be negative')
    if args.stop_delay < 0:
        p.error('--stop-delay must not be negative')
    if args.endpoint_lag < 0:
        p.error('--endpoint-lag must not be negative')
    if args.time_scale <= 0:
        p.error('--time-scale must be positive')
    if not args.gateway_api and (args.gateway_delay or args.gateway_reject):
        p.error('--gateway-delay and --gateway-reject need --gateway-api')
    if args.gateway_delay < 0:
        p.error('--gateway-delay must not be negative')
    if not args.istio and (args.istio_delay or args.istio_reconciled):
        p.error('--istio-delay and --istio-reconciled need --istio')
    if args.istio_delay < 0:
        p.error('--istio-delay must not be negative')
    if args.openshift_delay and not args.openshift:
        p.error('--openshift-delay needs --openshift')
    if args.openshift_delay < 0:
        p.error('--openshift-delay must not be negative')
    return args


async def serve(args):
    from .sim import KubeSim

    sim = KubeSim(port=args.port, tls=args.tls, token=args.token, readonly_token=args.readonly_token,
                  nodes=args.nodes, ready_delay=args.ready_delay, fail_image=args.fail_image,
                  crash_image=args.crash_image, crash_after=args.crash_after,
                  time_scale=args.time_scale, request_log=args.request_log, faults=args.faults,
                  token_file=args.token_file, basic_auth=args.basic_auth, client_certs=args.client_certs,
                  max_watch_seconds=args.max_watch_seconds, stop_delay=args.stop_delay,
                  endpoint_lag=args.endpoint_lag, gateway_api=args.gateway_api,
                  gateway_delay=args.gateway_delay, gateway_reject=args.gateway_reject,
                  authorization_mode=args.authorization_mode,
                  default_storage_class=args.default_storage_class, istio=args.istio,
                  istio_delay=args.istio_delay, istio_reconciled=args.istio_reconciled,
                  openshift=args.openshift, openshift_delay=args.openshift_delay)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    sim.loop = loop
    await sim._astart()
    try:
        sim.write_kubeconfig(args.kubeconfig)
        print(f'kubesim ready {sim.url}', flush=True)
        await stop.wait()
    finally:
        await sim._astop()


def main(argv=None):
    args = parse_args(argv)
    try:
        asyncio.run(serve(args))
    except OSError as e:
        print(f'kubesim: cannot serve: {e}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
