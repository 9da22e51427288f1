"""A hostile Kubernetes API server for testing the client's bounds (see server.py)."""
