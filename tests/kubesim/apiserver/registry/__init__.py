"""The API server's registry: the served resources, one row each (resources.py), and the store
that holds their objects, watches them and collects garbage (store.py)."""
