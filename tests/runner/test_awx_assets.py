"""What AWX is given besides the playbooks: the survey specs and the execution environment definition."""

import json
import pathlib
import re
import subprocess
import sys

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent
PLAYBOOKS = sorted(p.stem for p in (ROOT / 'playbooks').glob('*.yml'))
# A workflow job template's survey: its answers go to every job of the workflow.
WORKFLOWS = {'canary_workflow': ['canary_start', 'canary_promote', 'canary_abort']}
SURVEYS = sorted(PLAYBOOKS + list(WORKFLOWS))
# The question types the AWX API accepts, with the type a default must have (awx/api/views).
SURVEY_TYPES = {'text': str, 'textarea': str, 'password': str, 'multiplechoice': str, 'multiselect': str,
                'integer': int, 'float': float}

pytestmark = pytest.mark.runner


def load_survey(playbook):
    return json.loads((ROOT / 'playbooks' / 'awx' / f'{playbook}.survey.json').read_text())


def test_every_playbook_has_a_survey():
    assert set(PLAYBOOKS) == {'upgrade', 'rollback', 'restart', 'history', 'rc_upgrade', 'fleet',
                              'canary_start', 'canary_promote', 'canary_abort', 'bluegreen',
                              'traffic_canary'}
    surveys = {p.name.removesuffix('.survey.json')
               for p in (ROOT / 'playbooks' / 'awx').glob('*.survey.json')}
    assert surveys == set(SURVEYS)


@pytest.mark.parametrize('playbook', SURVEYS)
def test_survey_is_what_the_awx_api_accepts(playbook):
    """The checks AWX makes when a survey spec is POSTed to a job template."""
    survey = load_survey(playbook)
    assert isinstance(survey.get('name'), str) and isinstance(survey.get('description'), str)
    assert isinstance(survey.get('spec'), list) and survey['spec'], 'a survey needs at least one question'
    seen = set()
    for question in survey['spec']:
        for field in ('type', 'question_name', 'variable'):
            assert isinstance(question.get(field), str) and question[field], (question, field)
        assert isinstance(question.get('required'), bool), question
        assert question['variable'] not in seen, f'variable {question["variable"]} asked twice'
        seen.add(question['variable'])
        assert question['type'] in SURVEY_TYPES, question
        default = question.get('default', '')
        if default != '':
            assert isinstance(default, SURVEY_TYPES[question['type']]), question
        for key in ('min', 'max'):
            assert question.get(key) is None or isinstance(question[key], int), question
        if question['type'] in ('multiplechoice', 'multiselect'):
            choices = question.get('choices')
            assert isinstance(choices, str) and choices.strip(), question
            if default != '':
                assert set(default.splitlines()) <= set(choices.splitlines()), question
        if question['type'] == 'text' and default != '':
            assert question.get('min', 0) <= len(default) <= question.get('max', 1024), question


def _reads(playbook, variable):
    text = (ROOT / 'playbooks' / f'{playbook}.yml').read_text()
    return re.search(rf'\b{variable}\b', text.split('\n- name:', 1)[1])


@pytest.mark.parametrize('playbook', PLAYBOOKS)
def test_survey_asks_only_for_variables_the_playbook_reads(playbook):
    for question in load_survey(playbook)['spec']:
        assert _reads(playbook, question['variable']), f'{playbook}.yml never reads {question["variable"]}'


@pytest.mark.parametrize('workflow', sorted(WORKFLOWS))
def test_workflow_survey_asks_what_its_jobs_read_and_need(workflow):
    asked = {q['variable']: q for q in load_survey(workflow)['spec']}
    for variable in asked:
        assert any(_reads(p, variable) for p in WORKFLOWS[workflow]), f'no job of {workflow} reads {variable}'
    # Every question of the jobs' own surveys, so that no job misses an answer it needs.
    for playbook in WORKFLOWS[workflow]:
        for question in load_survey(playbook)['spec']:
            assert question['variable'] in asked, (workflow, playbook, question['variable'])
            if question['required']:
                assert asked[question['variable']]['required'], (workflow, question['variable'])


def test_execution_environment_build_context(tmp_path):
    context = tmp_path / 'context'
    proc = subprocess.run([str(BIN / 'ansible-builder'), 'create', '-f', 'meta/execution-environment.yml',
                           '--context', str(context)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    containerfile = next(p for p in (context / 'Containerfile', context / 'Dockerfile') if p.exists())
    text = containerfile.read_text()
    deps = yaml.safe_load((ROOT / 'meta/execution-environment.yml').read_text())['dependencies']
    # The Python that ansible-core 2.20 and 2.21 need on the controller, and ansible-core up to the newest.
    assert deps['ansible_core']['package_pip'] == 'ansible-core>=2.16,<2.22'
    assert deps['python_interpreter']['python_path'] == '/usr/bin/python3.12'
    assert deps['ansible_core']['package_pip'] in text and deps['python_interpreter']['python_path'] in text
    # The Python libraries the modules import, from the one requirements.txt.
    requirements = (context / '_build' / 'requirements.txt').read_text()
    assert requirements == (ROOT / 'requirements.txt').read_text()
    assert re.search(r'^kubernetes\b', requirements, re.M)


@pytest.mark.parametrize('name', ['requirements.txt', 'bindep.txt'])
def test_execution_environment_dependency_files_match_the_collection_root(name):
    # meta/execution-environment.yml names them relative to meta/ when built with -f, and relative
    # to the collection root when another execution environment installs the collection.
    assert (ROOT / 'meta' / name).read_text() == (ROOT / name).read_text(), (
        f'meta/{name} differs from {name}: copy {name} to meta/')
