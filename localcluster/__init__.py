"""A Kubernetes control plane on loopback, built from pinned Go modules, for the end-to-end tier.

etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok run as child processes of
whoever starts the cluster (a test session or ``python -m localcluster start``), bound to
127.0.0.1 only, with certificates made for the run. kwok plays the kubelet of fake nodes that
advertise ``nvidia.com/gpu``, so the real scheduler binds GPU pods and the real Deployment
controller sees them become ready. Not part of the installed package: it needs the repository's
``tools/`` pins and ``scripts/tools.sh``.
"""
