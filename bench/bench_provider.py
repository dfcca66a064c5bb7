"""What asking the Kubernetes provider costs a program, under mocks (ratios in one run).

    .venv/bin/python bench/bench_provider.py [--repeat N]

The 25-component graph of ``bench_program.py``, four ways: the default provider with
``namespace=`` (reads only stack config), an explicit ``k8s.Provider`` with ``namespace=`` (its
state read once for server-side apply, through ``pulumi:pulumi:getResource``), the provider's own
namespace (the same one read, now deciding the namespace too), and ten graphs on one provider
(each reads it). Under mocks the read is an in-process invoke; against the engine it is one
round trip once the provider is registered.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s

from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.resources import DynamoGraphDeployment

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_program import median_ms, synthetic_graph

NAMESPACE = "bench"


def _default() -> None:
    DynamoGraphDeployment("g", synthetic_graph(), namespace=NAMESPACE)


def _explicit() -> None:
    provider = k8s.Provider("p", kubeconfig="kc")
    DynamoGraphDeployment("g", synthetic_graph(), namespace=NAMESPACE, opts=pulumi.ResourceOptions(provider=provider))


def _provider_namespace() -> None:
    provider = k8s.Provider("p", kubeconfig="kc", namespace=NAMESPACE)
    DynamoGraphDeployment("g", synthetic_graph(), opts=pulumi.ResourceOptions(provider=provider))


def _ten_graphs(explicit: bool) -> Callable[[], None]:
    def program() -> None:
        opts = pulumi.ResourceOptions(provider=k8s.Provider("p", kubeconfig="kc")) if explicit else None
        for i in range(10):
            DynamoGraphDeployment(f"g{i}", synthetic_graph(3), namespace=f"{NAMESPACE}-{i}", opts=opts)

    return program


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    base = median_ms(lambda: run_program(_default), args.repeat)
    print(f"{'program (25 components)':<52} {'ms':>8} {'ratio':>7}")
    print(f"{'default provider, namespace=':<52} {base:>8.1f} {1.0:>6.2f}x")
    for label, program in (("explicit provider, namespace=", _explicit),
                           ("explicit provider, its namespace", _provider_namespace)):
        ms = median_ms(lambda program=program: run_program(program), args.repeat)
        print(f"{label:<52} {ms:>8.1f} {ms / base:>6.2f}x")
    ten_default = median_ms(lambda: run_program(_ten_graphs(False)), args.repeat)
    ten_explicit = median_ms(lambda: run_program(_ten_graphs(True)), args.repeat)
    print(f"{'10 graphs of 3 components, default provider':<52} {ten_default:>8.1f} {1.0:>6.2f}x")
    print(f"{'10 graphs of 3 components, one explicit provider':<52} {ten_explicit:>8.1f} {ten_explicit / ten_default:>6.2f}x")


if __name__ == "__main__":
    main()
