"""Why a component is not ready, read from its recorded pods and events."""

from __future__ import annotations

from cluster_recordings import recording

from dynamo_pulumi.readiness.reasons import component_problems, pod_problems


def test_an_unschedulable_pod_reports_the_schedulers_message():
    (problem,) = pod_problems(recording("pod-unschedulable"))
    assert str(problem) == (
        "Unschedulable: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu. "
        "preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod."
    )


def test_a_pending_claim_is_reported_as_a_pending_pvc_with_its_name():
    (problem,) = pod_problems(recording("pod-pvc-pending"))
    assert problem.reason == "PersistentVolumeClaimPending"
    assert problem.text.startswith("model-cache: 0/4 nodes are available: pod has unbound immediate")


def test_image_pull_back_off_names_the_image():
    (problem,) = pod_problems(recording("pod-image-pull"))
    assert problem.reason == "ImagePullBackOff"
    assert "image nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.99" in problem.text and "manifest unknown" in problem.text


def test_err_image_pull_is_reported_like_a_back_off():
    pod = recording("pod-image-pull")
    pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] = "ErrImagePull"
    assert pod_problems(pod)[0].reason == "ErrImagePull"


def test_crash_loop_reports_the_last_exit_code():
    (problem,) = pod_problems(recording("pod-crash-loop"))
    assert str(problem) == "CrashLoopBackOff: container main last exit code 1 (Error)"


def test_oom_killed_wins_over_the_crash_loop_it_causes():
    (problem,) = pod_problems(recording("pod-oom-killed"))
    assert str(problem) == "OOMKilled: container main (exit code 137)"


def test_a_running_unready_container_with_a_probe_event_is_a_failing_readiness_probe():
    problems = component_problems([recording("pod-probe-failing")], recording("events"))
    assert problems == ["ReadinessProbeFailed: Readiness probe failed: HTTP probe failed with statuscode: 503"]


def test_a_running_unready_container_without_events_says_so():
    assert component_problems([recording("pod-probe-failing")]) == ["ContainerNotReady: container main is running but not ready"]


def test_a_ready_pod_has_no_problem():
    assert pod_problems(recording("pod-ready")) == []


def test_identical_problems_on_several_pods_are_reported_once_with_a_count():
    pod = recording("pod-unschedulable")
    twin = recording("pod-unschedulable")
    twin["metadata"]["name"] += "-2"
    (line,) = component_problems([pod, twin])
    assert line.startswith("Unschedulable: 0/4 nodes") and line.endswith("(2 pods)")


def test_warning_events_on_the_workload_explain_pods_that_were_never_created():
    problems = component_problems([], recording("events"), workload_names=["llm-decode-1a2b3c4d"])
    assert problems == [
        'FailedCreate: pods "llm-decode-1a2b3c4d-6d9f7c8b4-zz" is forbidden: exceeded quota: gpu-quota, '
        "requested: nvidia.com/gpu=1, used: nvidia.com/gpu=4, limited: nvidia.com/gpu=4"
    ]


def test_scheduling_comes_before_container_problems():
    problems = component_problems([recording("pod-crash-loop"), recording("pod-unschedulable")])
    assert problems[0].startswith("Unschedulable") and problems[1].startswith("CrashLoopBackOff")
