"""Install what only the benchmark needs: matplotlib into .venv, kubernetes.core into .bench/collections.

`python -m tests.bench.deps` (run by scripts/bench). Idempotent and quick when everything is there.
"""

import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

from .ansible_run import BENCH_COLLECTIONS
from .kube import ROOT

REQUIREMENTS = os.path.join(ROOT, 'tests', 'bench', 'requirements.txt')
CORE_PREFIX = 'ansible_collections/kubernetes/core/'
STAMP = os.path.join(BENCH_COLLECTIONS, '.source')


def requirements():
    with open(REQUIREMENTS) as f:
        lines = [line.split('#', 1)[0].strip() for line in f]
    return [line for line in lines if line]


def pip(*args):
    subprocess.run([sys.executable, '-m', 'pip', '--disable-pip-version-check', *args], check=True)


def install_python_packages(reqs):
    missing = [r for r in reqs if importlib.util.find_spec(re.split(r'[<>=!~ ]', r)[0]) is None]
    if missing:
        print(f'bench: installing {", ".join(missing)} into .venv', flush=True)
        pip('install', '--quiet', *missing)


def install_kubernetes_core(pin):
    """Unpack kubernetes.core from the `ansible` wheel ``pin`` (e.g. 'ansible==12.3.0')."""
    if os.path.exists(STAMP):
        with open(STAMP) as f:
            if f.read().strip() == pin:
                return
    print(f'bench: extracting kubernetes.core from {pin} into .bench/collections', flush=True)
    with tempfile.TemporaryDirectory(dir=os.path.join(ROOT, '.bench')) as tmp:
        pip('download', '--quiet', '--no-deps', '--dest', tmp, pin)
        wheels = glob.glob(os.path.join(tmp, 'ansible-*.whl'))
        if not wheels:
            raise SystemExit(f'bench: pip download {pin} produced no wheel')
        target = os.path.join(BENCH_COLLECTIONS, 'ansible_collections', 'kubernetes', 'core')
        shutil.rmtree(target, ignore_errors=True)
        with zipfile.ZipFile(wheels[0]) as wheel:
            members = [n for n in wheel.namelist() if n.startswith(CORE_PREFIX)]
            if not members:
                raise SystemExit(f'bench: {pin} has no kubernetes.core collection')
            wheel.extractall(BENCH_COLLECTIONS, members=members)
    with open(STAMP, 'w') as f:
        f.write(pin + '\n')


def core_version():
    path = os.path.join(BENCH_COLLECTIONS, CORE_PREFIX, 'MANIFEST.json')
    try:
        with open(path) as f:
            return json.load(f)['collection_info']['version']
    except (OSError, ValueError, KeyError):
        return None


def main():
    os.makedirs(BENCH_COLLECTIONS, exist_ok=True)
    reqs = requirements()
    ansible_pins = [r for r in reqs if re.match(r'ansible([<>=!~ ]|$)', r)]
    install_python_packages([r for r in reqs if r not in ansible_pins])
    for pin in ansible_pins:
        install_kubernetes_core(pin)
    print(f'bench: kubernetes.core {core_version()} ready', flush=True)


if __name__ == '__main__':
    main()
