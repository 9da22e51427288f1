"""Prepare ansible-test's pip bootstrap so `ansible-test sanity --venv` works without internet.

ansible-test downloads pip's get-pip.py before creating its test venvs unless a cached copy exists
at ~/.ansible/test/cache/get_pip_<version>.py. We place a tiny stand-in there that installs the
standard library's bundled pip (ensurepip); the per-test requirements then come from the package
index as usual.
"""

import os
import pathlib

STAND_IN = '''"""Stand-in for get-pip.py written by kubeops.rollout's tests/sanity/bootstrap.py."""
import ensurepip
import sys

sys.exit(ensurepip._main(["--upgrade", "--default-pip"]))
'''


def pip_versions():
    try:
        from ansible_test._internal.python_requirements import PIP_VERSION  # noqa: F401
        return [PIP_VERSION.replace('.', '_')]
    except Exception:  # older/newer layouts: cover the versions ansible-core 2.16-2.19 use
        return ['23_1_2', '24_0', '24_2', '25_0', '25_1']


def main():
    cache = pathlib.Path(os.path.expanduser('~/.ansible/test/cache'))
    cache.mkdir(parents=True, exist_ok=True)
    for version in set(pip_versions()) | {'24_2'}:
        target = cache / f'get_pip_{version}.py'
        if not target.exists() or target.read_text() != STAND_IN:
            target.write_text(STAND_IN)


if __name__ == '__main__':
    main()
