"""The verdict: whether a graph can be deployed (``deployability``) and whether an update is
allowed against what runs (``update``), each judged once from what the earlier stages computed."""
