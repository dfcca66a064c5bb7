"""Planning: from a user's spec to what gets created, below both edges.

A plan is the validated graph, its rendered objects grouped under their components and named for
Pulumi, the replace and ignore rules those objects get, the outputs read off them, and in
operator mode the custom resource and the predicted expansion. The in-process Pulumi components
(:mod:`dynamo_pulumi.resources`), the provider plugin and the CLI all plan through here, so each
sees the same objects under the same names. Pure: nothing here imports ``pulumi`` at import time
(``tests/test_layering.py``); the submodules are imported by name, nothing is loaded eagerly.
"""
