"""The ``dynamo`` Pulumi provider plugin: the components and readiness from every language.

A second edge beside :mod:`dynamo_pulumi.resources`, over the same core: ``Construct`` builds the
very Python components (:mod:`.components`), ``GraphReadiness`` is the readiness core served as
a custom resource (:mod:`.readiness`). This directory is also the plugin as the engine runs it:
``PulumiPlugin.yaml`` (``runtime: python``) and ``__main__.py``; the ``pulumi-resource-dynamo``
console script starts the same server (:func:`.server.main`).
"""
