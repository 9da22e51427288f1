# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # Waiting for the rollout after a change (the rules of kubeops.rollout.rollout_status).
    DOCUMENTATION = r'''
options:
  wait:
    description:
      - After the change, wait until the rollout has finished, with the rules of
        M(kubeops.rollout.rollout_status) (kubectl rollout status). The workload is followed with a
        watch, not polled; several workloads are waited for at the same time.
      - The task fails if the rollout does not finish within I(timeout), if a Deployment exceeds
        its progress deadline, or if it is paused. Only a deadline the new rollout exceeds counts; the
        controller keeps the condition an earlier failed rollout set until it sees progress (e.g.
        right after rolling back from it), and unlike kubectl the wait does not fail on it.
      - What makes waiting impossible and can be read before the change (a paused Deployment whose
        template changes, a StatefulSet or DaemonSet with the C(OnDelete) strategy) fails the task
        before anything is changed.
      - Not done in check mode.
    type: bool
    default: false
  timeout:
    description:
      - How long to wait, in seconds, when I(wait=true). At most 604800 (7 days).
      - The same option as I(timeout) in M(kubeops.rollout.rollout_release); V(wait_timeout) is
        another name for it.
    type: int
    default: 300
    aliases: [wait_timeout]
  wait_for_terminating:
    description:
      - With I(wait=true), a Deployment is done only once its old pods are gone too - while its
        C(status.terminatingReplicas) (Kubernetes 1.35 and later) counts pods being deleted, the wait
        goes on (reason V(Terminating)). For releases whose old and new pods must not run side by
        side. C(kubectl rollout status) does not wait for them (the default, V(false)).
      - An API server that does not report the field (before 1.35, or with the
        C(DeploymentReplicaSetTerminatingReplicas) feature gate off) is taken at its word.
      - StatefulSets and DaemonSets are not affected.
    type: bool
    default: false
'''
