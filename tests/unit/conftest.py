"""Unit tests import the collection as ``ansible_collections.kubeops.rollout`` (via .collections/)."""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
COLLECTIONS = ROOT / '.collections'
LINK = COLLECTIONS / 'ansible_collections' / 'kubeops' / 'rollout'

if not LINK.exists():  # `make setup` makes it; keep a bare pytest run working too
    LINK.parent.mkdir(parents=True, exist_ok=True)
    LINK.symlink_to('../../..')
if str(COLLECTIONS) not in sys.path:
    sys.path.insert(0, str(COLLECTIONS))
