"""Per-kind defaulting, validation and PrepareForCreate, one module per API group, as the API
server's strategies (pkg/registry/<group>/<kind>/strategy.go) apply them."""
