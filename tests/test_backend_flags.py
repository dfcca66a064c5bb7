"""Flag injection, quoting, framework detection, GPU counting and multinode wiring."""

from __future__ import annotations

import pytest

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.render.backends import (
    detect_backend_framework,
    grove_wiring,
    lws_wiring,
    resolve_gpu_count,
    select_backend_framework,
)
from dynamo_pulumi.render.backends.flags import (
    ensure_flag,
    expand_args,
    flag_int_value,
    inject_flags,
    inject_flags_into_direct_command,
    inject_flags_into_python_command,
    is_python_command,
    is_shell_command,
    shell_quote_for_bash_c,
    shell_quote_posix,
)

GROVE_LEADER = "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-service-ldr-0.$(GROVE_HEADLESS_SERVICE)"
SG_FLAGS = f"--dist-init-addr {GROVE_LEADER}:29500 --nnodes 2 --node-rank 0"


# --- python interpreter detection -------------------------------------------------------------


@pytest.mark.parametrize(
    "cmd",
    ["python", "python3", "python2", "python3.11", "python3.12.1", "/usr/bin/python3.8",
     "/home/user/.pyenv/shims/python3.9", "./python3", "../bin/python", "bin/python3.10"],
)
def test_python_interpreters_are_recognised(cmd: str) -> None:
    assert is_python_command(cmd)


@pytest.mark.parametrize(
    "cmd",
    ["java", "sh", "python-config", "/usr/bin/python-config", "", "python ", "pythonx",
     "/usr/bin/", "python/", "/usr/bin/python/", "python3\n"],
)
def test_non_interpreters_are_not_python(cmd: str) -> None:
    assert not is_python_command(cmd)


# --- quoting -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("token", "quoted"),
    [
        ("--model-path", "--model-path"),
        ("/usr/bin/python3", "/usr/bin/python3"),
        ("", ""),
        ('{"load_format": "DUMMY", "tensor_parallel_size": 8}',
         '"{\\"load_format\\": \\"DUMMY\\", \\"tensor_parallel_size\\": 8}"'),
        ("$HOME/path", '"\\$HOME/path"'),
        ("hello `world`", '"hello \\`world\\`"'),
        ("path\\to\\file", '"path\\\\to\\\\file"'),
        ("it's", "\"it'\"'\"'s\""),
        ("a!b", '"a!b"'),
    ],
)
def test_bash_c_quoting_escapes_only_special_tokens(token: str, quoted: str) -> None:
    assert shell_quote_for_bash_c(token) == quoted


@pytest.mark.parametrize(
    ("token", "quoted"),
    [("--model", "--model"), ("a=b,c:d/e@f%g+h", "a=b,c:d/e@f%g+h"), ("", "''"),
     ("it's", "'it'\\''s'"), ("a b", "'a b'"), ("$X", "'$X'")],
)
def test_posix_quoting_wraps_everything_not_shell_neutral(token: str, quoted: str) -> None:
    assert shell_quote_posix(token) == quoted


# --- injection into python commands ------------------------------------------------------------


def test_python_command_without_shell_appends_flags_as_separate_args() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.sglang"]}
    inject_flags(c, "--a 1  --b $(X)", False, "sglang")
    assert c == {"command": ["python3"], "args": ["-m", "dynamo.sglang", "--a", "1", "--b", "$(X)"]}


def test_python_command_needing_shell_becomes_exec_line_with_quoted_tokens() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--cfg", '{"a": 1}']}
    inject_flags(c, "--node-rank $((GROVE_PCLQ_POD_INDEX + 1))", True, "vllm")
    assert c["command"] == ["sh", "-c"]
    assert c["args"] == [
        'exec python3 -m dynamo.vllm --cfg "{\\"a\\": 1}" --node-rank $((GROVE_PCLQ_POD_INDEX + 1))'
    ]


def test_python_command_without_args_needing_shell_has_single_space() -> None:
    c = {"command": ["python3", "-m", "dynamo.sglang"]}
    inject_flags(c, "--x 1", True, "sglang")
    assert c["args"] == ["exec python3 -m dynamo.sglang --x 1"]


# --- injection into shell strings --------------------------------------------------------------


@pytest.mark.parametrize(
    ("arg", "expected"),
    [
        ("python -m dynamo.sglang", f"python -m dynamo.sglang {SG_FLAGS}"),
        ("echo blah | wc -l && python -m dynamo.sglang && ls -al",
         f"echo blah | wc -l && python -m dynamo.sglang {SG_FLAGS} && ls -al"),
        ("python -m dynamo.sglang | tee /tmp/log", f"python -m dynamo.sglang {SG_FLAGS} | tee /tmp/log"),
        ("python3 -m dynamo.sglang --custom-flag custom-value",
         f"python3 -m dynamo.sglang {SG_FLAGS} --custom-flag custom-value"),
    ],
)
def test_shell_string_gets_flags_right_after_the_framework_token(arg: str, expected: str) -> None:
    c = {"command": ["sh", "-c"], "args": [arg]}
    inject_flags(c, SG_FLAGS, False, "sglang")
    assert c == {"command": ["sh", "-c"], "args": [expected]}


def test_greedy_prefix_puts_flags_after_last_framework_occurrence_in_segment() -> None:
    # ERRATA 28: the greedy prefix reaches the last token naming the framework.
    out = inject_flags_into_python_command("python3 -m dynamo.sglang --model /m/sglang-x --y 1", "--F", "sglang")
    assert out == "python3 -m dynamo.sglang --model /m/sglang-x --F --y 1"


def test_every_matching_segment_of_the_first_matching_arg_is_rewritten() -> None:
    out = inject_flags_into_python_command("python -m dynamo.vllm; python3 -m dynamo.vllm", "--F", "vllm")
    assert out == "python -m dynamo.vllm --F; python3 -m dynamo.vllm --F"


def test_only_first_matching_arg_is_modified() -> None:
    c = {"command": ["sh", "-c"], "args": ["echo start", "python -m dynamo.sglang", "python -m dynamo.sglang --o"]}
    inject_flags(c, "--F", False, "sglang")
    assert c["args"] == ["echo start", "python -m dynamo.sglang --F", "python -m dynamo.sglang --o"]


@pytest.mark.parametrize(
    "c",
    [
        {"command": ["sh", "-c"], "args": ["echo hello", "python -m some.other.module"]},
        {"command": ["java"], "args": ["-jar", "app.jar"]},
        {"command": ["sh", "-c"], "args": ["python -m dynamo.vllm"]},
    ],
)
def test_shell_strings_without_the_framework_are_unchanged(c: dict) -> None:
    before = {k: list(v) for k, v in c.items()}
    inject_flags(c, "--F", False, "sglang")
    assert c == before


def test_trailing_newline_is_not_end_of_text() -> None:
    # Go's $ is end of text only; the newline itself is the delimiter here.
    assert inject_flags_into_python_command("python -m dynamo.vllm\n", "--F", "vllm") == "python -m dynamo.vllm --F\n"


def test_shell_injection_ignores_needs_shell() -> None:
    c = {"command": ["/bin/sh", "-c"], "args": ["python -m dynamo.sglang"]}
    inject_flags(c, "--node-rank $((GROVE_PCLQ_POD_INDEX + 1))", True, "sglang")
    assert c == {"command": ["/bin/sh", "-c"], "args": ["python -m dynamo.sglang --node-rank $((GROVE_PCLQ_POD_INDEX + 1))"]}


def test_unresolved_token_in_shell_rewrite_is_a_render_error() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm", object()]}
    with pytest.raises(RenderError, match=r"args\[2\]"):
        inject_flags(c, "--x", True, "vllm")


# --- argument reading --------------------------------------------------------------------------


def test_flag_value_reads_next_word_and_defaults_to_one() -> None:
    words = expand_args(["-m dynamo.vllm --tensor-parallel-size  8", "--pipeline-parallel-size=2"])
    assert flag_int_value(words, "--tensor-parallel-size") == 8
    assert flag_int_value(words, "--pipeline-parallel-size") == 1
    assert flag_int_value(["--data-parallel-size", "x", "--data-parallel-size", "4"], "--data-parallel-size") == 4


# --- framework detection -----------------------------------------------------------------------


def test_framework_is_detected_from_python_module_launch() -> None:
    assert detect_backend_framework({"command": ["python3"], "args": ["-m", "dynamo.vllm", "--x"]}) == "vllm"
    assert detect_backend_framework({"command": ["sh", "-c"], "args": ["python3.11 -m dynamo.sglang"]}) == "sglang"
    assert detect_backend_framework({"command": ["trtllm-serve"], "args": []}) is None


def test_two_frameworks_on_one_command_line_are_a_render_error() -> None:
    c = {"command": ["sh", "-c"], "args": ["python -m dynamo.vllm & python -m dynamo.sglang"]}
    with pytest.raises(RenderError, match="multiple backend frameworks"):
        detect_backend_framework(c)


def test_detected_framework_differing_from_explicit_is_a_render_error() -> None:
    c = {"command": ["python3", "-m", "dynamo.sglang"]}
    with pytest.raises(RenderError, match='detected "sglang" from command but explicitly configured as "vllm"'):
        select_backend_framework("worker", c, "vllm")


def test_framework_selection_prefers_detection_then_explicit_and_skips_non_workers() -> None:
    c = {"command": ["python3", "-m", "dynamo.trtllm"]}
    assert select_backend_framework("decode", c, None) == "trtllm"
    assert select_backend_framework("prefill", {"command": ["run"]}, "vllm") == "vllm"
    assert select_backend_framework("frontend", c, "vllm") == ""
    assert select_backend_framework("worker", None, None) == ""


def test_ambiguous_detection_falls_back_to_explicit() -> None:
    c = {"command": ["sh", "-c"], "args": ["python -m dynamo.vllm & python -m dynamo.sglang"]}
    assert select_backend_framework("worker", c, "sglang") == "sglang"
    with pytest.raises(RenderError, match="could not determine backend framework"):
        select_backend_framework("worker", c, None)


# --- GPU count ---------------------------------------------------------------------------------


def test_gpu_count_prefers_limits_over_requests() -> None:
    c = {"resources": {"requests": {"nvidia.com/gpu": "4"}, "limits": {"nvidia.com/gpu": 2}}}
    assert resolve_gpu_count(c) == 2


def test_gpu_count_uses_first_gpu_name_in_sorted_order() -> None:
    c = {"resources": {"limits": {"nvidia.com/mig-1g.10gb": "3", "amd.com/gpu": "5", "cpu": "8"}}}
    assert resolve_gpu_count(c) == 5


@pytest.mark.parametrize("name", ["nvidia.com/gpu", "gpu", "example.com/gpu", "nvidia.com/mig-2g.20gb", "gpu.intel.com/i915", "NVIDIA.COM/GPU"])
def test_gpu_like_resource_names_count(name: str) -> None:
    assert resolve_gpu_count({"resources": {"requests": {name: "3"}}}) == 3


def test_gpu_count_without_gpus_is_zero() -> None:
    assert resolve_gpu_count({"resources": {"limits": {"cpu": "2", "example.com/gpus": "1"}}}) == 0
    assert resolve_gpu_count(None) == 0


def test_fractional_gpu_quantity_is_a_render_error() -> None:
    with pytest.raises(RenderError, match="whole number"):
        resolve_gpu_count({"resources": {"limits": {"nvidia.com/gpu": "1500m"}}})


def test_a_container_claim_without_its_pod_claim_is_a_render_error() -> None:
    with pytest.raises(RenderError, match="container ResourceClaim 'gpu' has no matching pod resourceClaim"):
        resolve_gpu_count({"resources": {"claims": [{"name": "gpu"}]}})


# --- wiring ------------------------------------------------------------------------------------


def test_lws_wiring_uses_kubelet_expanded_leader_and_index() -> None:
    w = lws_wiring(3)
    assert w.leader_host == "$(LWS_LEADER_ADDRESS)"
    assert w.node_rank == "$(LWS_WORKER_INDEX)" and not w.rank_needs_shell and w.needs_dns_wait
    assert w.host_names[1:] == (
        "$(echo \"$LWS_LEADER_ADDRESS\" | sed 's/\\./-1\\./')",
        "$(echo \"$LWS_LEADER_ADDRESS\" | sed 's/\\./-2\\./')",
    )


def test_grove_wiring_names_leader_and_worker_cliques_with_shell_rank() -> None:
    w = grove_wiring("Svc", 3)
    prefix = "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-svc"
    assert w.host_names == (
        f"{prefix}-ldr-0.$(GROVE_HEADLESS_SERVICE)",
        f"{prefix}-wkr-0.$(GROVE_HEADLESS_SERVICE)",
        f"{prefix}-wkr-1.$(GROVE_HEADLESS_SERVICE)",
    )
    assert w.node_rank == "$((GROVE_PCLQ_POD_INDEX + 1))" and w.rank_needs_shell and not w.needs_dns_wait


def test_grove_inter_pod_gms_wiring_has_static_rank_and_pod_indexed_hosts() -> None:
    w = grove_wiring("svc", 3, inter_pod_gms=True, rank=2)
    assert w.node_rank == "2" and not w.rank_needs_shell
    assert w.host_names == (
        "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-svc-ldr-$(GROVE_PCLQ_POD_INDEX).$(GROVE_HEADLESS_SERVICE)",
        "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-svc-wkr-1-$(GROVE_PCLQ_POD_INDEX).$(GROVE_HEADLESS_SERVICE)",
        "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-svc-wkr-2-$(GROVE_PCLQ_POD_INDEX).$(GROVE_HEADLESS_SERVICE)",
    )


# --- direct-command injection and EnsureFlag (vLLM ManualMP for role templates) ------------------------


@pytest.mark.parametrize(("arg", "expected"), [
    ("vllm serve m", "vllm serve m --p 1"),
    ("exec vllm serve m --x", "exec vllm serve m --x --p 1"),
    ("cd /w && vllm serve m && echo ok", "cd /w && vllm serve m --p 1&& echo ok"),
    ("vllm serve", "vllm serve --p 1"),
    ("vllm served m", "vllm served m"),  # the subcommand must end at whitespace
    ("myvllm serve m", "myvllm serve m"),  # the executable must start at whitespace
])
def test_direct_command_gets_flags_before_the_next_shell_operator(arg: str, expected: str) -> None:
    assert inject_flags_into_direct_command(arg, "--p 1", "vllm", "serve") == expected


@pytest.mark.parametrize(("cmd", "shell"), [
    ("sh", True), ("bash", True), ("/bin/sh", True), ("/bin/bash", True), ("/usr/bin/bash", False),
    ("zsh", False), ("python3", False),
])
def test_shell_commands(cmd: str, shell: bool) -> None:
    assert is_shell_command(cmd) is shell


def test_inject_flags_tries_the_python_launch_before_the_direct_one() -> None:
    c = {"command": ["sh", "-c"], "args": ["vllm serve m", "python3 -m dynamo.vllm"]}
    inject_flags(c, "--p 1", False, "vllm", executable="vllm", subcommand="serve")
    assert c["args"] == ["vllm serve m --p 1", "python3 -m dynamo.vllm"]  # first changed arg only


@pytest.mark.parametrize("container", [
    {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--master-port", "29500"]},
    {"command": ["sh", "-c"], "args": ["vllm serve m --master-port=29500"]},
    {"command": ["vllm", "serve", "--master-port", "29500"]},
])
def test_ensure_flag_leaves_an_existing_pair_alone(container: dict) -> None:
    before = {k: list(v) for k, v in container.items()}
    ensure_flag(container, "--master-port", "29500", "vllm", executable="vllm", subcommand="serve")
    assert container == before


def test_ensure_flag_appends_to_args_of_a_non_shell_command() -> None:
    c: dict = {"command": ["/usr/bin/bash", "run.sh"]}
    ensure_flag(c, "--master-port", "29500", "vllm")
    assert c == {"command": ["/usr/bin/bash", "run.sh"], "args": ["--master-port", "29500"]}


def test_ensure_flag_refuses_a_shell_script_without_a_recognisable_launch() -> None:
    c = {"command": ["/bin/bash", "-c"], "args": ["./serve.sh"]}
    with pytest.raises(RenderError, match="could not add flag"):
        ensure_flag(c, "--master-port", "29500", "vllm", executable="vllm", subcommand="serve")
