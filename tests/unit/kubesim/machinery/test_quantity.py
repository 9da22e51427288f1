"""Resource quantities: parsing, sums and the canonical text quota and scheduler messages print."""

import pytest

from tests.kubesim.kubelet.scheduler import pod_requests, unschedulable_message
from tests.kubesim.machinery.quantity import parse_quantity

pytestmark = pytest.mark.unit


@pytest.mark.parametrize('text, canonical', [
    ('500m', '500m'), ('0.5', '500m'), ('1', '1'), ('1500', '1500'), ('2000', '2k'), ('1e3', '1k'),
    ('128Mi', '128Mi'), ('1024Mi', '1Gi'), ('1G', '1G'), ('0', '0'),
])
def test_canonical_text(text, canonical):
    assert str(parse_quantity(text)) == canonical


def test_sums_keep_units():
    assert str(parse_quantity('250m') + parse_quantity('250m')) == '500m'
    assert str(parse_quantity('600m') + parse_quantity('400m')) == '1'
    assert str(parse_quantity('128Mi') + parse_quantity('128Mi')) == '256Mi'


@pytest.mark.parametrize('bad', ['lots', '1x', '', '1.2.3', '1Mib'])
def test_rejects_non_quantities(bad):
    with pytest.raises(ValueError, match='quantities must match'):
        parse_quantity(bad)


def test_pod_requests_sum_containers_and_take_the_largest_init_container():
    pod = {'spec': {
        'containers': [{'resources': {'requests': {'cpu': '250m'}}},
                       {'resources': {'limits': {'cpu': '1', 'memory': '1Gi'}}}],
        'initContainers': [{'resources': {'requests': {'cpu': '2'}}}]}}
    requests = pod_requests(pod)
    assert requests['cpu'] == 2 and requests['memory'] == 2 ** 30


def test_unschedulable_message_sorts_reasons_and_adds_the_preemption_verdict():
    selector = "node(s) didn't match Pod's node affinity/selector"
    message = unschedulable_message(3, {'Insufficient cpu': 2, selector: 1})
    assert message == ("0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
                       '2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful '
                       'for scheduling, 2 No preemption victims found for incoming pod.')


def test_a_suffix_alone_is_zero_as_parse_quantity_reads_it():
    # resource.ParseQuantity takes the missing number for 0 ("Mi" is 0, its text "0")
    assert parse_quantity('Mi').value == 0 and str(parse_quantity('Mi')) == '0'
