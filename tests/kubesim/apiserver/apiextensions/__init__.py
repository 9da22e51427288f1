"""The apiextensions-apiserver (`k8s.io/apiextensions-apiserver`) inside kubesim's API server:
CustomResourceDefinitions (`apiextensions.k8s.io/v1`) and the custom resources they define.

- types.py        the CRD's v1 types as JSON: decoded and encoded as the Go structs of
                  `pkg/apis/apiextensions/v1` (types.go, types_jsonschema.go, marshal.go) do;
- strategy.py     the CRD strategy (`pkg/registry/customresourcedefinition/strategy.go`, etcd.go),
                  its defaults (`pkg/apis/apiextensions/v1/defaults.go`) and validation
                  (`pkg/apis/apiextensions/validation/validation.go`), and `kubectl get crd`'s
                  table (`.../customresourcedefinition/tableconvertor`);
- schema.py       structural schemas (`pkg/apiserver/schema`): structurality, pruning, defaulting,
                  the ObjectMeta coercion of `objectmeta`, and list-map keys;
- validation.py   custom resources validated against their schema (kube-openapi's validator as
                  `pkg/apiserver/validation` turns its results into field errors), ratcheting;
- handler.py      `pkg/apiserver/customresource_handler.go`: the resource rows a CRD serves,
                  one per served version, and the custom resources' strategy
                  (`pkg/registry/customresource/strategy.go`, status_strategy.go, validator.go,
                  tableconvertor);
- controllers.py  the naming, establishing and finalizing controllers
                  (`pkg/controller/status/naming_controller.go`, `pkg/controller/establish`,
                  `pkg/controller/finalizer/crd_finalizer.go`), as store listeners.
"""
