"""Diffs between two renders: worker revisions, GPU deltas, object diffs and mode changes."""
