"""One builder module per object kind the component pathway creates.

Every builder has the same shape, ``build(ctx) -> list[dict]``: ``ctx`` is a
:class:`~dynamo_pulumi.render.objects.context.ComponentContext` for objects the DCD controller
owns (Deployment, LeaderWorkerSet, Services, Ingress/VirtualService) or a
:class:`~dynamo_pulumi.render.objects.context.GraphContext` for objects the DGD controller owns
(RBAC, EPP objects, shared ConfigMaps, PVCs, scaling adapters). The ordered list of builders is
:mod:`dynamo_pulumi.render.objects.registry`.
"""
