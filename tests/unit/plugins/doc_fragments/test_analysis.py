"""The ``analysis`` doc fragment documents the option as its argument spec declares it (built from
the gate's and the providers' classes): the same suboptions, types, defaults, choices, elements and
required flags, so a default changed in its class and not in the documentation fails here."""

import pytest
import yaml

from ansible_collections.kubeops.rollout.plugins.doc_fragments.analysis import ModuleDocFragment
from ansible_collections.kubeops.rollout.plugins.module_utils.gates import analysis

pytestmark = pytest.mark.unit

FIELDS = ('type', 'default', 'choices', 'elements', 'required')


def differences(documented, spec, path=''):
    """[(where, documented, declared)] for every field that differs."""
    if sorted(documented) != sorted(spec):
        return [(path, sorted(documented), sorted(spec))]
    out = []
    for name, option in spec.items():
        doc, where = documented[name], path + name
        for field in FIELDS:
            declared = option.get(field, False if field == 'required' else None)
            if doc.get(field, False if field == 'required' else None) != declared:
                out.append(('%s.%s' % (where, field), doc.get(field), declared))
        if 'options' in option:
            out += differences(doc.get('suboptions') or {}, option['options'], where + '.')
    return out


def test_the_documented_analysis_option_is_its_argument_spec():
    documented = yaml.safe_load(ModuleDocFragment.DOCUMENTATION)['options']
    assert differences(documented, analysis.ANALYSIS_ARG_SPEC) == []
    checks = documented['analysis']['suboptions']['checks']['suboptions']
    assert checks['http']['suboptions']['status']['default'] == [200]  # the comparison compares


def test_a_difference_is_found():
    documented = yaml.safe_load(ModuleDocFragment.DOCUMENTATION)['options']
    documented['analysis']['suboptions']['interval']['default'] = 10
    assert differences(documented, analysis.ANALYSIS_ARG_SPEC) == [('analysis.interval.default', 10, 5)]
