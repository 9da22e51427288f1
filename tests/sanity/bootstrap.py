"""Prepare ansible-test's pip bootstrap so `ansible-test sanity --venv` works without internet.

ansible-test downloads pip's get-pip.py before creating its test venvs unless a cached copy exists
at ~/.ansible/test/cache/get_pip_<version>.py. We place a tiny stand-in there that installs the
standard library's bundled pip (ensurepip); the per-test requirements then come from the package
index as usual.
"""

import os
import pathlib
import types

STAND_IN = '''"""Stand-in for get-pip.py written by kubeops.rollout's tests/sanity/bootstrap.py."""
import ensurepip
import sys

sys.exit(ensurepip._main(["--upgrade", "--default-pip"]))
'''


def pip_versions():
    """The pip versions the installed ansible-test bootstraps (2.16-2.19 name one in PIP_VERSION,
    2.20 and later per Python in get_venv_packages), plus those of 2.16-2.21 in case its layout
    changes again."""
    versions = {'23_1_2', '24_0', '24_2', '25_0', '25_1', '25_2'}
    try:
        from ansible_test._internal import python_requirements as requirements
    except Exception:
        return versions
    if hasattr(requirements, 'PIP_VERSION'):
        versions.add(requirements.PIP_VERSION.replace('.', '_'))
    if hasattr(requirements, 'get_venv_packages'):
        for minor in range(8, 16):
            try:
                pip = requirements.get_venv_packages(types.SimpleNamespace(version=f'3.{minor}'))['pip']
            except Exception:
                continue
            versions.add(pip.replace('.', '_'))
    return versions


def main():
    cache = pathlib.Path(os.path.expanduser('~/.ansible/test/cache'))
    cache.mkdir(parents=True, exist_ok=True)
    for version in pip_versions():
        target = cache / f'get_pip_{version}.py'
        if not target.exists() or target.read_text() != STAND_IN:
            target.write_text(STAND_IN)


if __name__ == '__main__':
    main()
