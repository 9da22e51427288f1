"""`python -m tests.bench.parallel`: start shell command lines all at once, wait for every one, report.

Reads a JSON list of command lines on stdin; writes one JSON object on stdout: ``start`` and
``end`` (monotonic, the first start and the last exit; CLOCK_MONOTONIC is the same in every
process), ``cpu_seconds`` (user + system time of every shell and what it ran) and ``results``,
one ``{"returncode", "stderr"}`` per command line, in order.

The harness starts it in a session of its own: all the shells then share one scheduling group
(the kernel's autogroup, one per session), as ansible-playbook's task worker does (it calls
setsid), and neither tool's process count changes the API server's share of the CPU.
"""

import json
import resource
import subprocess
import sys
import time


def main():
    commands = json.load(sys.stdin)
    start = time.monotonic()
    procs = [subprocess.Popen(['bash', '-c', c], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for c in commands]
    results = []
    for p in procs:
        _out, err = p.communicate()
        results.append({'returncode': p.returncode, 'stderr': err.strip()[-300:]})
    end = time.monotonic()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    json.dump({'start': start, 'end': end, 'cpu_seconds': usage.ru_utime + usage.ru_stime,
               'results': results}, sys.stdout)


if __name__ == '__main__':
    main()
