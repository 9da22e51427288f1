"""The RBAC authorizer (plugin/pkg/auth/authorizer/rbac), its rule evaluation and escalation checks
(pkg/apis/rbac/v1/evaluation_helpers.go, pkg/registry/rbac/validation, pkg/registry/rbac) and the
bootstrap policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy)."""
