"""Peak memory of a process and everything it starts, for the controller's share of a playbook run.

Two measures of one run:

- ``maxrss``: the kernel's peak resident set size of the largest single process of the tree, from
  ``wait4()`` on the process (its own peak and that of every descendant it waited for, as
  ``getrusage(RUSAGE_CHILDREN)`` counts them). ansible-playbook forks a worker per task and host,
  and the collection's modules run in that worker on the controller path: the worker's peak is
  the controller's peak for the task.
- the tree sampled from ``/proc`` every ``interval`` seconds: the peak of the summed RSS (pages a
  fork shares with its parent counted in each process) and of the summed PSS (each shared page
  divided among the processes that map it, so the sum is what the tree really holds), and the
  most processes seen at once. A sample can miss a peak shorter than the interval; ``maxrss``
  cannot.
"""

import os
import subprocess
import threading
import time

PAGE = os.sysconf('SC_PAGE_SIZE')
MB = 1024 * 1024


def parse_ppid(stat):
    """The parent pid from the text of /proc/<pid>/stat (the command may hold spaces and ')')."""
    return int(stat.rsplit(')', 1)[1].split()[1])


def children_map(ppids):
    """{pid: ppid} to {ppid: [pids]}."""
    out = {}
    for pid, ppid in ppids.items():
        out.setdefault(ppid, []).append(pid)
    return out


def descendants(root, ppids):
    """``root`` and every process below it, from a {pid: ppid} map."""
    kids = children_map(ppids)
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(kids.get(pid, ()))
    return out


def parse_rollup(text):
    """Rss and Pss of /proc/<pid>/smaps_rollup, in bytes: {'rss': int, 'pss': int}."""
    out = {}
    for line in text.splitlines():
        key, _, rest = line.partition(':')
        if key in ('Rss', 'Pss'):
            out[key.lower()] = int(rest.split()[0]) * 1024
    return out


def _ppids():
    out = {}
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            with open(f'/proc/{name}/stat') as f:
                out[int(name)] = parse_ppid(f.read())
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    return out


def _usage(pid):
    try:
        with open(f'/proc/{pid}/smaps_rollup') as f:
            return parse_rollup(f.read())
    except (OSError, ValueError):
        pass
    try:  # no smaps_rollup (older kernels): RSS only, PSS taken as RSS
        with open(f'/proc/{pid}/statm') as f:
            rss = int(f.read().split()[1]) * PAGE
        return {'rss': rss, 'pss': rss}
    except (OSError, ValueError, IndexError):
        return None


class TreeSampler:
    """Samples the memory of ``root``'s process tree in a thread until `stop`."""

    def __init__(self, root, interval=0.25):
        self.root = root
        self.interval = interval
        self.peak_rss = 0
        self.peak_pss = 0
        self.peak_one = 0  # the largest single process's RSS seen
        self.most_processes = 0
        self.samples = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def sample(self):
        usages = [u for u in (_usage(p) for p in descendants(self.root, _ppids())) if u]
        if not usages:
            return
        self.samples += 1
        self.peak_rss = max(self.peak_rss, sum(u['rss'] for u in usages))
        self.peak_pss = max(self.peak_pss, sum(u.get('pss', u['rss']) for u in usages))
        self.peak_one = max(self.peak_one, max(u['rss'] for u in usages))
        self.most_processes = max(self.most_processes, len(usages))

    def _run(self):
        while not self._done.is_set():
            self.sample()
            self._done.wait(self.interval)

    def stop(self):
        self._done.set()
        self._thread.join()
        return {'tree_rss_mb': self.peak_rss / MB, 'tree_pss_mb': self.peak_pss / MB,
                'largest_sampled_mb': self.peak_one / MB, 'processes': self.most_processes,
                'samples': self.samples}


def run(cmd, out_path, timeout, interval=0.25, **popen):
    """Run ``cmd`` with its output in ``out_path``: (returncode, seconds, memory dict).

    The memory dict has ``maxrss_mb`` (wait4), the sampler's peaks (see the module's docstring) and
    ``cpu_seconds``, the CPU time of the tree (wait4 again).
    """
    with open(out_path, 'w') as out:
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, **popen)
        sampler = TreeSampler(proc.pid, interval).start()
        deadline = t0 + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        seconds = time.monotonic() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        memory = sampler.stop()
    # Linux reports ru_maxrss in KiB.
    memory['maxrss_mb'] = usage.ru_maxrss * 1024 / MB
    # CPU time of the process and of the descendants it waited for.
    memory['cpu_seconds'] = usage.ru_utime + usage.ru_stime
    return proc.returncode, seconds, memory


def process_cpu(pid):
    """CPU seconds (user + system) ``pid`` has used so far, from /proc/<pid>/stat; None if gone."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            fields = f.read().rsplit(')', 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
