"""The API server: the HTTP layer (server.py), its registry of resources and their store
(registry/), the per-kind defaults and validation (strategies/), the admission plugins
(admission/), discovery, OpenAPI, Tables, field management and the serving certificate."""
