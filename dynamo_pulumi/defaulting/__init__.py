"""Defaulting: the operator's mutating webhooks (``webhooks``) and the choice of rendering
pathway they make (``pathway``), applied once per operation before anything is judged."""
