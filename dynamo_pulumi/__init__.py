"""dynamo-pulumi: NVIDIA Dynamo inference graphs as Pulumi resources, rendered in Python."""

__version__ = "0.1.0"
