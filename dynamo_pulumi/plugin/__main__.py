"""Run the plugin: ``python -m dynamo_pulumi.plugin ENGINE`` or, as the Python language host runs a
``PulumiPlugin.yaml`` directory, ``python <this directory> ENGINE``."""

from dynamo_pulumi.plugin.server import main

if __name__ == "__main__":
    main()
