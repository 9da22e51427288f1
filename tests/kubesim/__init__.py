"""kubesim: a simulated Kubernetes control plane for the collection's tests.

`from tests.kubesim import KubeSim` (see sim.py); `python -m tests.kubesim --help` for the CLI.
"""


def __getattr__(name):
    # Lazy, so the store and controllers can be imported without pulling in the HTTP server.
    if name == 'KubeSim':
        from .sim import KubeSim

        return KubeSim
    raise AttributeError(name)


__all__ = ['KubeSim']
