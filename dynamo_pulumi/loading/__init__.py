"""Loading: manifest documents read into graphs and standalone components (``documents``)."""
