"""exec_plugin with real plugin programs: small scripts written to tmp_path and run for real, on
both execution paths (the module path's run_command and the controller path's runner).

Each plugin is an executable Python script; what it saw (argv, environment, stdin) it writes to a
JSON file beside it so the test can check what the provider really passed.
"""

import base64
import functools
import json
import os
import signal
import ssl
import sys
import textwrap
import threading
import time

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kubeops.rollout.plugins.module_utils.adapter.module import AnsibleRuntime
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection import exec_plugin as ec
from ansible_collections.kubeops.rollout.plugins.module_utils.api.connection.exec_plugin import (
    ExecConfigError,
    ExecCredentialError,
    ExecCredentialProvider,
)
from ansible_collections.kubeops.rollout.plugins.plugin_utils.controller import ControllerRuntime
from tests.kubesim.apiserver.tls import Certificates

pytestmark = pytest.mark.unit

V1 = 'client.authentication.k8s.io/v1'
V1BETA1 = 'client.authentication.k8s.io/v1beta1'
SECRET = 'sEcReT-t0ken-4f9a2c7e1b'
JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJlLXZhbHVl'


def plugin(tmp_path, body, name='plugin'):
    """An executable Python script at tmp_path/name; ``body`` runs with ``record`` and ``emit``."""
    path = tmp_path / name
    path.write_text(
        '#!%s\n' % sys.executable
        + textwrap.dedent('''\
            import json, os, sys
            HERE = os.path.dirname(os.path.abspath(__file__))
            def record(**data):
                with open(os.path.join(HERE, %r), 'w') as f:
                    json.dump(data, f)
            def emit(status, version=os.environ.get('WANT_VERSION', %r), kind='ExecCredential'):
                print(json.dumps({'apiVersion': version, 'kind': kind, 'status': status}))
            ''' % (name + '.seen.json', V1))
        + textwrap.dedent(body))
    path.chmod(0o755)
    return path


def seen(path):
    return json.loads((path.parent / (path.name + '.seen.json')).read_text())


def config(command, version=V1, **extra):
    out = {'apiVersion': version, 'command': str(command), 'interactiveMode': 'Never'}
    out.update(extra)
    return out


@pytest.fixture(params=['module path', 'controller path'])
def make_provider(request):
    """ExecCredentialProvider with the runner of each path: the module path's AnsibleModule.run_command
    (a real AnsibleModule) and the controller path's runner."""
    if request.param == 'controller path':
        runner = ControllerRuntime.run_process
    else:
        with patch_module_args({}):
            runner = AnsibleRuntime(argument_spec={}).run_process
    return functools.partial(ExecCredentialProvider, runner=runner)


def failure(provider):
    with pytest.raises(ExecCredentialError) as info:
        provider.get()
    return info.value


def assert_no_secret(error, *secrets):
    shown = '\n'.join([str(error), error.message, repr(error), str(error.args)])
    for secret in secrets:
        for form in (secret, base64.b64encode(secret.encode()).decode()):
            assert form not in shown, 'secret shown in %r' % shown


# ---- successful runs ---------------------------------------------------------------------------

def test_v1_token(tmp_path, make_provider):
    script = plugin(tmp_path, '''
        emit({'token': %r})
    ''' % SECRET)
    provider = make_provider(config(script))
    credential = provider.get()
    assert credential.token == SECRET
    assert credential.client_certificate_data is None
    assert credential.expires_at is None and not credential.expired()
    assert SECRET in provider.secrets and SECRET in credential.secrets
    assert SECRET not in repr(credential)


def test_v1beta1_defaults_to_non_interactive_if_available(tmp_path, make_provider):
    script = plugin(tmp_path, '''
        record(info=json.loads(os.environ['KUBERNETES_EXEC_INFO']))
        emit({'token': 'beta-token'}, version='client.authentication.k8s.io/v1beta1')
    ''')
    provider = make_provider({'apiVersion': V1BETA1, 'command': str(script)})
    assert provider.interactive_mode == 'IfAvailable'
    assert provider.get().token == 'beta-token'
    assert seen(script)['info'] == {'kind': 'ExecCredential', 'apiVersion': V1BETA1,
                                    'spec': {'interactive': False}}


def test_client_certificate_result_loads_as_a_tls_identity(tmp_path, make_provider):
    certs = Certificates()
    script = plugin(tmp_path, '''
        emit({'clientCertificateData': %r, 'clientKeyData': %r})
    ''' % (certs.cert_pem.decode(), certs.key_pem.decode()))
    credential = make_provider(config(script)).get()
    assert credential.token is None
    assert credential.client_certificate_data == certs.cert_pem.decode()
    assert credential.client_key_data == certs.key_pem.decode()
    assert certs.key_pem.decode() in credential.secrets
    assert certs.cert_pem.decode() not in credential.secrets  # a certificate is public
    (tmp_path / 'c.pem').write_text(credential.client_certificate_data)
    (tmp_path / 'k.pem').write_text(credential.client_key_data)
    ssl.create_default_context().load_cert_chain(str(tmp_path / 'c.pem'), str(tmp_path / 'k.pem'))


def test_args_and_env_are_passed_over_the_callers_environment(tmp_path, monkeypatch, make_provider):
    monkeypatch.setenv('PLUGIN_REGION', 'outer')
    monkeypatch.setenv('INHERITED', 'from-caller')
    script = plugin(tmp_path, '''
        record(argv=sys.argv[1:], region=os.environ.get('PLUGIN_REGION'),
               inherited=os.environ.get('INHERITED'), profile=os.environ.get('PLUGIN_PROFILE'))
        emit({'token': 'tok-args'})
    ''')
    provider = make_provider(config(
        script, args=['eks', 'get-token', '--cluster-name', 'prod one'],
        env=[{'name': 'PLUGIN_REGION', 'value': 'eu-west-1'}, {'name': 'PLUGIN_PROFILE', 'value': 'ops'}]))
    provider.get()
    assert seen(script) == {'argv': ['eks', 'get-token', '--cluster-name', 'prod one'],
                            'region': 'eu-west-1', 'inherited': 'from-caller', 'profile': 'ops'}


def test_exec_info_carries_the_cluster_when_asked(tmp_path, make_provider):
    script = plugin(tmp_path, '''
        record(info=json.loads(os.environ['KUBERNETES_EXEC_INFO']))
        emit({'token': 'tok-cluster'})
    ''')
    (tmp_path / 'ca.crt').write_bytes(b'CA-PEM')
    cluster = {'server': 'https://k8s.example:6443', 'certificate-authority': 'ca.crt',
               'tls-server-name': 'api.internal',
               'extensions': [{'name': 'client.authentication.k8s.io/exec',
                               'extension': {'audience': 'prod'}},
                              {'name': 'other', 'extension': {'x': 1}}]}
    make_provider(config(script, provideClusterInfo=True), cluster=cluster,
                           base_dir=str(tmp_path)).get()
    assert seen(script)['info'] == {
        'kind': 'ExecCredential', 'apiVersion': V1,
        'spec': {'interactive': False,
                 'cluster': {'server': 'https://k8s.example:6443', 'tls-server-name': 'api.internal',
                             'certificate-authority-data': base64.b64encode(b'CA-PEM').decode(),
                             'config': {'audience': 'prod'}}}}


def test_exec_info_has_no_cluster_without_provide_cluster_info(tmp_path, make_provider):
    script = plugin(tmp_path, '''
        record(info=json.loads(os.environ['KUBERNETES_EXEC_INFO']))
        emit({'token': 'tok-nocluster'})
    ''')
    make_provider(config(script), cluster={'server': 'https://x'}).get()
    assert seen(script)['info'] == {'kind': 'ExecCredential', 'apiVersion': V1,
                                    'spec': {'interactive': False}}


def test_relative_command_resolves_against_the_kubeconfig_directory(tmp_path, monkeypatch, make_provider):
    (tmp_path / 'bin').mkdir()
    plugin(tmp_path / 'bin', '''
        emit({'token': 'relative'})
    ''', name='login')
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    provider = make_provider(config(os.path.join('bin', 'login')), base_dir=str(tmp_path))
    assert provider.command == str(tmp_path / 'bin' / 'login')
    assert provider.get().token == 'relative'


def test_bare_command_is_found_on_path(tmp_path, monkeypatch, make_provider):
    plugin(tmp_path, '''
        emit({'token': 'on-path'})
    ''', name='kubeops-test-login')
    monkeypatch.setenv('PATH', '%s%s%s' % (tmp_path, os.pathsep, os.environ.get('PATH', '')))
    provider = make_provider(config('kubeops-test-login'), base_dir='/nonexistent')
    assert provider.get().token == 'on-path'


@pytest.fixture
def stdin_with_input():
    """This process's standard input (fd 0) holds text while the test runs: a program that inherits
    it reads the text."""
    saved = os.dup(0)
    read_end, write_end = os.pipe()
    os.write(write_end, b'typed at the keyboard\n')
    os.close(write_end)
    os.dup2(read_end, 0)
    os.close(read_end)
    yield
    os.dup2(saved, 0)
    os.close(saved)


def test_stdin_is_not_connected(tmp_path, make_provider, stdin_with_input):
    script = plugin(tmp_path, '''
        record(stdin=sys.stdin.read(), tty=sys.stdin.isatty())
        emit({'token': 'no-stdin'})
    ''')
    make_provider(config(script, interactiveMode='IfAvailable')).get()
    assert seen(script) == {'stdin': '', 'tty': False}


def test_plugin_runs_in_a_session_of_its_own_with_default_signals(tmp_path, make_provider):
    # A shell plugin: Python would ignore SIGPIPE itself at start. cat shows what the plugin inherited.
    script = tmp_path / 'plugin'
    script.write_text('#!/bin/sh\n'
                      'cat /proc/self/stat > "$0.stat"\n'
                      'sed -n "s/^SigIgn:[[:space:]]*//p" /proc/self/status > "$0.ignored"\n'
                      'echo \'{"apiVersion": "%s", "kind": "ExecCredential", '
                      '"status": {"token": "t-1234"}}\'\n' % V1)
    script.chmod(0o755)
    assert make_provider(config(script)).get().token == 't-1234'
    # /proc/<pid>/stat after the command name: state, ppid, pgrp, session. cat's session is the
    # plugin's, whose pid is cat's parent: the plugin leads its own session.
    fields = (tmp_path / 'plugin.stat').read_text().rsplit(')', 1)[1].split()
    ppid, session = int(fields[1]), int(fields[3])
    assert session == ppid and session != os.getsid(0)
    ignored = int((tmp_path / 'plugin.ignored').read_text(), 16)
    assert not ignored & (1 << (signal.SIGPIPE - 1))


def test_program_that_cannot_be_started(tmp_path, make_provider):
    script = tmp_path / 'plugin'
    script.write_bytes(b'\x7fELF-not-really-a-program\n')
    script.chmod(0o755)
    error = failure(make_provider(config(script)))
    assert error.message == ('getting credentials: exec: executable %s could not be started: '
                             'Exec format error' % script)


# ---- expiry and refresh ------------------------------------------------------------------------

COUNTING = '''
    import datetime
    counter = os.path.join(HERE, 'calls')
    n = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
    open(counter, 'w').write(str(n))
    expiry = (datetime.datetime.now(datetime.timezone.utc)
              + datetime.timedelta(seconds=float(os.environ['LIFETIME'])))
    emit({'token': 'token-%d-abcdef' % n, 'expirationTimestamp': expiry.strftime('%Y-%m-%dT%H:%M:%S.%fZ')})
'''


def calls(tmp_path):
    return int((tmp_path / 'calls').read_text())


def test_credential_is_cached_until_it_expires(tmp_path, make_provider):
    script = plugin(tmp_path, COUNTING)
    provider = make_provider(config(script, env=[{'name': 'LIFETIME', 'value': '3600'}]))
    first = provider.get()
    assert first.token == 'token-1-abcdef'
    assert abs(first.expires_at - (time.time() + 3600)) < 60
    assert provider.get() is first and calls(tmp_path) == 1


def test_expired_credential_is_renewed_on_next_get(tmp_path, make_provider):
    script = plugin(tmp_path, COUNTING)
    provider = make_provider(config(script, env=[{'name': 'LIFETIME', 'value': '0.3'}]))
    first = provider.get()
    assert not first.expired()
    time.sleep(0.4)
    assert first.expired()
    second = provider.get()
    assert (first.token, second.token) == ('token-1-abcdef', 'token-2-abcdef')
    assert {'token-1-abcdef', 'token-2-abcdef'} <= set(provider.secrets)


def test_refresh_after_401_runs_the_plugin_once_per_stale_credential(tmp_path, make_provider):
    script = plugin(tmp_path, COUNTING)
    provider = make_provider(config(script, env=[{'name': 'LIFETIME', 'value': '3600'}]))
    stale = provider.get()
    renewed = provider.refresh(stale=stale)
    assert renewed.token == 'token-2-abcdef'
    # A second caller that also got a 401 with the old credential gets the renewed one.
    assert provider.refresh(stale=stale) is renewed and calls(tmp_path) == 2


def test_concurrent_callers_share_one_run(tmp_path, make_provider):
    script = plugin(tmp_path, 'import time; time.sleep(0.3)\n' + textwrap.dedent(COUNTING))
    provider = make_provider(config(script, env=[{'name': 'LIFETIME', 'value': '3600'}]))
    tokens = []
    threads = [threading.Thread(target=lambda: tokens.append(provider.get().token)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert tokens == ['token-1-abcdef'] * 4 and calls(tmp_path) == 1


# ---- failures ----------------------------------------------------------------------------------

def test_missing_executable_names_it_with_the_install_hint(tmp_path, monkeypatch, make_provider):
    monkeypatch.setenv('PATH', str(tmp_path))
    error = failure(make_provider(config(
        'aws-iam-authenticator', installHint='Install it with: brew install aws-iam-authenticator')))
    assert error.message.startswith('getting credentials: exec: executable aws-iam-authenticator not found')
    assert 'client-go credential plugin' in error.message
    assert error.message.endswith('Install it with: brew install aws-iam-authenticator')


def test_missing_relative_executable(tmp_path, make_provider):
    error = failure(make_provider(config('./bin/login'), base_dir=str(tmp_path)))
    assert 'exec: executable %s not found' % (tmp_path / 'bin' / 'login') in error.message


def test_file_that_is_not_executable(tmp_path, make_provider):
    script = plugin(tmp_path, 'emit({"token": "x"})\n')
    script.chmod(0o644)
    error = failure(make_provider(config(script)))
    assert error.message == ('getting credentials: exec: executable %s is not executable '
                             '(permission denied)' % script)


def test_failing_plugin_reports_exit_code_and_redacted_stderr(tmp_path, make_provider):
    script = plugin(tmp_path, '''
        sys.stderr.write('could not refresh SSO session for profile ops\\n')
        sys.stderr.write('debug: cached token %s, id token %s\\n')
        sys.stderr.write('request header Authorization: Bearer abcdefghijklmnop\\n')
        sys.exit(3)
    ''' % (SECRET, JWT))
    env = [{'name': 'AWS_SECRET_ACCESS_KEY', 'value': SECRET}]
    provider = make_provider(config(script, env=env))
    error = failure(provider)
    assert error.message.startswith(
        'getting credentials: exec: executable %s failed with exit code 3' % script)
    assert 'could not refresh SSO session for profile ops' in error.message
    assert_no_secret(error, SECRET, JWT, 'abcdefghijklmnop')
    assert SECRET in provider.secrets  # env values are reported for the caller's redaction


def test_long_arguments_are_redacted_from_stderr_but_flags_are_not(tmp_path, make_provider):
    key = 'c2VydmljZS1hY2NvdW50LWtleS1tYXRlcmlhbA'
    script = plugin(tmp_path, '''
        sys.stderr.write('bad key %s given with --service-account-key-file\\n' % sys.argv[2])
        sys.exit(1)
    ''')
    provider = make_provider(config(script, args=['--service-account-key-file', key,
                                                           '--cluster-name', 'production-cluster-eu']))
    error = failure(provider)
    assert error.message.endswith('its stderr: bad key ******** given with --service-account-key-file')
    assert key in provider.secrets and '--service-account-key-file' not in provider.secrets
    # A setting is no secret: a result that names the cluster is not hidden.
    assert 'production-cluster-eu' not in provider.secrets


def test_only_credential_settings_are_secrets(tmp_path):
    script = plugin(tmp_path, 'sys.exit(1)')
    env = [{'name': 'AWS_SECRET_ACCESS_KEY', 'value': 'secret-value-0123456789'},
           {'name': 'VAULT_TOKEN', 'value': 'token-value-0123456789'},
           {'name': 'AWS_REGION', 'value': 'eu-central-1'},
           {'name': 'TARGET_NAMESPACE', 'value': 'default'},
           {'name': 'IMAGE', 'value': 'registry.example/app:2.0.1'}]
    provider = ExecCredentialProvider(config(script, env=env, args=['--token=arg-token-0123456789',
                                                                    'get-token']))
    assert sorted(provider.secrets) == ['arg-token-0123456789', 'secret-value-0123456789',
                                        'token-value-0123456789']


def test_long_stderr_is_trimmed_to_its_end(tmp_path, make_provider):
    script = plugin(tmp_path, '''
        sys.stderr.write('x' * 50000 + ' the real reason at the end')
        sys.exit(1)
    ''')
    error = failure(make_provider(config(script)))
    assert error.message.endswith('the real reason at the end')
    assert len(error.message) < ec.STDERR_SHOWN + 300


def test_plugin_killed_by_a_signal(tmp_path, make_provider):
    script = plugin(tmp_path, '''
        import signal
        os.kill(os.getpid(), signal.SIGTERM)
    ''')
    error = failure(make_provider(config(script)))
    assert error.message == 'getting credentials: exec: executable %s was killed by SIGTERM' % script


def _running(pid):
    try:
        with open('/proc/%d/status' % pid) as f:
            return 'State:\tZ' not in f.read()
    except FileNotFoundError:
        return False


def test_plugin_that_hangs_is_stopped_with_its_children(tmp_path, make_provider):
    script = plugin(tmp_path, '''
        import subprocess, time
        child = subprocess.Popen(['sleep', '60'])
        record(child=child.pid)
        sys.stderr.write('waiting for browser login\\n')
        sys.stderr.flush()
        time.sleep(60)
    ''')
    started = time.monotonic()
    error = failure(make_provider(config(script), timeout=1.0))
    assert time.monotonic() - started < 5
    assert error.message == ('getting credentials: exec: executable %s did not finish within 1 seconds '
                             'and was stopped; its stderr: waiting for browser login' % script)
    child = seen(script)['child']
    deadline = time.monotonic() + 5
    while _running(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(child)


def test_plugin_that_closes_stdout_but_keeps_running_is_stopped(tmp_path, make_provider):
    script = plugin(tmp_path, '''
        import time
        emit({'token': 'early'})
        sys.stdout.close(); sys.stderr.close()
        os.close(1); os.close(2)
        time.sleep(60)
    ''')
    started = time.monotonic()
    error = failure(make_provider(config(script), timeout=1.0))
    assert time.monotonic() - started < 5
    assert 'did not exit within 1 seconds and was stopped' in error.message


def test_endless_output_is_cut_off(tmp_path, monkeypatch, make_provider):
    monkeypatch.setattr(ec, 'MAX_OUTPUT', 100000)
    script = plugin(tmp_path, '''
        while True:
            sys.stdout.write('%s' * 1000)
    ''' % SECRET)
    error = failure(make_provider(config(script), timeout=20))
    assert error.message == ('getting credentials: exec: executable %s wrote more than 100000 bytes to '
                             'stdout and was stopped' % script)


@pytest.mark.parametrize('body, expected', [
    ('pass',
     'decoding stdout: the exec plugin {cmd} printed nothing; it must print an ExecCredential object'),
    ('print("token=%s is not json")' % SECRET,
     'decoding stdout: the output of the exec plugin {cmd} (42 bytes) is not JSON'),
    ('print(json.dumps(["%s"]))' % SECRET,
     'decoding stdout: the output of the exec plugin {cmd} is not a JSON object'),
    ('emit({"token": "%s"}, version="client.authentication.k8s.io/v1beta1")' % SECRET,
     'exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned '
     'version client.authentication.k8s.io/v1beta1'),
    ('emit({"token": "%s"}, version="%s")' % (SECRET, SECRET + ' !'),
     'exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned '
     'version an invalid one'),
    ('print(json.dumps({"kind": "ExecCredential", "status": {"token": "%s"}}))' % SECRET,
     'exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned '
     'version none'),
    ('emit({"token": "%s"}, kind="Secret")' % SECRET,
     'decoding stdout: the exec plugin {cmd} returned kind Secret, not ExecCredential'),
    ('print(json.dumps({"apiVersion": "%s", "kind": "ExecCredential"}))' % V1,
     "exec plugin didn't return a status field"),
    ('emit({"expirationTimestamp": "2030-01-01T00:00:00Z"})',
     "exec plugin didn't return a token or cert/key pair"),
    ('emit({"clientKeyData": "-----BEGIN PRIVATE KEY-----\\n%s\\n-----END PRIVATE KEY-----"})' % SECRET,
     'exec plugin returned only certificate or key, not both'),
    ('emit({"clientCertificateData": "cert", "clientKeyData": "%s"})' % SECRET,
     'failed parsing client key/certificate: the exec plugin {cmd} must return PEM-encoded '
     'clientCertificateData and clientKeyData'),
    ('emit({"token": 12345678})',
     'decoding stdout: status.token of the exec plugin {cmd} is not a string'),
    ('emit({"token": "%s", "expirationTimestamp": "tomorrow %s"})' % (SECRET, SECRET),
     'decoding stdout: status.expirationTimestamp of the exec plugin {cmd} is not an RFC 3339 time'),
])
def test_bad_answers_are_clear_and_never_quote_the_output(tmp_path, body, expected, make_provider):
    script = plugin(tmp_path, body + '\n')
    provider = make_provider(config(script))
    error = failure(provider)
    assert error.message == 'getting credentials: ' + expected.format(cmd=script)
    assert_no_secret(error, SECRET)


def test_secrets_of_a_rejected_answer_are_still_reported(tmp_path, make_provider):
    script = plugin(tmp_path, '''
        emit({'token': %r, 'expirationTimestamp': 'soon'})
    ''' % SECRET)
    provider = make_provider(config(script))
    failure(provider)
    assert SECRET in provider.secrets


def test_interactive_mode_always_fails_without_running_the_plugin(tmp_path, make_provider):
    script = plugin(tmp_path, '''
        record(ran=True)
        emit({'token': 'x'})
    ''')
    error = failure(make_provider(config(script, interactiveMode='Always')))
    assert error.message.startswith('getting credentials: exec plugin cannot support interactive mode: '
                                    'standard input is not a terminal')
    assert 'interactiveMode Always' in error.message
    assert not (tmp_path / 'plugin.seen.json').exists()


@pytest.mark.parametrize('exec_config, expected', [
    ('aws', '"exec" must be a mapping with at least apiVersion and command'),
    ({'command': 'aws'}, 'apiVersion must be specified (client.authentication.k8s.io/v1 or '
                         'client.authentication.k8s.io/v1beta1)'),
    ({'apiVersion': 'client.authentication.k8s.io/v1alpha1', 'command': 'aws'},
     'invalid apiVersion "client.authentication.k8s.io/v1alpha1" (supported: '
     'client.authentication.k8s.io/v1, client.authentication.k8s.io/v1beta1)'),
    ({'apiVersion': V1, 'interactiveMode': 'Never'}, 'command must be specified'),
    ({'apiVersion': V1, 'command': 'aws'},
     'interactiveMode must be specified for client.authentication.k8s.io/v1 (one of Never, IfAvailable, '
     'Always)'),
    ({'apiVersion': V1, 'command': 'aws', 'interactiveMode': 'Sometimes'},
     'invalid interactiveMode "Sometimes" (one of Never, IfAvailable, Always)'),
    ({'apiVersion': V1, 'command': 'aws', 'interactiveMode': 'Never', 'args': 'get-token'},
     'args must be a list of strings'),
    ({'apiVersion': V1, 'command': 'aws', 'interactiveMode': 'Never', 'env': [{'name': 'A'}]},
     'env variable A value must be specified as a string'),
    ({'apiVersion': V1, 'command': 'aws', 'interactiveMode': 'Never', 'env': [{'value': SECRET}]},
     'every env entry needs a name and a value'),
])
def test_kubeconfig_mistakes_are_named(exec_config, expected):
    with pytest.raises(ExecConfigError) as info:
        ExecCredentialProvider(exec_config, user='eks-admin')
    assert info.value.message == 'exec plugin of kubeconfig user "eks-admin": ' + expected
    assert_no_secret(info.value, SECRET)


def test_unreadable_certificate_authority_for_cluster_info(tmp_path, make_provider):
    script = plugin(tmp_path, 'emit({"token": "x"})\n')
    provider = make_provider(config(script, provideClusterInfo=True),
                                      cluster={'server': 'https://x', 'certificate-authority': 'missing.crt'},
                                      base_dir=str(tmp_path))
    with pytest.raises(ExecConfigError) as info:
        provider.get()
    assert info.value.message == ('cannot read certificate-authority %s for the exec plugin: '
                                  'No such file or directory' % (tmp_path / 'missing.crt'))


# ---- pure helpers ------------------------------------------------------------------------------



def test_redact_text_hides_known_values_and_credential_shapes():
    text = ('token %s; auth: Bearer abcdefghijkl; id %s; aws k8s-aws-v1.aHR0cHM6Ly9zdHM; '
            '"password": "hunter2xx"; b64 %s; -----BEGIN EC PRIVATE KEY-----\nMHcCAQ\n'
            '-----END EC PRIVATE KEY----- done'
            % (SECRET, JWT, base64.b64encode(SECRET.encode()).decode()))
    out = ec.redact_text(text, ec._secret_parts(SECRET))
    for secret in (SECRET, 'abcdefghijkl', JWT, 'aHR0cHM6Ly9zdHM', 'hunter2xx', 'MHcCAQ',
                   base64.b64encode(SECRET.encode()).decode()):
        assert secret not in out
    assert out.startswith('token ********; auth: Bearer ********; id ********')
    assert out.endswith('done')
