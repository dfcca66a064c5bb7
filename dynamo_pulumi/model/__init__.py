"""The model layer: the platform's settings and what is derived from a graph before defaulting
(deploy mode, runtime version, planner connection, Grove names), and the fast twins of the models."""
