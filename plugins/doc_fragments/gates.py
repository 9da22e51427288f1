# -*- coding: utf-8 -*-
# Copyright: (c) 2026, kubeops.rollout contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # Early stop and soak of every wait (module_utils/gates/health.py).
    DOCUMENTATION = r'''
options:
  fail_fast_seconds:
    description:
      - While waiting, the pods of the revision being rolled out are looked at every few seconds
        (every third of this value, between 1 and 5 seconds; the first look one interval after the wait
        began, so a rollout that progresses quickly costs no request). A cause that the rollout cannot get
        past by itself (C(ImagePullBackOff), C(ErrImagePull), C(InvalidImageName), C(CrashLoopBackOff),
        C(CreateContainerConfigError), C(CreateContainerError), C(RunContainerError), C(Unschedulable),
        C(FailedCreate) from a quota or admission) that is seen for this many seconds ends the wait
        at once, for every kind, however long I(timeout) and the progress deadline are. The
        message names the cause, the pods and what to do, and C(diagnosis) has the details (reason
        C(RolloutStuck)).
      - A Ready pod whose container restarted because it was resized in place (its cpu or memory
        changed through the C(resize) subresource, Kubernetes 1.33 and later, so that they differ from
        the pod template) is not taken for a crash loop.
      - V(0) turns early stop off (for registries that heal themselves).
    type: int
    default: 30
  soak_seconds:
    description:
      - Once the rollout is complete, for this many seconds the pods of the new revision must stay
        Ready and restart at most I(max_restarts) times, else the wait fails naming the pod, its
        restarts and its last state (reasons C(SoakPodNotReady), C(SoakRestarts)). The pods are
        looked at once a second.
      - After a change made by the task, every restart of the new pods counts; without one (for
        example M(kubeops.rollout.rollout_status)), only restarts during the soak.
      - A container restart that comes with an in-place resize is not counted, nor is the resize a new
        revision - the container's resources changed during the soak, or its cpu or memory already
        differ from the pod template at the first look (resized through the C(resize) subresource,
        Kubernetes 1.33 and later, with a C(resizePolicy) of C(RestartContainer)). Restarts of the
        pod's other containers still count.
      - V(0) (the default) ends the wait when the rollout is complete.
    type: int
    default: 0
  max_restarts:
    description:
      - Container restarts (of all the containers of one pod together) tolerated per pod of the new
        revision during I(soak_seconds).
    type: int
    default: 0
'''
